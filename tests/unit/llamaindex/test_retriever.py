"""Unit layer (llamaindex_cbmemory.retriever): the retriever refuses anything but an AgentMemory."""

from __future__ import annotations

import pytest

from cbmemory import InvalidInputError
from llamaindex_cbmemory import CbMemoryRetriever


def test_memory_must_be_an_agent_memory():
    with pytest.raises(InvalidInputError, match="AgentMemory"):
        CbMemoryRetriever(object(), "alice")  # type: ignore[arg-type]
