"""Building an ``Enricher`` from command-line settings, and telling which recipes need one. The chat
model is imported here, on call, never at import time."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cache import SQLiteCache
from .modes import Enricher

SKIP_NOTE = ("note: skipping {names}: these recipes extract summaries/events/facts with an LLM at ingest; "
             "pass --enrich-llm MODEL (OpenAI) or --enrich-llm local-gguf --enrich-base-url URL (a local "
             "OpenAI-compatible server) to run them")


def needs_llm(recipe: Any) -> bool:
    """Whether a recipe's records are made with an LLM (its ``ingest.enrich`` is set)."""
    from ..retrieval.recipes import get_recipe

    return get_recipe(recipe).ingest.enrich is not None


def split_recipes(names: Sequence[Any], have_llm: bool) -> tuple[list[Any], list[str]]:
    """(recipes that can run, names skipped because they need an LLM and none is configured)."""
    from ..retrieval.recipes import get_recipe

    if have_llm:
        return list(names), []
    keep = [n for n in names if not needs_llm(n)]
    return keep, [get_recipe(n).name for n in names if needs_llm(n)]


def make_enricher(model: str, base_url: str | None = None, *, cache_path: str | Path,
                  max_concurrency: int = 4, calls_per_session: int = 64, api_key: str | None = None,
                  **kwargs: Any) -> Enricher:
    """An ``Enricher`` over ``ChatOpenAI`` (OpenAI, or a local OpenAI-compatible server at ``base_url``)
    at temperature 0, with its cache and failures log in the SQLite file ``cache_path``."""
    from ..llm import make_chat_model

    llm = make_chat_model(model, base_url, api_key)
    return Enricher(llm, cache=SQLiteCache(cache_path), max_concurrency=max_concurrency,
                    calls_per_session=calls_per_session, **kwargs)


__all__ = ["SKIP_NOTE", "make_enricher", "needs_llm", "split_recipes"]
