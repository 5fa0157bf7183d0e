"""Which recipes need an ingest-time LLM (their ``ingest.enrich`` is set), so the evaluation can skip them
with a note when none is configured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cbmemory.recipes import get_recipe

SKIP_NOTE = ("note: skipping {names}: these recipes extract summaries/events/facts with an LLM at ingest; "
             "pass --enrich-llm MODEL (OpenAI) or --enrich-llm local-gguf --enrich-base-url URL (a local "
             "OpenAI-compatible server) to run them")


def needs_llm(recipe: Any) -> bool:
    """Whether a recipe's records are made with an LLM (its ``ingest.enrich`` is set)."""
    return get_recipe(recipe).ingest.enrich is not None


def split_recipes(names: Sequence[Any], have_llm: bool) -> tuple[list[Any], list[str]]:
    """(recipes that can run, names skipped because they need an LLM and none is configured)."""
    if have_llm:
        return list(names), []
    keep = [n for n in names if not needs_llm(n)]
    return keep, [get_recipe(n).name for n in names if needs_llm(n)]


__all__ = ["SKIP_NOTE", "needs_llm", "split_recipes"]
