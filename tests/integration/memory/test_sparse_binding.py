"""Integration layer: a store's sparse-encoder binding seen by the memories that share it, over a real SQLite
file, the real offline MiniLM embedder and the real SPLADE-tiny encoder. Two ``AgentMemory`` objects on one
file stand for two processes (the SQLite store reads the binding from the file on every write; a test with
real processes is in tests/reliability/test_sparse_binding_processes.py).

Issue 22: a writer opened before another process bound the encoder writes the vectors itself (break 2), and
a read-only sparse search of a store whose backfill was interrupted is refused at once, naming the fix, for
the users it would answer from part of their records only (break 8)."""

from __future__ import annotations

import pytest

from cbmemory import AgentMemory, EmbedderMismatchError, ReadOnlyStoreError
from cbmemory.embedding.splade import encoder_named
from cbmemory.errors import InvalidInputError
from cbmemory.recipes import RECIPES, Recipe
from cbmemory.retrieval import RetrievalConfig
from cbmemory.store import SQLiteStore

ENCODER = RECIPES["default_sparse"].ingest.sparse
TURNS = [
    {"role": "user", "speaker": "Caroline", "content": "I went to the LGBTQ support group yesterday."},
    {"role": "assistant", "speaker": "Melanie", "content": "That sounds powerful! How did it feel?"},
]
CAR = {"role": "user", "speaker": "Melanie", "content": "I bought a new car last week, a red Toyota."}
PUPPY = {"role": "user", "speaker": "Caroline", "content": "I also adopted a puppy named Biscuit."}
# the sparse list alone: what it finds, it finds through the records' sparse vectors
SPARSE_ONLY = Recipe("sparse_only", ingest=RECIPES["default_sparse"].ingest,
                     retrieval=RetrievalConfig(signals=("sparse",), k=4))


def texts(hits):
    return [h.record.text for h in hits]


@pytest.fixture
def path(tmp_path):
    return tmp_path / "shared.db"


# ------------------------------------------------------------------ break 2: a binding made by another writer
@pytest.mark.heavy
def test_a_writer_opened_before_another_bound_the_sparse_encoder_writes_the_vectors_itself(path, minilm):
    with AgentMemory.open(path, embedder=minilm) as a:  # the default recipe: no sparse encoder at open
        a.add_session("alice", "s1", TURNS, date="2023-05-08")
        assert a.sparse_encoder is None
        with AgentMemory.open(path, embedder=minilm, recipe="default_sparse") as b:
            b.search("support group", "alice")  # binds SPLADE to the store and gives alice's records theirs
            assert b.store.bound_sparse_encoder == ENCODER and b.store.users_missing_sparse() == []

            a.add_messages("alice", "s1", [CAR])  # A's input is valid: written, with its vector
            a.add_session("alice", "s2", [PUPPY], date="2023-05-09")
            assert a.sparse_encoder is not None and a.sparse_encoder.name == ENCODER
            assert a.store.records_without_sparse("alice") == [] and a.store.count("alice") == 4

            assert texts(b.search("Which vehicle did Melanie purchase?", "alice", recipe=SPARSE_ONLY))[0] == CAR["content"]
            assert PUPPY["content"] in texts(b.search("pet dog", "alice", recipe=SPARSE_ONLY))
        a.add_messages("alice", "s1", [{"role": "assistant", "content": "Congratulations on the Toyota!"}])
        assert a.store.records_without_sparse("alice") == []


def test_a_binding_made_between_a_writers_check_and_its_transaction_is_caught_in_the_transaction(
        path, minilm, monkeypatch):
    """The race: B binds after A's store checked the binding (and found none) but before A's transaction.
    The interleaving is forced by running B's bind right after A's check."""
    with AgentMemory.open(path, embedder=minilm) as a, SQLiteStore(path) as b:
        a.add_session("alice", "s1", TURNS, date="2023-05-08")
        check = a.store._checked_sparse

        def check_then_bind(records, sparse):
            checked = check(records, sparse)
            b.bind_sparse_encoder(ENCODER)  # another process binds: A's write is already past its check
            return checked

        monkeypatch.setattr(a.store, "_checked_sparse", check_then_bind)
        a.add_session("alice", "s2", [CAR], date="2023-05-09")
        # the write that lost the race was refused whole inside its transaction, then written again with vectors
        (car,) = a.session_records("alice", "s2")
        assert car.record_id not in {r.record_id for r in b.records_without_sparse("alice")}
        assert a.sparse_encoder is not None and a.sparse_encoder.name == ENCODER
        # and, as a writer opened after the binding does, A gave the records written before theirs
        assert b.users_missing_sparse() == [] and b.count("alice") == 3


