"""Integration layer (LangChain's interface contract): LangChain's own standard suites (langchain-tests) run
against the adapter.

Suites that apply: ``RetrieversIntegrationTests`` (the retriever), ``ToolsUnitTests`` and
``ToolsIntegrationTests`` (the memory tool). langchain-tests has no suite for LangGraph's ``BaseStore`` or for
agent middleware; those are covered in test_store.py and test_middleware.py.
"""

from __future__ import annotations

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests, ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from cbmemory import AgentMemory
from langchain_cbmemory import CbMemoryRetriever, create_memory_tool

_STATE: dict[str, AgentMemory] = {}


@pytest.fixture(scope="module", autouse=True)
def seeded_memory(tmp_path_factory, minilm):
    mem = AgentMemory.open(tmp_path_factory.mktemp("std") / "m.db", embedder=minilm)
    mem.add_session("alice", "s1", [{"role": "user", "content": f"My hobby number {i} is painting birds."}
                                    for i in range(5)], date="2023-05-07")
    _STATE["memory"] = mem
    yield mem
    mem.close()


class TestRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self):
        return CbMemoryRetriever

    @property
    def retriever_constructor_params(self):
        return {"memory": _STATE["memory"], "user_id": "alice"}

    @property
    def retriever_query_example(self) -> str:
        return "What are my hobbies?"


class _ToolParams:
    @property
    def tool_constructor(self):
        return create_memory_tool(CbMemoryRetriever(memory=_STATE["memory"], user_id="alice", k=2))

    @property
    def tool_invoke_params_example(self):
        return {"query": "hobbies"}


class TestMemoryToolUnitStandard(_ToolParams, ToolsUnitTests):
    pass


class TestMemoryToolIntegrationStandard(_ToolParams, ToolsIntegrationTests):
    pass
