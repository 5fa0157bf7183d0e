"""What the core's commands share: exit codes, the interruption ``main`` reports, argparse types, the one
stderr line, and opening a memory the way a recipe expects."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import InvalidInputError

USAGE, FAILURE, INTERRUPTED = 2, 1, 130


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, carrying what the interrupted command kept (``main`` says it). Any ``KeyboardInterrupt``
    whose message says what was kept is reported so, from a command of another package too."""


class UnknownUserError(InvalidInputError):
    """A command names a user the store holds no records of."""


class UnknownSessionError(InvalidInputError):
    """A command names a session the store does not hold for the user."""


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
    """``a, b,,c`` -> ``["a", "b", "c"]`` (an argparse type for comma-separated lists)."""
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def as_of(text: str):
    """A date or time (ISO 8601, or LoCoMo's ``1:56 pm on 8 May, 2023``) as aware UTC, a date alone the end of
    that day (``validation.check_reads``: what ``as_of`` means in a search; an argparse type)."""
    from ..validation import check_reads

    try:
        return check_reads(False, text)
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("as_of: ")) from None


def say(kind: str, message: str) -> None:
    """One line on stderr: ``cbmemory: <kind>: <message>`` (line breaks in the message become spaces)."""
    print(f"cbmemory: {kind}: {' '.join(str(message).split())}", file=sys.stderr)


def recipe_arg(text: str):
    """A recipe by name, or read from a JSON file (``cbmemory recipes NAME > mine.json``, edited)."""
    from pathlib import Path

    from ..recipes import Recipe, get_recipe

    if not text.endswith(".json"):
        return get_recipe(text)
    try:
        return Recipe.from_json(Path(text).read_bytes())
    except OSError as exc:
        raise InvalidInputError(f"cannot read the recipe file {text}: {exc.strerror or exc}") from None


def open_memory(args: argparse.Namespace, **kw: Any):
    """The memory file of ``--db``, writing the way ``--recipe`` expects (``--no-dates``, ``--unit`` change
    that)."""
    from dataclasses import replace

    from ..memory import AgentMemory

    recipe = recipe_arg(getattr(args, "recipe", "default"))
    ingest = recipe.ingest
    if getattr(args, "no_dates", False):
        ingest = replace(ingest, anchor_dates=False)
    if getattr(args, "unit", None):
        ingest = replace(ingest, unit=args.unit)
    return AgentMemory.open(args.db, ingest=ingest, recipe=recipe, **kw)


def add_ingest_options(p: argparse.ArgumentParser) -> None:
    """The options every ingest command shares: how records are made, and how much is said."""
    p.add_argument("--db", required=True, help="the memory file (created if missing)")
    p.add_argument("--no-dates", action="store_true", help="turn temporal anchoring off")
    p.add_argument("--unit", choices=["turn", "round"], help="record unit (default: the recipe's)")
    p.add_argument("--recipe", default="default",
                   help="ingest the way this recipe expects (a name, or a recipe's JSON file)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")


__all__ = ["FAILURE", "INTERRUPTED", "USAGE", "Interrupted", "UnknownSessionError", "UnknownUserError",
           "add_ingest_options", "as_of", "csv", "open_memory", "positive", "recipe_arg", "say"]
