"""Integration layer: the neighbour and session terms (``default``) on a real SQLite file with the real
offline embedder. The scores are the fused candidates' own plus the terms recomputed here from the store's
records (adjacent turns by session and position); the first k are the same whatever k; a turn that matches
no query word joins through its neighbour; a store's other kinds and other users never do."""

from datetime import datetime, timezone

import pytest

from cbmemory import AgentMemory
from cbmemory.recipes import all_recipes
from cbmemory.retrieval.fusion import weighted
from cbmemory.store.signals import Signal

V2 = all_recipes()["default_v2"]  # the context terms without skip_shown: the first k as ranked
SESSIONS = {
    "s1": ("2023-03-04", ["Guess what arrived at my door this morning?", "Tell me, I am curious!",
                          "My new telescope finally came, I set it up on the balcony.",
                          "How exciting. What did you point it at first?",
                          "Saturn. Those rings looked unreal.", "Send me a photo next time."]),
    "s2": ("2023-04-15", ["I went hiking with my sister near the lake.", "Was the weather good?",
                          "Sunny the whole day, we saw a heron.", "Lovely, herons are so patient."]),
    "s3": ("2023-05-06", ["The telescope club meets on Fridays now.", "Will you join them?",
                          "Yes, they observe from the hill outside town.", "Bring warm clothes, it gets cold."]),
}
NOW = datetime(2023, 6, 1, tzinfo=timezone.utc)


@pytest.fixture
def memory(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "v2.db", embedder=minilm, recipe="default", clock=lambda: NOW)
    for sid, (date, texts) in SESSIONS.items():
        msgs = [{"role": "user" if i % 2 == 0 else "assistant", "content": t, "turn_id": f"{sid}:{i}"}
                for i, t in enumerate(texts)]
        m.add_session("u", sid, msgs, date=date)
    # another user's turns next to nothing: they must never show up
    m.add_session("other", "s1", [{"role": "user", "content": "My telescope broke.", "turn_id": "o:0"}],
                  date="2023-03-04")
    yield m
    m.close()


QUERIES = ["What did she buy and set up on the balcony?", "Which planet did she look at with the telescope?",
           "Where does the telescope club observe?", "What bird did they see while hiking?"]


def expected(memory, query, k, pool):
    """The terms recomputed from the store's own lists (each signal fetches max(k, pool)), fused, and the
    store's records."""
    n = max(k, pool)
    fused = weighted({"vector": memory.store.search(Signal.VECTOR, "u", memory.embedder.embed_query(query), n),
                      "bm25": memory.store.search(Signal.BM25, "u", query, n)})
    score = {h.record.record_id: h.score for h in fused}
    rank = {h.record.record_id: min(h.ranks.values()) for h in fused}
    records = {r.record_id: r for r in memory.store.list_records("u")}
    at = {(r.session_id, r.position): r.record_id for r in records.values()}
    best = max(score.values())
    session: dict[str, float] = {}
    for rid, s in score.items():
        sid = records[rid].session_id
        session[sid] = max(session.get(sid, s), s)
    out = {}
    for rid, r in records.items():
        sides = [score.get(at.get((r.session_id, r.position + d)), 0.0) for d in (-1, 1)]
        near = any(at.get((r.session_id, r.position + d)) in score for d in (-1, 1))
        if rid not in score and not near:
            continue
        out[rid] = score.get(rid, 0.0) + 0.5 * max(sides) + 0.5 * session.get(r.session_id, 0.0) / best
    order = sorted(out, key=lambda rid: (-out[rid], rank.get(rid, 10**9), rid))
    return [(rid, out[rid]) for rid in order[:k]]


# pool 100: every turn is a candidate; k = pool = 3: a few are, and their neighbours join
@pytest.mark.parametrize(("pool", "k"), [(100, 10), (3, 3)])
@pytest.mark.parametrize("query", QUERIES)
def test_scores_are_the_candidates_plus_the_recomputed_terms(memory, query, pool, k):
    hits = memory.search(query, "u", k=k, recipe=V2.with_(vector_pool=pool, text_pool=pool))
    want = expected(memory, query, k, pool)
    assert [h.record.record_id for h in hits] == [rid for rid, _ in want]
    assert [h.score for h in hits] == pytest.approx([s for _, s in want])
    assert all(h.record.user_id == "u" and h.record.kind == "turn" for h in hits)


@pytest.mark.parametrize("query", QUERIES)
def test_the_first_k_do_not_depend_on_k(memory, query):
    deep = [h.record.record_id for h in memory.search(query, "u", k=14, recipe=V2)]
    assert len(deep) == 14  # every turn of the user: the candidates and their neighbours
    for k in (1, 3, 5):
        assert [h.record.record_id for h in memory.search(query, "u", k=k, recipe=V2)] == deep[:k]


def test_a_turn_no_signal_found_joins_through_its_neighbour(memory):
    query = "What did she point the new telescope at first?"
    few = V2.with_(name="few_candidates", vector_pool=2, text_pool=2, neighbour_weight=2.0)
    hits = memory.search(query, "u", k=6, recipe=few)
    joined = [h for h in hits if not h.ranks]  # found by no signal list
    assert joined and all(h.signals["neighbour"] > 0 for h in joined)
    found = {(h.record.session_id, h.record.position) for h in hits if h.ranks}
    for h in joined:
        r = h.record
        assert (r.session_id, r.position - 1) in found or (r.session_id, r.position + 1) in found
    assert all(h.record.user_id == "u" for h in hits)
