"""Integration layer (issue 29, item 4): needle at depth. A fact at 10 %, 50 % and 90 % of messages of 2k,
10k and 50k characters (realistic filler, ``tests/support/needles.py``; each length hides the three facts, one per
depth), each in a memory with twelve other sessions (four on the facts' topics): each fact is found (its message is a hit, through its
passage) and shown in what the model reads on every model path (the agent seam's recall, ``context`` as the
evaluation's reader renders it, the LangChain and LlamaIndex adapters' conversions of recall's hits, and a
LlamaIndex agent's memory block). Real SQLite file, the real MiniLM embedder, the default recipe. Before
passages, a fact past a message's first 2,000 characters was never shown (the experiment
``experiments/long_memories/needle_at_depth.py``, 20 other sessions: 17 of 27 found, 9 of 27 shown)."""

from __future__ import annotations

import pytest

from cbmemory import AgentMemory
from tests.support.needles import (
    DEPTHS,
    LENGTHS,
    LONG_SESSION_DATE,
    NEEDLES,
    OTHER_SESSIONS,
    background,
    long_session,
    with_needle,
)

pytest.importorskip("llama_index.core", reason="the LlamaIndex adapter needs the 'llamaindex' extra")
pytest.importorskip("langchain_core", reason="the LangChain adapter needs the 'langchain' extra")

from langchain_cbmemory._convert import hit_metadata  # noqa: E402
from llamaindex_cbmemory.convert import hits_to_nodes, memory_text  # noqa: E402


def cell_user(length: int, depth: float) -> str:
    return f"u{length}-{int(depth * 100)}"


def cell_needle(depth: float) -> int:
    """The fact hidden at ``depth``: each length hides all three, one per depth."""
    return DEPTHS.index(depth)


@pytest.fixture(scope="module")
def needles(tmp_path_factory, minilm):
    memory = AgentMemory.open(tmp_path_factory.mktemp("needles") / "memory.db", embedder=minilm)
    for n in LENGTHS:
        for d in DEPTHS:
            user, i = cell_user(n, d), cell_needle(d)
            for sid, date, turns in (*background(8), *OTHER_SESSIONS):
                memory.add_session(user, sid, [{"role": "user", "content": t} for t in turns], date=date)
            memory.add_session(user, long_session(i), [{"role": "user", "content": with_needle(n, d, NEEDLES[i], i)}],
                               date=LONG_SESSION_DATE)
    yield memory
    memory.close()


@pytest.mark.heavy
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("depth", DEPTHS)
def test_a_fact_deep_in_a_long_message_is_found_and_shown_on_every_path(needles, length, depth):
    memory, i = needles, cell_needle(depth)
    needle, user = NEEDLES[i], cell_user(length, depth)
    hits = memory.search(needle.question, user)
    assert any(h.record.session_id == long_session(i) for h in hits)
    found = memory.recall(needle.question, user)
    shown = memory.recipe.context
    paths = {
        "recall": found.text,
        "context": memory.context(needle.question, user).text,
        "langchain": "\n".join(hit_metadata(h, shown)["memory"] for h in found.hits),
        "llamaindex nodes": "\n".join(n.node.get_content(metadata_mode="llm")
                                      for n in hits_to_nodes(list(found.hits), shown)),
        "llamaindex block": memory_text(list(found.hits), None, shown),
    }
    assert {path: needle.answer in text for path, text in paths.items()} == dict.fromkeys(paths, True)
    assert found.context.tokens <= memory.recipe.context.token_budget


@pytest.mark.heavy
def test_the_message_stays_whole_and_verbatim_and_its_passages_go_with_it(memory):
    text = with_needle(10_000, 0.5, NEEDLES[0])
    memory.add_session("ana", "s1", [{"role": "user", "content": text, "turn_id": "t1"}], date=LONG_SESSION_DATE)
    assert [r.text for r in memory.session_records("ana", "s1")] == [text]
    passages = memory.session_records("ana", "s1", kinds=("passage",))
    assert len(passages) >= 10 and all(p.text in text and p.turn_id == "t1" for p in passages)
    memory.add_session("ana", "s1", [{"role": "user", "content": "short now", "turn_id": "t1"}], date=LONG_SESSION_DATE)
    assert memory.session_records("ana", "s1", kinds=None) == memory.session_records("ana", "s1")  # passages gone
    memory.add_messages("ana", "s2", [{"role": "user", "content": text}])  # the agent seam's append
    stored = memory.session_records("ana", "s2", kinds=None)
    assert len(stored) > 10 and {r.kind for r in stored} == {"turn", "passage"}
    assert memory.forget("ana").records == len(stored) + 1  # erased with their message (and s1's turn)
