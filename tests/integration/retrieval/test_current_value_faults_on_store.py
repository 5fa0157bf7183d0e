"""Integration layer: the current-value stage (``cbmemory.retrieval.current_value.with_current``) when the model
fails, over a real SQLite file with the real MiniLM embedder behind a wrapper that can be made to fail (the way a
hosted model fails: a rate limit, a timeout). The stage only adds to what the recipe found: when one of its own
embedder calls fails, ``recall``, ``search`` and ``context`` give the recipe's memories as they are (no fault,
nothing lost) and a warning is logged on ``cbmemory.retrieval``; a fault of the stage's own code is still raised by
``search``."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pytest

from cbmemory import AgentMemory, get_recipe
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value

from .test_current_value_on_store import NEW, OLD, _history

OFF = get_recipe("default").with_(name="default_no_current", current_value=False)
QUESTION = "Which city do I live in these days?"


class Failing:
    """MiniLM, but every call fails while ``failing`` is set, except the query embedding of ``spared`` (the
    question itself, which the recipe's own search embeds first); with ``malformed``, texts come back as NaNs."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner, self.name, self.dimension = inner, inner.name, inner.dimension
        self.failing, self.spared, self.calls_failed = False, "", 0
        self.malformed = False  # texts embedded as NaN vectors, queries as they are
        self.where = ""  # a path named in the error, as a local model's error may

    def _check(self) -> None:
        if self.failing:
            self.calls_failed += 1
            raise ConnectionError(f"429: rate limited for ana's texts in {self.where}")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.malformed:
            return np.full((len(texts), self.dimension), np.nan, dtype=np.float32)
        self._check()
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        if text != self.spared:
            self._check()
        return self.inner.embed_query(text)


@pytest.fixture
def failing(minilm) -> Failing:
    return Failing(minilm)


@pytest.fixture
def path(tmp_path, failing):
    """A memory file with the user's old city, much talk that repeats it, and the change in words the question does
    not share (``test_current_value_on_store``'s history)."""
    with AgentMemory.open(tmp_path / "memory.db", embedder=failing) as m:
        _history(m, NEW)
    return tmp_path / "memory.db"


@pytest.fixture
def memory(path, failing):
    """The file opened anew: nothing the stage embeds is in this memory's cache yet (as in a new process)."""
    m = AgentMemory.open(path, embedder=failing)
    yield m
    m.close()


def _shown(hits) -> set[str]:
    return {r.text for h in hits for r in (h.record, *h.context)}


def test_the_stage_adds_the_change_when_the_model_works(memory):
    assert NEW in _shown(memory.recall(QUESTION, "ana").hits)  # what the tests below see taken away
    assert NEW not in _shown(memory.recall(QUESTION, "ana", recipe=OFF).hits)


def test_the_recipes_memories_stay_when_the_stages_model_calls_fail(memory, failing, caplog, path):
    failing.failing, failing.spared, failing.where = True, QUESTION, str(path)
    with caplog.at_level(logging.WARNING, logger="cbmemory.retrieval"):
        failed = memory.recall(QUESTION, "ana")
    assert failing.calls_failed > 0  # the stage did call the model, and the call failed
    assert failed.fault is None and failed.hits  # the recall did not fail open: it has its memories
    off = memory.recall(QUESTION, "ana", recipe=OFF)
    assert [h.record.record_id for h in failed.hits] == [h.record.record_id for h in off.hits]
    assert _shown(failed.hits) == _shown(off.hits)  # exactly the recipe's memories, the stage's left out
    assert OLD in _shown(failed.hits) and NEW not in _shown(failed.hits)
    [warning] = [r for r in caplog.records if r.name == "cbmemory.retrieval"]
    assert warning.levelno == logging.WARNING and "ConnectionError" in warning.getMessage()
    assert "rate limited" not in warning.getMessage() and str(path) not in warning.getMessage()  # only its type


def test_search_gives_the_recipes_hits_when_the_stages_model_calls_fail(memory, failing):
    failing.failing, failing.spared = True, QUESTION
    hits = memory.search(QUESTION, "ana")
    assert failing.calls_failed > 0
    off = memory.search(QUESTION, "ana", recipe=OFF)
    assert [h.record.record_id for h in hits] == [h.record.record_id for h in off]
    assert _shown(hits) == _shown(off)


def test_context_gives_the_recipes_memories_when_the_stages_model_calls_fail(memory, failing):
    failing.failing, failing.spared = True, QUESTION
    got = memory.context(QUESTION, "ana")
    assert failing.calls_failed > 0 and OLD in got.text and "Porto" not in got.text
    assert got.text == memory.context(QUESTION, "ana", recipe=OFF).text


def test_malformed_vectors_from_the_stages_model_calls_leave_the_recipes_memories(memory, failing, caplog):
    failing.malformed = True  # the stage's statements and clauses come back as NaNs (its descriptions are queries)
    with caplog.at_level(logging.WARNING, logger="cbmemory.retrieval"):
        got = memory.recall(QUESTION, "ana")
    off = memory.recall(QUESTION, "ana", recipe=OFF)
    assert got.fault is None and _shown(got.hits) == _shown(off.hits) and NEW not in _shown(got.hits)
    assert any("InvalidVectorError" in r.getMessage() for r in caplog.records if r.name == "cbmemory.retrieval")


def test_a_fault_of_the_stages_own_is_raised(memory, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the stage")

    monkeypatch.setattr(current_value, "named_anew", broken)
    with pytest.raises(RuntimeError, match="a bug in the stage"):
        memory.search(QUESTION, "ana")
