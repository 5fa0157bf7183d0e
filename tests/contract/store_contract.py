"""Contract layer: the behaviour every MemoryStore backend must have.

A backend's test module subclasses ``StoreContract`` and provides a ``store`` fixture yielding a fresh,
empty store. Vectors here are hand-made unit vectors (the store is under test, not the embedder), so each
expected ranking is worked out by hand.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cbmemory.embedding.sparse import SparseVector
from cbmemory.errors import EmbedderMismatchError, InvalidInputError, WriteConflictError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import NO_FILTERS, ForgetResult, SearchFilters, Session
from cbmemory.store import MemoryStore

DIM = 8
T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


def unit(i: int, j: int | None = None, w: float = 0.0) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    if j is not None:
        v[j] = w
    return v / np.linalg.norm(v)


def sparse(weights: dict[int, float]) -> SparseVector:
    """A hand-made sparse vector: term id -> weight."""
    ids = sorted(weights)
    return SparseVector(np.array(ids, dtype=np.int32), np.array([weights[i] for i in ids], dtype=np.float32))


def session_batch(user, session, texts, *, date=T0, expires_at=None, annotations=None, ingested=NOW):
    msgs = validate_messages([{"role": "user" if i % 2 == 0 else "assistant", "content": t,
                               "turn_id": f"{session}:{i}"} for i, t in enumerate(texts)])
    recs = build_records(user, session, msgs, date, ingested, expires_at=expires_at, annotations=annotations)
    return Session(user, session, date), recs


class StoreContract:
    """Subclass and provide a ``store`` fixture returning an empty store bound to nothing yet."""

    @pytest.fixture
    def bound(self, store):
        store.bind_embedder("test-embedder", DIM)
        return store

    @pytest.fixture
    def sparse_bound(self, bound):
        bound.bind_sparse_encoder("test-sparse")
        return bound

    def write(self, store, user, session, texts, vectors, *, sparse=None, mode="merge", **kw):
        sess, recs = session_batch(user, session, texts, **kw)
        return store.write([sess], recs, np.stack(vectors), mode=mode, sparse=sparse), recs

    # -------------------------------------------------------------- writes
    def test_round_trip_keeps_text_verbatim_and_both_clocks(self, bound):
        text = "  Ünïcode, \"quotes\", 'apostrophes', emoji 🎉 and\nnew lines  "
        res, recs = self.write(bound, "u1", "s1", [text], [unit(0)], annotations={"topic": "test"})
        assert (res.inserted, res.replaced, res.unchanged) == (1, 0, 0)
        [got] = bound.get_records("u1", [recs[0].record_id])
        assert got.text == text
        assert got.occurred_at == T0 and got.ingested_at == NOW
        assert got.index_text.startswith("[Sunday, 7 May 2023] user: ")
        assert dict(got.annotations) == {"topic": "test"}
        assert got.turn_id == "s1:0" and got.session_id == "s1" and got.user_id == "u1"

    def test_rewrite_is_idempotent_and_changed_content_replaces(self, bound):
        self.write(bound, "u1", "s1", ["alpha beta", "gamma"], [unit(0), unit(1)])
        res, _ = self.write(bound, "u1", "s1", ["alpha beta", "gamma"], [unit(0), unit(1)])
        assert (res.inserted, res.replaced, res.unchanged) == (0, 0, 2)
        assert bound.count("u1") == 2
        res, _ = self.write(bound, "u1", "s1", ["alpha beta", "delta"], [unit(0), unit(2)])
        assert (res.inserted, res.replaced, res.unchanged) == (0, 1, 1)
        assert bound.count("u1") == 2
        assert bound.text_search("u1", "gamma", 5, now=NOW) == []
        assert [h.record.text for h in bound.text_search("u1", "delta", 5, now=NOW)] == ["delta"]
        assert bound.vector_search("u1", unit(1), 1, now=NOW)[0].record.text != "gamma"

    def test_write_with_wrong_vector_shape_stores_nothing(self, bound):
        sess, recs = session_batch("u1", "s1", ["one", "two"])
        with pytest.raises(InvalidInputError):
            bound.write([sess], recs, np.stack([unit(0)]))
        assert bound.count("u1") == 0

    def test_writes_are_checked_by_the_contract_with_one_set_of_messages(self, store):
        """``MemoryStore.write`` checks every batch before the backend's ``_write`` sees it."""
        assert type(store).write is MemoryStore.write
        sess, recs = session_batch("u1", "s1", ["one", "two"])
        two = np.stack([unit(0), unit(1)])
        with pytest.raises(InvalidInputError, match="bind an embedder"):
            store.write([sess], recs, two)
        store.bind_embedder("test-embedder", DIM)
        assert store.bound_embedder == ("test-embedder", DIM)
        bad_value = two.copy()
        bad_value[1, 2] = np.nan
        for kwargs, message in (({"mode": "upsert"}, "mode must be one of 'merge', 'replace', 'append'"),
                                ({"vectors": two[:1]}, r"vectors have shape \(1, 8\); expected \(2, 8\)"),
                                ({"vectors": bad_value}, "vectors must be finite"),
                                ({"records": [recs[0], recs[0]]}, "a batch holds the same record twice"),
                                ({"vectors": [["x"] * DIM] * 2}, "vectors must be an array of floats"),
                                ({"records": [recs[0], replace(recs[1], text="half \ud800 a pair")]},
                                 "lone surrogate")):
            args = {"records": recs, "vectors": two, **kwargs}
            with pytest.raises(InvalidInputError, match=message):
                store.write([sess], args["records"], args["vectors"], mode=kwargs.get("mode", "merge"))
        assert store.count("u1") == 0

    def test_embedder_mismatch_is_refused(self, bound):
        with pytest.raises(EmbedderMismatchError):
            bound.bind_embedder("other-embedder", DIM)
        with pytest.raises(EmbedderMismatchError):
            bound.bind_embedder("test-embedder", DIM + 1)
        bound.bind_embedder("test-embedder", DIM)  # same one is fine

    # -------------------------------------------------------------- searches
    def test_vector_search_ranks_by_cosine_within_one_user(self, bound):
        self.write(bound, "u1", "s1", ["a", "b", "c"], [unit(0), unit(0, 1, 1.0), unit(1)])
        self.write(bound, "u2", "s1", ["other user's exact match"], [unit(0)])
        hits = bound.vector_search("u1", unit(0), 3, now=NOW)
        assert [h.record.text for h in hits] == ["a", "b", "c"]
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert hits[1].score == pytest.approx(2 ** -0.5, abs=1e-5)
        assert all(h.record.user_id == "u1" for h in hits)
        assert hits[0].signals["vector"] == hits[0].score and hits[0].ranks["vector"] == 1

    def test_text_search_is_bm25_and_user_scoped(self, bound):
        self.write(bound, "u1", "s1", ["I adopted a puppy named Biscuit", "the weather was fine", "puppy puppy"],
                   [unit(0), unit(1), unit(2)])
        self.write(bound, "u2", "s1", ["my puppy Biscuit"], [unit(0)])
        hits = bound.text_search("u1", "Biscuit the puppy?", 10, now=NOW)
        assert {h.record.text for h in hits} == {"I adopted a puppy named Biscuit", "puppy puppy"}
        assert hits[0].record.text == "I adopted a puppy named Biscuit"  # rarer term matched
        assert all(h.score > 0 and h.record.user_id == "u1" for h in hits)

    def test_text_search_stems_words(self, bound):
        self.write(bound, "u1", "s1", ["We were painting sunsets"], [unit(0)])
        assert len(bound.text_search("u1", "paints", 5, now=NOW)) == 1

    @pytest.mark.parametrize("query", ['"', '"unbalanced', "*", "NEAR(a b)", "a AND", "OR", "-x", "col:val",
                                       "(((", ")", "^", "' OR 1=1 --", "", "   ", "NOT", "\\", "a NEAR/2 b"])
    def test_hostile_full_text_queries_never_raise(self, bound, query):
        self.write(bound, "u1", "s1", ["near and or not plain words"], [unit(0)])
        assert isinstance(bound.text_search("u1", query, 5, now=NOW), list)
        assert isinstance(bound.phrase_search("u1", [query], 5, now=NOW), list)

    def test_full_text_covers_both_fields_the_indexed_text_and_the_raw_turn(self, bound):
        """The default recipe's full-text signal searches both fields on every backend: a word or phrase
        found only in ``text`` (here a derived record whose indexed text differs) or only in
        ``index_text`` is found."""
        sess, recs = session_batch("u1", "s1", ["plain words here"])
        odd = replace(recs[0], record_id="derived-1", kind="summary", text="zanzibarite crystal",
                      index_text="a summary of nothing", content_hash="h" * 64)
        bound.write([sess], [*recs, odd], np.stack([unit(0), unit(1)]))
        assert [h.record.record_id for h in bound.text_search("u1", "zanzibarite", 5, now=NOW)] == ["derived-1"]
        assert [h.record.record_id for h in bound.phrase_search("u1", ["zanzibarite crystal"], 5, now=NOW)] == [
            "derived-1"]
        assert [h.record.record_id for h in bound.text_search("u1", "summary", 5, now=NOW)] == ["derived-1"]
        assert [h.record.text for h in bound.text_search("u1", "Sunday", 5, now=NOW)] == ["plain words here"]

    def test_phrase_search_matches_exact_phrases_only(self, bound):
        self.write(bound, "u1", "s1", ["the Nordstrom friends and family sale", "friends and family of Nordstrom"],
                   [unit(0), unit(1)])
        hits = bound.phrase_search("u1", ["Nordstrom friends and family sale"], 5, now=NOW)
        assert [h.record.text for h in hits] == ["the Nordstrom friends and family sale"]
        assert hits[0].signals.keys() == {"entity"}

    def test_filters(self, bound):
        d1, d2 = T0, T0 + timedelta(days=30)
        self.write(bound, "u1", "s1", ["first session text"], [unit(0)], date=d1, annotations={"k": "a"})
        self.write(bound, "u1", "s2", ["second session text"], [unit(0)], date=d2, annotations={"k": "b"})
        self.write(bound, "u1", "s3", ["third session text"], [unit(0)], date=d2,
                   ingested=NOW + timedelta(hours=1))
        def texts(f, how="vector"):
            hits = (bound.vector_search("u1", unit(0), 10, f, now=NOW + timedelta(days=1)) if how == "vector"
                    else bound.text_search("u1", "session text", 10, f, now=NOW + timedelta(days=1)))
            return sorted(h.record.text for h in hits)
        for how in ("vector", "text"):
            assert texts(SearchFilters(session_ids=("s1",)), how) == ["first session text"]
            assert texts(SearchFilters(session_ids=()), how) == []
            assert texts(SearchFilters(occurred_after=d2), how) == ["second session text", "third session text"]
            assert texts(SearchFilters(occurred_before=d1), how) == ["first session text"]
            assert texts(SearchFilters(annotations={"k": "b"}), how) == ["second session text"]
            assert texts(SearchFilters(annotations={"k": "zzz"}), how) == []
            assert texts(SearchFilters(ingested_after=NOW + timedelta(minutes=1)), how) == ["third session text"]
            assert texts(SearchFilters(kinds=("round",)), how) == []

    # -------------------------------------------------------------- TTL and erasure
    def test_expired_records_are_never_returned_and_get_purged(self, bound):
        self.write(bound, "u1", "s1", ["short lived note"], [unit(0)], expires_at=NOW + timedelta(hours=1))
        self.write(bound, "u1", "s2", ["durable note"], [unit(1)])
        later = NOW + timedelta(hours=2)
        assert len(bound.vector_search("u1", unit(0), 5, now=NOW)) == 2
        assert [h.record.text for h in bound.vector_search("u1", unit(0), 5, now=later)] == ["durable note"]
        assert bound.text_search("u1", "short lived", 5, now=later) == []
        assert bound.list_records("u1", now=later)[0].text == "durable note"
        assert bound.purge_expired(later) == 1
        assert bound.count("u1") == 1

    def test_forget_session_then_user(self, bound):
        self.write(bound, "u1", "s1", ["keep me"], [unit(0)])
        self.write(bound, "u1", "s2", ["erase me"], [unit(1)])
        self.write(bound, "u2", "s1", ["someone else"], [unit(0)])
        assert bound.forget("u1", "s2") == ForgetResult(records=1, sessions=1, wiped=True)
        assert bound.text_search("u1", "erase", 5, now=NOW) == []
        assert [h.record.text for h in bound.vector_search("u1", unit(1), 5, now=NOW)] == ["keep me"]
        assert [s.session_id for s in bound.list_sessions("u1")] == ["s1"]
        assert bound.forget("u1").records == 1
        assert bound.list_sessions("u1") == []
        assert bound.count("u1") == 0 and bound.vector_search("u1", unit(0), 5, now=NOW) == []
        assert bound.count("u2") == 1 and bound.users() == ["u2"]

    # -------------------------------------------------------------- listing and cache
    def test_list_records_in_conversation_order(self, bound):
        self.write(bound, "u1", "late", ["c", "d"], [unit(0), unit(1)], date=T0 + timedelta(days=1))
        self.write(bound, "u1", "early", ["a", "b"], [unit(0), unit(1)], date=T0)
        assert [r.text for r in bound.list_records("u1", now=NOW)] == ["a", "b", "c", "d"]
        assert [r.text for r in bound.list_records("u1", limit=1, newest_first=True, now=NOW)] == ["d"]
        assert bound.get_session("u1", "early").occurred_at == T0
        assert bound.get_session("u1", "missing") is None

    def test_lookup_vectors_by_content_hash(self, bound):
        _, recs = self.write(bound, "u1", "s1", ["cache me"], [unit(3)])
        got = bound.lookup_vectors("u1", [recs[0].content_hash, "0" * 64])
        assert list(got) == [recs[0].content_hash]
        assert np.allclose(got[recs[0].content_hash], unit(3))
        assert bound.lookup_vectors("u2", [recs[0].content_hash]) == {}  # never another user's

    # -------------------------------------------------------------- sessions: replace, append, expiry
    def test_replace_makes_the_session_exactly_the_batch(self, bound):
        self.write(bound, "u1", "s1", ["one", "two", "three"], [unit(0), unit(1), unit(2)])
        later = T0 + timedelta(days=1)
        sess, recs = session_batch("u1", "s1", ["one", "two"], date=later)
        res = bound.write([sess], recs, np.stack([unit(0), unit(1)]), mode="replace")
        assert (res.inserted, res.replaced, res.unchanged) == (0, 2, 0)
        got = bound.list_records("u1", now=NOW)
        assert [(r.text, r.occurred_at) for r in got] == [("one", later), ("two", later)]
        assert bound.get_session("u1", "s1").occurred_at == later
        again = bound.write([sess], recs, np.stack([unit(0), unit(1)]), mode="replace")
        assert (again.inserted, again.replaced, again.unchanged) == (0, 0, 2)

    def test_replace_drops_records_derived_from_a_changed_session_only(self, bound):
        sess, recs = session_batch("u1", "s1", ["one", "two"])
        bound.write([sess], recs, np.stack([unit(0), unit(1)]))
        derived = replace(recs[0], record_id="derived-1", kind="summary", text="a summary",
                          index_text="a summary", content_hash="h" * 64)
        bound.write([sess], [derived], np.stack([unit(2)]))
        bound.write([sess], recs, np.stack([unit(0), unit(1)]), mode="replace")  # unchanged: kept
        assert bound.count("u1") == 3
        sess2, recs2 = session_batch("u1", "s1", ["one", "two", "new"])
        bound.write([sess2], recs2, np.stack([unit(0), unit(1), unit(2)]), mode="replace")
        assert sorted(r.kind for r in bound.list_records("u1", now=NOW)) == ["turn"] * 3

    def test_append_refuses_positions_taken_meanwhile(self, bound):
        self.write(bound, "u1", "s1", ["one"], [unit(0)])
        msgs = validate_messages([{"role": "user", "content": "two"}])
        late = build_records("u1", "s1", msgs, T0, NOW, start_position=0, append=True)
        with pytest.raises(WriteConflictError):
            bound.write([Session("u1", "s1", T0)], late, np.stack([unit(1)]), mode="append")
        assert bound.count("u1") == 1
        ok = build_records("u1", "s1", msgs, T0, NOW, start_position=1, append=True)
        assert bound.write([Session("u1", "s1", T0)], ok, np.stack([unit(1)]), mode="append").inserted == 1

    def test_purge_removes_sessions_left_empty(self, bound):
        self.write(bound, "u1", "s1", ["short lived"], [unit(0)], expires_at=NOW + timedelta(hours=1))
        self.write(bound, "u1", "s2", ["durable"], [unit(1)])
        assert bound.purge_expired(NOW + timedelta(hours=2)) == 1
        assert [s.session_id for s in bound.list_sessions("u1")] == ["s2"]

    def test_get_records_never_crosses_users(self, bound):
        _, recs = self.write(bound, "u2", "s1", ["private"], [unit(0)])
        assert bound.get_records("u1", [recs[0].record_id]) == []

    # -------------------------------------------------------------- sparse vectors
    def sparse_texts(self, store, user, query, k=10, filters=NO_FILTERS, now=NOW):
        return [h.record.text for h in store.sparse_search(user, query, k, filters, now=now)]

    def test_sparse_search_ranks_by_dot_product_and_keeps_positive_scores_only(self, sparse_bound):
        self.write(sparse_bound, "u1", "s1", ["a", "b", "c", "d", "e"], [unit(0)] * 5,
                   sparse=[sparse({1: 1.0, 2: 0.5}), sparse({2: 2.0, 9: 4.0}), sparse({3: 1.0}),
                           sparse({1: -1.0}), sparse({})])
        query = sparse({1: 1.0, 2: 1.0, 7: 3.0})
        hits = sparse_bound.sparse_search("u1", query, 10, now=NOW)
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
        before = [(h.record.record_id, h.score) for h in sparse_bound.sparse_search("u1", query, 10, now=NOW)]
        self.write(sparse_bound, "u2", "s1", ["other user's exact match", "another"], [unit(0), unit(1)],
                   sparse=[sparse({5: 1.0}), sparse({5: 9.0})])
        hits = sparse_bound.sparse_search("u1", query, 10, now=NOW)
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

    def test_sparse_encoder_binding(self, bound):
        assert bound.bound_sparse_encoder is None
        assert bound.sparse_search("u1", sparse({1: 1.0}), 5, now=NOW) == []  # none bound: no hits
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
        assert bound.sparse_search("u1", q, 5, now=NOW) == []  # no sparse vector: scores 0, never a hit
        self.write(bound, "u1", "s2", ["written after"], [unit(1)], sparse=[sparse({1: 2.0})])
        assert self.sparse_texts(bound, "u1", q) == ["written after"]
        assert len(bound.vector_search("u1", unit(0), 5, now=NOW)) == 2  # the other searches find both
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
        assert bound.sparse_search("u1", q, 10, now=NOW) == []  # searched once before: nothing
        ids = {r.text: r.record_id for r in bound.records_without_sparse("u1")}
        [theirs] = bound.records_without_sparse("u2")
        n = bound.set_sparse("u1", {ids["a"]: sparse({1: 1.0, 2: 0.5}), ids["summary of early"]: sparse({1: 3.0}),
                                    theirs.record_id: sparse({1: 9.0}), "no-such-record": sparse({1: 9.0})})
        assert n == 2  # another user's record and an unknown id are ignored
        hits = bound.sparse_search("u1", q, 10, now=NOW)
        # summary: 3 * 1; a: 1 * 1 + 0.5 * 2
        assert [(h.record.text, h.score) for h in hits] == [("summary of early", pytest.approx(3.0)),
                                                          ("a", pytest.approx(2.0))]
        assert all(h.record.user_id == "u1" for h in hits) and dict(hits[0].ranks) == {"sparse": 1}
        assert self.sparse_texts(bound, "u2", q) == []
        assert [r.text for r in bound.records_without_sparse("u2")] == ["someone else"]
        assert [r.text for r in bound.records_without_sparse("u1")] == ["b", "c", "d", "expires later"]
        # a record that has a vector keeps it
        assert bound.set_sparse("u1", {ids["a"]: sparse({1: 100.0}), ids["b"]: sparse({2: 0.25})}) == 1
        assert [(h.record.text, h.score) for h in bound.sparse_search("u1", q, 10, now=NOW)] == [
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
        assert bound.sparse_search("u1", sparse({1: 1.0}), 5, now=NOW) == []
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
        hits = sparse_bound.sparse_search("u1", sparse({2: 1.0, 5: 1.0}), 5, now=NOW)
        assert [(h.record.text, h.score) for h in hits] == [("two", pytest.approx(1.5))]
        # a record whose text changed (merge) is replaced with its new vector too
        self.write(sparse_bound, "u1", "s1", ["one", "two changed"], [unit(0), unit(1)], date=later,
                   sparse=[sparse({4: 1.0}), sparse({6: 1.0})])
        assert self.sparse_texts(sparse_bound, "u1", sparse({5: 1.0})) == []
        assert self.sparse_texts(sparse_bound, "u1", sparse({6: 1.0})) == ["two changed"]
