"""Building an ``Enricher`` over ``ChatOpenAI`` (LangChain is imported on call, in ``cbmemory.llm``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...llm import make_chat_model
from .cache import SQLiteCache
from .enricher import Enricher


def make_enricher(model: str, base_url: str | None = None, *, cache_path: str | Path,
                  max_concurrency: int = 4, calls_per_session: int = 64, api_key: str | None = None,
                  **kwargs: Any) -> Enricher:
    """An ``Enricher`` over ``ChatOpenAI`` (OpenAI, or a local OpenAI-compatible server at ``base_url``)
    at temperature 0, with its cache and failures log in the SQLite file ``cache_path``."""
    llm = make_chat_model(model, base_url, api_key, max_retries=0)  # one retry layer: the runner's own
    return Enricher(llm, cache=SQLiteCache(cache_path), max_concurrency=max_concurrency,
                    calls_per_session=calls_per_session, **kwargs)


__all__ = ["make_enricher"]
