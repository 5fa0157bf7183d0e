"""What the study's commands share (they plug into the core's ``cbmemory`` command through the entry-point
group ``cbmemory.commands``): argparse types, the interruption the core's ``main`` reports, and the options
of an ingest."""

from __future__ import annotations

import argparse


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, carrying what the interrupted command kept: the core's ``main`` says it and exits 130."""


def positive(text: str) -> int:
    """An integer of at least 1 (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def csv(text: str | None) -> list[str]:
    """``a, b,,c`` -> ``["a", "b", "c"]``."""
    return [p.strip() for p in (text or "").split(",") if p.strip()]


__all__ = ["Interrupted", "csv", "positive"]
