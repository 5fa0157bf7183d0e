"""Unit layer (langchain_cbmemory.retriever): the sync and async retrieval methods take the same keywords."""

from __future__ import annotations

import inspect

from langchain_cbmemory.retriever import CbMemoryRetriever as Retriever


def test_sync_and_async_take_the_same_keywords():
    sync = inspect.signature(Retriever._get_relevant_documents).parameters
    asyn = inspect.signature(Retriever._aget_relevant_documents).parameters
    assert list(sync) == list(asyn)
    assert {"k", "user_id", "recipe", "session_ids", "occurred_after", "occurred_before"} <= set(sync)
