"""Contract layer: learned sparse vectors, the same on every backend: binding a sparse encoder, writing one
vector per record, the sparse search (dot products, positive scores only, per user, under filters and expiry),
the records written before the binding and ``set_sparse``, which gives them theirs. A part of
``StoreContract`` (a base class of it), which provides the ``bound`` and ``sparse_bound`` fixtures and
``write``; not a test module itself."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cbmemory.errors import EmbedderMismatchError, InvalidInputError
from cbmemory.models import NO_FILTERS, SearchFilters
from cbmemory.store.signals import Signal

from .contract_data import NOW, T0, session_batch, sparse, unit


class SparseContract:
    """The sparse-vector part of ``StoreContract``."""

    def sparse_texts(self, store, user, query, k=10, filters=NO_FILTERS, now=NOW):
        return [h.record.text for h in store.search(Signal.SPARSE, user, query, k, filters, now=now)]

    def test_sparse_search_ranks_by_dot_product_and_keeps_positive_scores_only(self, sparse_bound):
        self.write(sparse_bound, "u1", "s1", ["a", "b", "c", "d", "e"], [unit(0)] * 5,
                   sparse=[sparse({1: 1.0, 2: 0.5}), sparse({2: 2.0, 9: 4.0}), sparse({3: 1.0}),
                           sparse({1: -1.0}), sparse({})])
        query = sparse({1: 1.0, 2: 1.0, 7: 3.0})
        hits = sparse_bound.search(Signal.SPARSE, "u1", query, 10, now=NOW)
        # b: 2.0 * 1; a: 1.0 * 1 + 0.5 * 1; c shares no term, d scores -1 and e has no terms: never hits
        assert [h.record.text for h in hits] == ["b", "a"]
        assert [h.score for h in hits] == pytest.approx([2.0, 1.5])
        assert dict(hits[0].signals) == {"sparse": hits[0].score} and dict(hits[0].ranks) == {"sparse": 1}
        assert dict(hits[1].ranks) == {"sparse": 2}
        assert self.sparse_texts(sparse_bound, "u1", query, k=1) == ["b"]
        assert self.sparse_texts(sparse_bound, "u1", sparse({3: 0.25})) == ["c"]
        assert self.sparse_texts(sparse_bound, "u1", sparse({4: 1.0})) == []
        assert self.sparse_texts(sparse_bound, "u1", sparse({})) == []

    def test_sparse_search_is_user_scoped(self, sparse_bound):
        self.write(sparse_bound, "u1", "s1", ["mine", "also mine"], [unit(0), unit(1)],
                   sparse=[sparse({5: 1.0}), sparse({5: 0.5, 6: 2.0})])
        query = sparse({5: 2.0, 6: 1.0})
        before = [(h.record.record_id, h.score) for h in sparse_bound.search(Signal.SPARSE, "u1", query, 10, now=NOW)]
        self.write(sparse_bound, "u2", "s1", ["other user's exact match", "another"], [unit(0), unit(1)],
                   sparse=[sparse({5: 1.0}), sparse({5: 9.0})])
        hits = sparse_bound.search(Signal.SPARSE, "u1", query, 10, now=NOW)
        assert [h.record.text for h in hits] == ["also mine", "mine"]  # 0.5 * 2 + 2 * 1 = 3; 1 * 2 = 2
        assert [h.score for h in hits] == pytest.approx([3.0, 2.0])
        assert all(h.record.user_id == "u1" for h in hits)
        assert [(h.record.record_id, h.score) for h in hits] == before  # others' data changes no score
        assert self.sparse_texts(sparse_bound, "u2", query) == ["another", "other user's exact match"]
        assert self.sparse_texts(sparse_bound, "u3", query) == []

    def test_sparse_search_respects_filters_and_expiry(self, sparse_bound):
        d1, d2 = T0, T0 + timedelta(days=30)
        q = sparse({1: 1.0})
        self.write(sparse_bound, "u1", "s1", ["first session text"], [unit(0)], date=d1, annotations={"k": "a"},
                   sparse=[sparse({1: 3.0})])
        self.write(sparse_bound, "u1", "s2", ["second session text"], [unit(0)], date=d2, annotations={"k": "b"},
                   sparse=[sparse({1: 2.0})])
        self.write(sparse_bound, "u1", "s3", ["third session text"], [unit(0)], date=d2,
                   ingested=NOW + timedelta(hours=1), expires_at=NOW + timedelta(days=2), sparse=[sparse({1: 1.0})])
        day = NOW + timedelta(days=1)
        assert self.sparse_texts(sparse_bound, "u1", q, now=day) == [
            "first session text", "second session text", "third session text"]
        for f, want in ((SearchFilters(session_ids=("s1",)), ["first session text"]),
                        (SearchFilters(session_ids=()), []),
                        (SearchFilters(occurred_after=d2), ["second session text", "third session text"]),
                        (SearchFilters(occurred_before=d1), ["first session text"]),
                        (SearchFilters(annotations={"k": "b"}), ["second session text"]),
                        (SearchFilters(annotations={"k": "zzz"}), []),
                        (SearchFilters(ingested_after=NOW + timedelta(minutes=1)), ["third session text"]),
                        (SearchFilters(kinds=("round",)), []),
                        (SearchFilters(kinds=("turn",)), ["first session text", "second session text",
                                                          "third session text"])):
            assert self.sparse_texts(sparse_bound, "u1", q, filters=f, now=day) == want, f
        # expired (at or after its expires_at): never returned, then purged
        assert self.sparse_texts(sparse_bound, "u1", q, now=NOW + timedelta(days=2)) == [
            "first session text", "second session text"]
        assert sparse_bound.purge_expired(NOW + timedelta(days=3)) == 1
        assert self.sparse_texts(sparse_bound, "u1", q, now=day) == ["first session text", "second session text"]

    @staticmethod
    def terms(store, user):
        """``store.sparse_terms(user)`` as a list (``None``: the backend does not say), checked int32 and
        increasing."""
        got = store.sparse_terms(user)
        if got is None:
            return None
        assert got.dtype == np.int32 and got.ndim == 1 and bool(np.all(np.diff(got) > 0))
        return got.tolist()

    def test_sparse_terms_are_the_users_own(self, bound):
        """``sparse_terms``: ``None`` (the backend does not say), or exactly the term ids of the user's sparse
        vectors, as records are written, given vectors and forgotten; never another user's."""
        def same(user, want):
            assert self.terms(bound, user) in (None, want), user

        same("u1", [])  # no sparse encoder bound: no vector, no term
        self.write(bound, "u1", "before", ["written before the binding"], [unit(0)])
        bound.bind_sparse_encoder("test-sparse")
        same("u1", [])
        self.write(bound, "u1", "s1", ["a", "b"], [unit(0), unit(1)],
                   sparse=[sparse({5: 1.0, 6: 2.0}), sparse({6: 1.0, 40: 0.5})])
        self.write(bound, "u2", "s1", ["other"], [unit(0)], sparse=[sparse({5: 1.0, 9: 4.0, 30_000: 1.0})])
        same("u1", [5, 6, 40])
        same("u2", [5, 9, 30_000])
        same("nobody", [])
        self.write(bound, "u1", "s2", ["later"], [unit(2)], sparse=[sparse({7: 1.0})])
        same("u1", [5, 6, 7, 40])  # a write adds its terms
        (old,) = bound.records_without_sparse("u1")
        bound.set_sparse("u1", {old.record_id: sparse({2: 1.0})})
        same("u1", [2, 5, 6, 7, 40])
        bound.forget("u1", "s1")
        same("u1", [2, 7])  # a forgotten session's terms go with it
        same("u2", [5, 9, 30_000])
        bound.forget("u1")
        same("u1", [])

    def test_sparse_encoder_binding(self, bound):
        assert bound.bound_sparse_encoder is None
        assert bound.search(Signal.SPARSE, "u1", sparse({1: 1.0}), 5, now=NOW) == []  # none bound: no hits
        bound.bind_sparse_encoder("test-sparse")
        assert bound.bound_sparse_encoder == "test-sparse"
        bound.bind_sparse_encoder("test-sparse")  # the same one again: nothing happens
        with pytest.raises(EmbedderMismatchError):
            bound.bind_sparse_encoder("other-sparse")
        assert bound.bound_sparse_encoder == "test-sparse"
        self.write(bound, "u1", "s1", ["one"], [unit(0)], sparse=[sparse({1: 1.0})])
        bound.bind_sparse_encoder("test-sparse")  # with records too
        assert self.sparse_texts(bound, "u1", sparse({1: 1.0})) == ["one"]

    def test_a_store_holding_records_takes_a_sparse_encoder_and_sparse_search_skips_them(self, bound):
        self.write(bound, "u1", "s1", ["written before any sparse encoder"], [unit(0)])
        bound.bind_sparse_encoder("test-sparse")
        assert bound.bound_sparse_encoder == "test-sparse"
        q = sparse({1: 1.0})
        assert bound.search(Signal.SPARSE, "u1", q, 5, now=NOW) == []  # no sparse vector: scores 0, never a hit
        self.write(bound, "u1", "s2", ["written after"], [unit(1)], sparse=[sparse({1: 2.0})])
        assert self.sparse_texts(bound, "u1", q) == ["written after"]
        assert len(bound.search(Signal.VECTOR, "u1", unit(0), 5, now=NOW)) == 2  # the other searches find both
        sess, recs = session_batch("u1", "s3", ["no vector"])
        with pytest.raises(InvalidInputError):  # from now on every write carries them
            bound.write([sess], recs, np.stack([unit(2)]))
        assert bound.count("u1") == 2

    def write_backlog(self, store) -> None:
        """Records written before any sparse encoder: u1's in two sessions (written out of date order), one
        derived record, one expired and one expiring after the test; u2's; u3's, all expired."""
        later = datetime.now(timezone.utc) + timedelta(days=30)
        self.write(store, "u1", "late", ["c", "d"], [unit(0), unit(1)], date=T0 + timedelta(days=1))
        sess, recs = session_batch("u1", "early", ["a", "b"])
        derived = replace(recs[1], record_id="derived-1", kind="summary", position=7, text="summary of early",
                          index_text="summary of early", content_hash="h" * 64)
        store.write([sess], [*recs, derived], np.stack([unit(0), unit(1), unit(2)]))
        self.write(store, "u1", "gone", ["expired"], [unit(2)], date=T0 + timedelta(days=2),
                   expires_at=NOW + timedelta(hours=1))
        self.write(store, "u1", "kept", ["expires later"], [unit(3)], date=T0 + timedelta(days=3), expires_at=later)
        self.write(store, "u2", "s1", ["someone else"], [unit(0)])
        self.write(store, "u3", "s1", ["only expired"], [unit(0)], expires_at=NOW + timedelta(hours=1))

    BACKLOG_U1 = ["a", "b", "summary of early", "c", "d", "expires later"]  # conversation order, live only

    def test_records_without_sparse_vectors_are_listed_per_user_once_an_encoder_is_bound(self, bound):
        self.write_backlog(bound)
        assert bound.users_missing_sparse() == []  # no sparse encoder bound: nothing is missing
        assert bound.records_without_sparse("u1") == []
        bound.bind_sparse_encoder("test-sparse")
        assert sorted(bound.users_missing_sparse()) == ["u1", "u2"]  # u3's records are all expired
        got = bound.records_without_sparse("u1")
        assert [r.text for r in got] == self.BACKLOG_U1
        assert {r.user_id for r in got} == {"u1"} and {r.kind for r in got} == {"turn", "summary"}
        assert got[2].record_id == "derived-1"
        assert [r.text for r in bound.records_without_sparse("u1", limit=2)] == ["a", "b"]
        assert [r.text for r in bound.records_without_sparse("u1", limit=100)] == self.BACKLOG_U1
        assert bound.records_without_sparse("u1", limit=0) == []
        assert [r.text for r in bound.records_without_sparse("u2")] == ["someone else"]
        assert bound.records_without_sparse("u3") == [] and bound.records_without_sparse("nobody") == []
        # records written with their vectors are never listed
        self.write(bound, "u4", "s1", ["with a vector"], [unit(0)], sparse=[sparse({1: 1.0})])
        assert bound.records_without_sparse("u4") == [] and "u4" not in bound.users_missing_sparse()

    def test_set_sparse_gives_records_their_vectors_where_they_have_none(self, bound):
        self.write_backlog(bound)
        bound.bind_sparse_encoder("test-sparse")
        q = sparse({1: 1.0, 2: 2.0})
        assert bound.search(Signal.SPARSE, "u1", q, 10, now=NOW) == []  # searched once before: nothing
        ids = {r.text: r.record_id for r in bound.records_without_sparse("u1")}
        [theirs] = bound.records_without_sparse("u2")
        n = bound.set_sparse("u1", {ids["a"]: sparse({1: 1.0, 2: 0.5}), ids["summary of early"]: sparse({1: 3.0}),
                                    theirs.record_id: sparse({1: 9.0}), "no-such-record": sparse({1: 9.0})})
        assert n == 2  # another user's record and an unknown id are ignored
        hits = bound.search(Signal.SPARSE, "u1", q, 10, now=NOW)
        # summary: 3 * 1; a: 1 * 1 + 0.5 * 2
        assert [(h.record.text, h.score) for h in hits] == [("summary of early", pytest.approx(3.0)),
                                                          ("a", pytest.approx(2.0))]
        assert all(h.record.user_id == "u1" for h in hits) and dict(hits[0].ranks) == {"sparse": 1}
        assert self.sparse_texts(bound, "u2", q) == []
        assert [r.text for r in bound.records_without_sparse("u2")] == ["someone else"]
        assert [r.text for r in bound.records_without_sparse("u1")] == ["b", "c", "d", "expires later"]
        # a record that has a vector keeps it
        assert bound.set_sparse("u1", {ids["a"]: sparse({1: 100.0}), ids["b"]: sparse({2: 0.25})}) == 1
        assert [(h.record.text, h.score) for h in bound.search(Signal.SPARSE, "u1", q, 10, now=NOW)] == [
            ("summary of early", pytest.approx(3.0)), ("a", pytest.approx(2.0)), ("b", pytest.approx(0.5))]
        assert sorted(bound.users_missing_sparse()) == ["u1", "u2"]
        # the rest of u1's: the user is no longer missing any
        rest = bound.records_without_sparse("u1")
        assert bound.set_sparse("u1", {r.record_id: sparse({5: float(i + 1)}) for i, r in enumerate(rest)}) == 3
        assert bound.records_without_sparse("u1") == [] and bound.users_missing_sparse() == ["u2"]
        assert self.sparse_texts(bound, "u1", sparse({5: 1.0})) == ["expires later", "d", "c"]
        assert bound.set_sparse("u2", {theirs.record_id: sparse({1: 9.0})}) == 1
        assert bound.users_missing_sparse() == []
        assert self.sparse_texts(bound, "u2", q) == ["someone else"]

    def test_set_sparse_refuses_values_that_are_not_sparse_vectors_and_an_unbound_store(self, bound):
        _, recs = self.write(bound, "u1", "s1", ["one", "two"], [unit(0), unit(1)])
        with pytest.raises(InvalidInputError):  # no sparse encoder bound
            bound.set_sparse("u1", {recs[0].record_id: sparse({1: 1.0})})
        bound.bind_sparse_encoder("test-sparse")
        for bad in ({1: 1.0}, np.ones(3), [(1, 1.0)], None, "not a vector"):
            with pytest.raises(InvalidInputError):
                bound.set_sparse("u1", {recs[0].record_id: sparse({1: 1.0}), recs[1].record_id: bad})
        assert [r.text for r in bound.records_without_sparse("u1")] == ["one", "two"]  # nothing set
        assert bound.search(Signal.SPARSE, "u1", sparse({1: 1.0}), 5, now=NOW) == []
        assert bound.set_sparse("u1", {}) == 0

    def test_sparse_vectors_are_checked_and_a_refused_write_stores_nothing(self, bound):
        sess, recs = session_batch("u1", "s1", ["one", "two"])
        two = np.stack([unit(0), unit(1)])
        with pytest.raises(InvalidInputError):  # no sparse encoder bound
            bound.write([sess], recs, two, sparse=[sparse({1: 1.0}), sparse({2: 1.0})])
        assert bound.count("u1") == 0
        bound.bind_sparse_encoder("test-sparse")
        for bad in (None, [sparse({1: 1.0})], [sparse({1: 1.0})] * 3, [sparse({1: 1.0}), "not a vector"]):
            with pytest.raises(InvalidInputError):
                bound.write([sess], recs, two, sparse=bad)
        assert bound.count("u1") == 0 and bound.list_sessions("u1") == []
        bound.write([sess], recs, two, sparse=[sparse({1: 1.0}), sparse({2: 1.0})])
        assert bound.count("u1") == 2

    def test_forget_removes_sparse_vectors(self, sparse_bound):
        q = sparse({1: 1.0})
        self.write(sparse_bound, "u1", "s1", ["keep me"], [unit(0)], sparse=[sparse({1: 1.0})])
        self.write(sparse_bound, "u1", "s2", ["erase me"], [unit(1)], sparse=[sparse({1: 2.0})])
        self.write(sparse_bound, "u2", "s1", ["someone else"], [unit(0)], sparse=[sparse({1: 1.0})])
        assert self.sparse_texts(sparse_bound, "u1", q) == ["erase me", "keep me"]  # both cached
        sparse_bound.forget("u1", "s2")
        assert self.sparse_texts(sparse_bound, "u1", q) == ["keep me"]
        sparse_bound.forget("u1")
        assert self.sparse_texts(sparse_bound, "u1", q) == []
        assert self.sparse_texts(sparse_bound, "u2", q) == ["someone else"]

    def test_replaced_records_get_their_new_sparse_vectors(self, sparse_bound):
        self.write(sparse_bound, "u1", "s1", ["one", "two", "three"], [unit(0), unit(1), unit(2)],
                   sparse=[sparse({1: 1.0}), sparse({2: 1.0}), sparse({3: 1.0})])
        later = T0 + timedelta(days=1)
        res, _ = self.write(sparse_bound, "u1", "s1", ["one", "two"], [unit(0), unit(1)], date=later, mode="replace",
                            sparse=[sparse({4: 1.0}), sparse({2: 0.5, 5: 1.0})])
        assert (res.inserted, res.replaced, res.unchanged) == (0, 2, 0)
        assert self.sparse_texts(sparse_bound, "u1", sparse({1: 1.0})) == []
        assert self.sparse_texts(sparse_bound, "u1", sparse({3: 1.0})) == []  # dropped by replace
        assert self.sparse_texts(sparse_bound, "u1", sparse({4: 1.0})) == ["one"]
        hits = sparse_bound.search(Signal.SPARSE, "u1", sparse({2: 1.0, 5: 1.0}), 5, now=NOW)
        assert [(h.record.text, h.score) for h in hits] == [("two", pytest.approx(1.5))]
        # a record whose text changed (merge) is replaced with its new vector too
        self.write(sparse_bound, "u1", "s1", ["one", "two changed"], [unit(0), unit(1)], date=later,
                   sparse=[sparse({4: 1.0}), sparse({6: 1.0})])
        assert self.sparse_texts(sparse_bound, "u1", sparse({5: 1.0})) == []
        assert self.sparse_texts(sparse_bound, "u1", sparse({6: 1.0})) == ["two changed"]
