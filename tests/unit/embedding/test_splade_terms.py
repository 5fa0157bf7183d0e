"""Unit layer (embedding, SPLADE's output layer over some word pieces only): the tiny random BERT of
test_splade_model.py computed over a subset of its vocabulary gives the full vector less the other pieces;
the encoder's ``encode_query(text, terms)`` checks the terms, computes nothing for none, keeps its slices of
the output layer in a bounded cache and, with ``max_terms``, cuts after restricting; ``memory.sparse``'s
``query_encoder`` passes the store's terms to the bundled encoder only. No model file, no tokenizer file."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from cbmemory.embedding import splade
from cbmemory.embedding.sparse import SparseVector
from cbmemory.embedding.splade import SpladeEncoder, SpladeModel
from cbmemory.errors import InvalidInputError
from cbmemory.memory.sparse import query_encoder
from tests.unit.embedding.test_splade_model import SEQS, tiny_tensors

VOCAB = 40


@pytest.fixture(scope="module")
def model() -> SpladeModel:
    return SpladeModel(tiny_tensors(vocab=VOCAB, hidden=16, inter=24, positions=32, layers=2, seed=3), heads=4)


class FakeTokenizer:
    """Maps a text to a fixed token sequence (``SEQS``), counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, text: str) -> SimpleNamespace:
        self.calls += 1
        return SimpleNamespace(ids=SEQS[int(text)])

    def encode_batch(self, texts: list[str]) -> list[SimpleNamespace]:
        return [self.encode(t) for t in texts]


def encoder(model: SpladeModel, max_terms: int | None = None) -> tuple[SpladeEncoder, FakeTokenizer]:
    enc = SpladeEncoder(max_terms=max_terms, weights="/nowhere/at/all.safetensors")
    tok = FakeTokenizer()
    enc._loaded = (model, tok)  # type: ignore[assignment]  # the tiny model in place of the file
    return enc, tok


def masked(v: SparseVector, terms: np.ndarray) -> SparseVector:
    keep = np.isin(v.ids, terms)
    return SparseVector(v.ids[keep], v.weights[keep])


def same(a: SparseVector, b: SparseVector) -> bool:
    """The same terms and, to float32 rounding, weights (products over fewer rows of the output layer, or by
    ``np.einsum`` instead of BLAS, round their last bits otherwise)."""
    return a.ids.tolist() == b.ids.tolist() and bool(np.allclose(a.weights, b.weights, rtol=1e-5, atol=1e-5))


TERM_SETS = [np.array([0, 3, 5, 9, 17, 30, 39]), np.arange(0, VOCAB, 2), np.arange(VOCAB), np.array([7])]


@pytest.mark.parametrize("terms", TERM_SETS, ids=["some", "even", "all", "one"])
def test_the_model_over_some_pieces_gives_the_full_vectors_less_the_others(model, terms):
    rows = model.output_rows(terms.astype(np.int32))
    restricted = model.encode_ids(SEQS, rows=rows)
    for full, got in zip(model.encode_ids(SEQS), restricted, strict=True):
        assert same(got, masked(full, terms))
    logits = model.max_logits(SEQS, rows)
    assert logits.shape == (len(SEQS), terms.size)
    assert np.allclose(logits, model.max_logits(SEQS)[:, terms], atol=1e-5)


def test_encode_query_over_terms_is_the_full_query_masked(model):
    enc, _ = encoder(model)
    for i in range(len(SEQS)):
        full = enc.encode_query(str(i))
        assert len(full) > 0
        for terms in TERM_SETS:
            assert same(enc.encode_query(str(i), terms=terms), masked(full, terms))
        # any integer sequence, in any order, repeated: the same
        assert enc.encode_query(str(i), terms=[39, 3, 3, 0, 17]) == enc.encode_query(str(i), terms=[0, 3, 17, 39])


def test_max_terms_is_applied_after_the_restriction(model):
    """With more positive terms than ``max_terms``, the restricted top may keep a term the full top cuts:
    the largest weights among the given terms, never a term outside them."""
    enc, _ = encoder(model)
    full = enc.encode_query("2")
    assert len(full) > 4
    top = full.top(4)
    outside = np.setdiff1d(full.ids, top.ids[:2])  # leave out two of the full top four
    cut, _ = encoder(model, max_terms=4)
    got = cut.encode_query("2", terms=outside)
    assert same(got, masked(full, outside).top(4))
    assert set(got.ids.tolist()) <= set(outside.tolist())
    assert len(got) == 4 and len(masked(cut.encode_query("2"), outside)) == 2  # the full top four less two
    # with no more positive terms than max_terms, restricting and cutting commute
    few = np.sort(top.ids)
    assert same(cut.encode_query("2", terms=few), masked(cut.encode_query("2"), few))


