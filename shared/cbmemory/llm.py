"""Chat models for the optional LLM steps (evaluation answers and judging, ingest-time extraction).

LangChain is imported on call, never at import time.
"""

from __future__ import annotations

import os
from typing import Any

from .errors import InvalidInputError, MissingDependencyError


def model_name(llm: Any) -> str:
    for attr in ("model_name", "model", "model_id"):
        value = getattr(llm, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(llm).__name__


DEFAULT_RETRIES = 2  # a failed HTTP call is tried 3 times in all


def make_chat_model(model: str, base_url: str | None = None, api_key: str | None = None, *,
                    max_retries: int = DEFAULT_RETRIES, http_client: Any = None,
                    max_tokens: int | None = None) -> Any:
    """``ChatOpenAI`` at temperature 0 (OpenAI, or a local OpenAI-compatible server with ``base_url``).

    Retries are one layer, never two stacked: ``max_retries`` is the OpenAI client's own (with its backoff,
    and ``Retry-After`` honoured), for callers that do not retry (the evaluation's reader and judge); a
    caller with its own retry loop passes ``max_retries=0`` (the enrichment runner does). ``http_client``:
    an ``httpx.Client`` for the OpenAI client to send through (a proxy; a test's fake transport).
    ``max_tokens``: a cap on each reply (``None``: the server's).
    """
    if max_retries < 0:
        raise InvalidInputError(f"max_retries must be 0 or more, got {max_retries}")
    try:
        from langchain_openai import ChatOpenAI
    except ImportError as exc:  # pragma: no cover - the eval extra has it
        raise MissingDependencyError("LLM steps need langchain-openai: pip install 'cbmemory[openai]'") from exc
    key = api_key or os.environ.get("OPENAI_API_KEY") or ("local" if base_url else None)
    if key is None:
        raise InvalidInputError("set OPENAI_API_KEY (or pass --llm-base-url for a local server)")
    return ChatOpenAI(model=model, base_url=base_url, api_key=key, temperature=0, max_retries=max_retries,
                      timeout=600, http_client=http_client, max_tokens=max_tokens)


__all__ = ["DEFAULT_RETRIES", "make_chat_model", "model_name"]
