"""Integration layer: the sparse signal end to end: AgentMemory over a real SQLite file, the real offline
MiniLM embedder and the real SPLADE-tiny encoder (its shipped weights). Which records carry sparse vectors,
what a search finds through them alone, and the errors when a memory and its store disagree."""

from __future__ import annotations

import pytest

from cbmemory import AgentMemory, EmbedderMismatchError
from cbmemory.embedding.splade import SpladeEncoder
from cbmemory.errors import InvalidInputError
from cbmemory.ingest import IngestConfig
from cbmemory.recipes import RECIPES, Recipe
from cbmemory.retrieval import RetrievalConfig
from cbmemory.store.signals import Signal

TURNS = [
    {"role": "user", "speaker": "Caroline", "content": "I went to the LGBTQ support group yesterday."},
    {"role": "assistant", "speaker": "Melanie", "content": "That sounds powerful! How did it feel?"},
    {"role": "user", "speaker": "Caroline", "content": "Amazing. I also adopted a puppy named Biscuit."},
    {"role": "assistant", "speaker": "Melanie", "content": "I bought a new car last week, a red Toyota."},
]
# the sparse list alone, so what it finds is what the learned expansion finds ("vehicle" -> car)
SPARSE_ONLY = Recipe("sparse_only", ingest=RECIPES["default_sparse"].ingest,
                     retrieval=RetrievalConfig(signals=("sparse",), k=4))


@pytest.fixture
def sparse_memory(tmp_path, minilm):
    mem = AgentMemory.open(tmp_path / "sparse.db", embedder=minilm, recipe="default_sparse")
    yield mem
    mem.close()


def texts(hits):
    return [h.record.text for h in hits]


def test_a_sparse_recipe_memory_writes_and_searches_learned_sparse_vectors(sparse_memory):
    assert sparse_memory.sparse_encoder.name == "splade-tiny-f16-top128"
    sparse_memory.add_session("alice", "s1", TURNS, date="2023-05-08")
    assert sparse_memory.store.bound_sparse_encoder == "splade-tiny-f16-top128"
    # no word of the question is in the answer: SPLADE's expansion of "vehicle" / "purchase" finds it
    hits = sparse_memory.search("Which vehicle did Melanie purchase?", "alice", recipe=SPARSE_ONLY)
    assert texts(hits)[0] == "I bought a new car last week, a red Toyota." and hits[0].ranks == {"sparse": 1}
    # records scoring 0 are no hits: only the puppy turn and the turn indexed with it (the one answering it)
    pet = sparse_memory.search("pet", "alice", recipe=SPARSE_ONLY)
    assert set(texts(pet)) == {TURNS[2]["content"], TURNS[3]["content"]}
    fused = sparse_memory.search("Which vehicle did Melanie purchase?", "alice")
    assert fused[0].recipe == "default_sparse" and "sparse" in fused[0].ranks


def test_a_reopened_store_keeps_writing_sparse_vectors_with_any_recipe(tmp_path, minilm):
    path = tmp_path / "reopen.db"
    with AgentMemory.open(path, embedder=minilm, recipe="default_sparse") as mem:
        mem.add_session("alice", "s1", TURNS[:2], date="2023-05-08")
    with AgentMemory.open(path, embedder=minilm) as mem:  # the default recipe: the store names the encoder
        assert mem.sparse_encoder is not None and mem.sparse_encoder.name == "splade-tiny-f16-top128"
        mem.add_session("alice", "s2", TURNS[2:], date="2023-05-09")
        hits = mem.search("Which vehicle did Melanie purchase?", "alice", recipe=SPARSE_ONLY)
        assert texts(hits)[0] == "I bought a new car last week, a red Toyota."


def test_searching_sparse_vectors_a_memory_does_not_write_is_refused(memory):
    memory.add_session("alice", "s1", TURNS, date="2023-05-08")
    with pytest.raises(InvalidInputError, match="open it with recipe='default_sparse'"):
        memory.search("car", "alice", recipe="default_sparse")