def test_a_memory_opened_before_another_bound_the_sparse_encoder_can_search_with_it(path, minilm):
    with AgentMemory.open(path, embedder=minilm) as a, \
            AgentMemory.open(path, embedder=minilm, read_only=True) as ro:  # both opened before the binding
        a.add_session("alice", "s1", [*TURNS, CAR], date="2023-05-08")
        with pytest.raises(InvalidInputError, match="this memory does not write"):  # none bound yet
            a.search("Which vehicle did Melanie purchase?", "alice", recipe=SPARSE_ONLY)
        with AgentMemory.open(path, embedder=minilm, recipe="default_sparse") as b:
            b.search("support group", "alice")  # binds and fills
        for mem in (a, ro):  # as if opened after the binding
            assert texts(mem.search("Which vehicle did Melanie purchase?", "alice", recipe=SPARSE_ONLY))[0] == CAR["content"]
            assert mem.sparse_encoder is not None and mem.sparse_encoder.name == ENCODER


def test_another_writers_binding_of_an_encoder_that_is_not_bundled_names_the_fix(path, minilm):
    with AgentMemory.open(path, embedder=minilm) as a, SQLiteStore(path) as b:
        a.add_session("alice", "s1", TURNS, date="2023-05-08")
        b.bind_sparse_encoder("my-own-encoder")
        with pytest.raises(EmbedderMismatchError, match="sparse_encoder=") as err:
            a.add_session("alice", "s2", [CAR], date="2023-05-09")
        assert "my-own-encoder" in str(err.value) and not isinstance(err.value, InvalidInputError)
        assert a.store.count("alice") == 2  # nothing written


# ------------------------------------------------------------------ break 8: an interrupted backfill, read-only
def interrupted_backfill(path, minilm) -> None:
    """Alice's and bob's records written without sparse vectors, the encoder bound, then only alice's filled:
    what a backfill killed between the two users leaves."""
    with AgentMemory.open(path, embedder=minilm) as mem:
        mem.add_session("alice", "s1", [*TURNS, CAR], date="2023-05-08")
        mem.add_session("bob", "s1", [PUPPY, CAR], date="2023-05-08")
    with SQLiteStore(path) as store:
        store.bind_sparse_encoder(ENCODER)
        recs = store.records_without_sparse("alice")
        vectors = encoder_named(ENCODER).encode_documents([r.index_text for r in recs])
        assert store.set_sparse("alice", {r.record_id: v for r, v in zip(recs, vectors, strict=True)}) == 3
        assert store.users_missing_sparse() == ["bob"]


def test_a_read_only_sparse_search_after_an_interrupted_backfill_encodes_nothing(path, minilm, monkeypatch):
    interrupted_backfill(path, minilm)
    question = "Which vehicle did Melanie purchase?"
    with AgentMemory.open(path, embedder=minilm, read_only=True, recipe="default_sparse") as ro:
        encoded: list[str] = []  # every text the encoder is given (a query is one too)
        encode, encode_query = ro.sparse_encoder.encode_documents, ro.sparse_encoder.encode_query
        monkeypatch.setattr(ro.sparse_encoder, "encode_documents", lambda ts: encoded.extend(ts) or encode(ts))
        monkeypatch.setattr(ro.sparse_encoder, "encode_query",  # over alice's word pieces: not through the above
                            lambda t, terms=None: encoded.append(t) or encode_query(t, terms=terms))
        # alice's vectors are complete: answered, through them too, encoding her question only (no record)
        assert texts(ro.search(question, "alice", recipe=SPARSE_ONLY))[0] == CAR["content"]
        assert ro.search(question, "alice")[0].recipe == "default_sparse"
        assert encoded == [question, question]
        encoded.clear()
        for _ in range(2):  # bob's are not: refused at once (nothing encoded), every time, with the fix named
            with pytest.raises(InvalidInputError, match="open it once writable with recipe='default_sparse'") as err:
                ro.search(question, "bob")
            assert not isinstance(err.value, ReadOnlyStoreError)
        with pytest.raises(InvalidInputError, match="open it once writable"):
            ro.context("puppy", "bob")
        assert encoded == []
        assert ro.search("anything", "carol") == []  # a user with no records: nothing to leave out
    with SQLiteStore(path, read_only=True) as store:
        assert store.users_missing_sparse() == ["bob"]  # nothing was written


def test_the_named_fix_for_an_interrupted_backfill_works(path, minilm):
    interrupted_backfill(path, minilm)
    with AgentMemory.open(path, embedder=minilm, recipe="default_sparse") as mem:  # writable: finishes the fill
        mem.search("car", "alice")
        assert mem.store.users_missing_sparse() == []
    with AgentMemory.open(path, embedder=minilm, read_only=True, recipe="default_sparse") as ro:
        assert texts(ro.search("Which vehicle did Melanie purchase?", "bob", recipe=SPARSE_ONLY))[0] == CAR["content"]


def test_a_read_only_memory_without_the_sparse_recipe_still_searches_an_interrupted_store(path, minilm):
    interrupted_backfill(path, minilm)
    with AgentMemory.open(path, embedder=minilm, read_only=True) as ro:  # default recipe: no sparse signal
        assert CAR["content"] in texts(ro.search("Which vehicle did Melanie purchase?", "bob"))