def test_no_terms_computes_nothing(model):
    enc, tok = encoder(model)
    got = enc.encode_query("1", terms=np.zeros(0, np.int32))
    assert len(got) == 0 and tok.calls == 0
    assert len(enc.encode_query("1", terms=[])) == 0


@pytest.mark.parametrize("bad", [np.array([[1, 2]]), np.array([1.0, 2.0]), [1, VOCAB], [-1, 3],
                                 np.array([True, False]), ["a"]], ids=["2-D", "floats", "past the vocabulary",
                                                                       "negative", "bools", "strings"])
def test_bad_terms_are_refused(model, bad):
    enc, _ = encoder(model)
    with pytest.raises(InvalidInputError):
        enc.encode_query("1", terms=bad)


def test_output_rows_are_cached_per_term_set_within_a_bound(model, monkeypatch):
    monkeypatch.setattr(splade, "_CACHED_ROWS", 25)
    enc, _ = encoder(model)
    a, b = np.arange(0, 20, dtype=np.int32), np.arange(20, 30, dtype=np.int32)
    first = enc._output_rows(model, a)
    assert enc._output_rows(model, a.copy()) is first  # the same terms: the same slice
    enc._output_rows(model, b)
    assert list(enc._rows) == [b.tobytes()]  # 20 + 10 rows exceed 25: the oldest went
    assert enc._output_rows(model, a) is not first
    big = np.arange(VOCAB, dtype=np.int32)
    enc._output_rows(model, big)
    assert list(enc._rows) == [big.tobytes()]  # one slice over the bound is still kept (the newest)


class FakeStore:
    def __init__(self, terms: np.ndarray | None) -> None:
        self.terms, self.asked = terms, []

    def sparse_terms(self, user_id: str) -> np.ndarray | None:
        self.asked.append(user_id)
        return self.terms


def test_query_encoder_restricts_the_bundled_encoder_to_the_users_terms(model):
    enc, _ = encoder(model)
    store = FakeStore(np.array([0, 3, 5, 9, 17, 30, 39], np.int32))
    encode = query_encoder(store, "u1", enc)  # type: ignore[arg-type]
    assert encode is not None and store.asked == []  # the terms are read when a query is encoded
    assert same(encode("0"), masked(enc.encode_query("0"), store.terms))
    assert store.asked == ["u1"]
    everything = query_encoder(FakeStore(None), "u1", enc)  # type: ignore[arg-type]
    assert everything is not None and everything("0") == enc.encode_query("0")


def test_query_encoder_leaves_another_encoder_as_it_is():
    class Other:
        name = "other"

        def encode_documents(self, texts):
            return [SparseVector(np.array([1]), np.array([1.0]))] * len(texts)

        def encode_query(self, text):
            return SparseVector(np.array([1]), np.array([1.0]))

    other = Other()
    store = FakeStore(np.array([5], np.int32))
    assert query_encoder(store, "u1", other) == other.encode_query  # type: ignore[arg-type]
    assert query_encoder(store, "u1", None) is None  # type: ignore[arg-type]
    assert store.asked == []


def test_the_forward_pass_without_blas_is_the_same(model):
    terms = np.arange(0, VOCAB, 3, dtype=np.int32)
    for rows in (None, model.output_rows(terms)):
        with_blas, without = model.encode_ids(SEQS, rows=rows), model.encode_ids(SEQS, rows=rows, blas=False)
        assert all(same(a, b) for a, b in zip(with_blas, without, strict=True))
    ids, mask = np.array([SEQS[2]]), np.ones((1, len(SEQS[2])), dtype=bool)
    assert np.allclose(model.hidden_states(ids, mask, blas=False), model.hidden_states(ids, mask), atol=1e-5)


@pytest.mark.parametrize("env, cores, single", [
    ({}, 8, False), ({"OPENBLAS_NUM_THREADS": "1"}, 8, True), ({"OPENBLAS_NUM_THREADS": "4"}, 8, False),
    ({"OMP_NUM_THREADS": "1"}, 8, True), ({"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"}, 8, False),
    ({"MKL_NUM_THREADS": " 1 "}, 8, True), ({"OPENBLAS_NUM_THREADS": ""}, 8, False), ({}, 1, True)])
def test_blas_is_single_threaded_when_the_environment_pins_it(monkeypatch, env, cores, single):
    for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setattr(splade.os, "cpu_count", lambda: cores)
    assert splade.blas_single_threaded() is single


def test_a_restricted_query_is_computed_without_blas_unless_blas_has_one_thread(model, monkeypatch):
    enc, _ = encoder(model)
    seen = []
    real = model.encode_ids
    monkeypatch.setattr(model, "encode_ids", lambda seqs, **kw: seen.append(kw["blas"]) or real(seqs, **kw))
    for pinned in (False, True):
        monkeypatch.setattr(splade, "blas_single_threaded", lambda pinned=pinned: pinned)
        enc.encode_query("1", terms=[1, 2, 3])
    assert seen == [False, True]