def test_a_sparse_memory_gives_an_existing_stores_records_their_vectors_once(tmp_path, minilm):
    path = tmp_path / "old.db"
    with AgentMemory.open(path, embedder=minilm) as mem:  # written without sparse vectors
        mem.add_session("alice", "s1", TURNS, date="2023-05-08")
        mem.add_session("bob", "s1", TURNS[:2], date="2023-05-08")
    with AgentMemory.open(path, embedder=minilm, recipe="default_sparse", read_only=True) as mem:
        with pytest.raises(InvalidInputError, match="read-only"):  # cannot add them: refused, not half-found
            mem.search("Which vehicle did Melanie purchase?", "alice", recipe=SPARSE_ONLY)
    with AgentMemory.open(path, embedder=minilm, recipe="default_sparse") as mem:
        hits = mem.search("Which vehicle did Melanie purchase?", "alice", recipe=SPARSE_ONLY)
        assert texts(hits)[0] == "I bought a new car last week, a red Toyota."  # written before: found now
        assert mem.store.users_missing_sparse() == [] and mem.store.records_without_sparse("bob") == []
        assert mem.store.bound_sparse_encoder == "splade-tiny-f16-top128" and mem.store.count() == 6


def test_another_sparse_encoder_than_the_stores_is_refused(tmp_path, minilm):
    path = tmp_path / "enc.db"
    with AgentMemory.open(path, embedder=minilm, recipe="default_sparse") as mem:
        mem.add_session("alice", "s1", TURNS, date="2023-05-08")
    with pytest.raises(EmbedderMismatchError):
        AgentMemory.open(path, embedder=minilm, sparse_encoder=SpladeEncoder(max_terms=64))
    with pytest.raises(InvalidInputError, match="no bundled sparse encoder"):
        AgentMemory.open(tmp_path / "other.db", embedder=minilm,
                         ingest=IngestConfig(sparse="my-encoder"))


def test_another_users_sparse_match_is_never_returned(sparse_memory):
    sparse_memory.add_session("bob", "s1", TURNS[3:], date="2023-05-08")
    sparse_memory.add_session("alice", "s1", TURNS[:1], date="2023-05-08")
    hits = sparse_memory.search("Which vehicle did Melanie purchase?", "alice", recipe=SPARSE_ONLY)
    assert {h.record.user_id for h in hits} <= {"alice"}
    assert "I bought a new car last week, a red Toyota." not in texts(hits)


def test_the_ingest_told_from_stored_records_names_the_stores_sparse_encoder(tmp_path, minilm):
    from cbmemory.stored_ingest import records_ingest

    sparse_ingest, plain_ingest = RECIPES["default_sparse"].ingest, RECIPES["default"].ingest
    with AgentMemory.open(tmp_path / "plain.db", embedder=minilm) as plain:
        plain.add_session("alice", "s1", TURNS, date="2023-05-08")
        # the same index texts, but no sparse vector in the store: the records were not made the sparse way
        assert records_ingest(plain.store, "alice", sparse_ingest) == plain_ingest
    with AgentMemory.open(tmp_path / "sparse.db", embedder=minilm, recipe="default_sparse") as sparse:
        sparse.add_session("alice", "s1", TURNS, date="2023-05-08")
        assert records_ingest(sparse.store, "alice", plain_ingest) == sparse_ingest


def test_a_search_encodes_its_query_over_the_users_word_pieces_only(sparse_memory):
    """``AgentMemory.search`` encodes the query over the word pieces of the user's sparse vectors (read from
    the store when the query is encoded, so a write just before counts), never another user's; the scores
    are those of the query encoded over all 30,522 pieces."""
    sparse_memory.add_session("alice", "s1", TURNS, date="2023-05-08")
    sparse_memory.add_session("bob", "s1", [{"role": "user", "content": "Quantum chromodynamics on Tuesday."}],
                              date="2023-05-08")
    enc, store = sparse_memory.sparse_encoder, sparse_memory.store
    full_encode, seen = enc.encode_query, []

    def spy(text, terms=None):
        seen.append(terms)
        return full_encode(text, terms=terms)

    enc.encode_query = spy  # the instance's method, watched
    question = "Which vehicle did Melanie purchase?"
    hits = sparse_memory.search(question, "alice", recipe=SPARSE_ONLY)
    (terms,) = seen
    assert terms.tolist() == store.sparse_terms("alice").tolist() and 0 < terms.size < 30522
    assert set(store.sparse_terms("bob").tolist()) - set(terms.tolist())  # bob's own pieces: not computed
    want = store.search(Signal.SPARSE, "alice", full_encode(question), 4)
    assert [h.record.record_id for h in hits] == [h.record.record_id for h in want]
    assert [h.signals["sparse"] for h in hits] == pytest.approx([h.score for h in want], rel=1e-5)
    sparse_memory.add_session("alice", "s2", [{"role": "user", "content": "Quantum chromodynamics on Tuesday."}],
                              date="2023-05-09")
    sparse_memory.search("physics lecture", "alice", recipe=SPARSE_ONLY)
    assert set(store.sparse_terms("bob").tolist()) <= set(seen[-1].tolist())  # alice now holds them too
