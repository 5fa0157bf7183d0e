"""Contract layer: the behaviour every MemoryStore backend must have.

A backend's test module subclasses ``StoreContract`` and provides a ``store`` fixture yielding a fresh,
empty store. Vectors here are hand-made unit vectors (the store is under test, not the embedder), so each
expected ranking is worked out by hand (contract_data.py). Two parts of the contract are base classes of
``StoreContract``, in modules of their own: the sparse vectors (sparse_contract.py) and the checks of search
and read inputs (search_input_contract.py), links between records (links_contract.py). ``neighbours`` is mixed in by each backend (neighbours_contract.py).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from cbmemory.errors import EmbedderMismatchError, InvalidInputError, WriteConflictError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import ForgetResult, SearchFilters, Session
from cbmemory.store import MemoryStore
from cbmemory.store.signals import Signal

from .contract_data import DIM, NOW, T0, session_batch, sparse, unit
from .links_contract import LinksContract
from .search_input_contract import SearchInputContract
from .sparse_contract import SparseContract

__all__ = ["DIM", "NOW", "T0", "StoreContract", "session_batch", "sparse", "unit"]  # the data, for the backends


class StoreContract(SparseContract, SearchInputContract, LinksContract):
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
        assert bound.search(Signal.BM25, "u1", "gamma", 5, now=NOW) == []
        assert [h.record.text for h in bound.search(Signal.BM25, "u1", "delta", 5, now=NOW)] == ["delta"]
        assert bound.search(Signal.VECTOR, "u1", unit(1), 1, now=NOW)[0].record.text != "gamma"

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
        hits = bound.search(Signal.VECTOR, "u1", unit(0), 3, now=NOW)
        assert [h.record.text for h in hits] == ["a", "b", "c"]
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert hits[1].score == pytest.approx(2 ** -0.5, abs=1e-5)
        assert all(h.record.user_id == "u1" for h in hits)
        assert hits[0].signals["vector"] == hits[0].score and hits[0].ranks["vector"] == 1

    def test_text_search_is_bm25_and_user_scoped(self, bound):
        self.write(bound, "u1", "s1", ["I adopted a puppy named Biscuit", "the weather was fine", "puppy puppy"],
                   [unit(0), unit(1), unit(2)])
        self.write(bound, "u2", "s1", ["my puppy Biscuit"], [unit(0)])
        hits = bound.search(Signal.BM25, "u1", "Biscuit the puppy?", 10, now=NOW)
        assert {h.record.text for h in hits} == {"I adopted a puppy named Biscuit", "puppy puppy"}
        assert hits[0].record.text == "I adopted a puppy named Biscuit"  # rarer term matched
        assert all(h.score > 0 and h.record.user_id == "u1" for h in hits)

    def test_text_search_stems_words(self, bound):
        self.write(bound, "u1", "s1", ["We were painting sunsets"], [unit(0)])
        assert len(bound.search(Signal.BM25, "u1", "paints", 5, now=NOW)) == 1

    @pytest.mark.parametrize("query", ['"', '"unbalanced', "*", "NEAR(a b)", "a AND", "OR", "-x", "col:val",
                                       "(((", ")", "^", "' OR 1=1 --", "", "   ", "NOT", "\\", "a NEAR/2 b"])
    def test_hostile_full_text_queries_never_raise(self, bound, query):
        """Query syntax is plain words: a query never raises, finds only the user's own record, and one
        without a word character finds nothing."""
        self.write(bound, "u1", "s1", ["near and or not plain words"], [unit(0)])
        self.write(bound, "u2", "s1", ["near and or not plain words of another user"], [unit(1)])
        hits = [*bound.search(Signal.BM25, "u1", query, 5, now=NOW), *bound.search(Signal.ENTITY, "u1", [query], 5, now=NOW)]
        assert all((h.record.user_id, h.record.text) == ("u1", "near and or not plain words") for h in hits)
        if not any(c.isalnum() for c in query):
            assert hits == []

    def test_full_text_covers_both_fields_the_indexed_text_and_the_raw_turn(self, bound):
        """The default recipe's full-text signal searches both fields on every backend: a word or phrase
        found only in ``text`` (here a derived record whose indexed text differs) or only in
        ``index_text`` is found."""
        sess, recs = session_batch("u1", "s1", ["plain words here"])
        odd = replace(recs[0], record_id="derived-1", kind="summary", text="zanzibarite crystal",
                      index_text="a summary of nothing", content_hash="h" * 64)
        bound.write([sess], [*recs, odd], np.stack([unit(0), unit(1)]))
        assert [h.record.record_id for h in bound.search(Signal.BM25, "u1", "zanzibarite", 5, now=NOW)] == ["derived-1"]
        assert [h.record.record_id for h in bound.search(Signal.ENTITY, "u1", ["zanzibarite crystal"], 5, now=NOW)] == [
            "derived-1"]
        assert [h.record.record_id for h in bound.search(Signal.BM25, "u1", "summary", 5, now=NOW)] == ["derived-1"]
        assert [h.record.text for h in bound.search(Signal.BM25, "u1", "Sunday", 5, now=NOW)] == ["plain words here"]

    def test_phrase_search_matches_exact_phrases_only(self, bound):
        self.write(bound, "u1", "s1", ["the Nordstrom friends and family sale", "friends and family of Nordstrom"],
                   [unit(0), unit(1)])
        hits = bound.search(Signal.ENTITY, "u1", ["Nordstrom friends and family sale"], 5, now=NOW)
        assert [h.record.text for h in hits] == ["the Nordstrom friends and family sale"]
        assert hits[0].signals.keys() == {"entity"}

    def test_filters(self, bound):
        d1, d2 = T0, T0 + timedelta(days=30)
        self.write(bound, "u1", "s1", ["first session text"], [unit(0)], date=d1, annotations={"k": "a"})
        self.write(bound, "u1", "s2", ["second session text"], [unit(0)], date=d2, annotations={"k": "b"})
        self.write(bound, "u1", "s3", ["third session text"], [unit(0)], date=d2,
                   ingested=NOW + timedelta(hours=1))
        def texts(f, how="vector"):
            hits = (bound.search(Signal.VECTOR, "u1", unit(0), 10, f, now=NOW + timedelta(days=1)) if how == "vector"
                    else bound.search(Signal.BM25, "u1", "session text", 10, f, now=NOW + timedelta(days=1)))
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
        assert len(bound.search(Signal.VECTOR, "u1", unit(0), 5, now=NOW)) == 2
        assert [h.record.text for h in bound.search(Signal.VECTOR, "u1", unit(0), 5, now=later)] == ["durable note"]
        assert bound.search(Signal.BM25, "u1", "short lived", 5, now=later) == []
        assert bound.list_records("u1", now=later)[0].text == "durable note"
        assert bound.purge_expired(later) == 1
        assert bound.count("u1") == 1

    def test_forget_session_then_user(self, bound):
        self.write(bound, "u1", "s1", ["keep me"], [unit(0)])
        self.write(bound, "u1", "s2", ["erase me"], [unit(1)])
        self.write(bound, "u2", "s1", ["someone else"], [unit(0)])
        assert bound.forget("u1", "s2") == ForgetResult(records=1, sessions=1, wiped=True)
        assert bound.search(Signal.BM25, "u1", "erase", 5, now=NOW) == []
        assert [h.record.text for h in bound.search(Signal.VECTOR, "u1", unit(1), 5, now=NOW)] == ["keep me"]
        assert [s.session_id for s in bound.list_sessions("u1")] == ["s1"]
        assert bound.forget("u1").records == 1
        assert bound.list_sessions("u1") == []
        assert bound.count("u1") == 0 and bound.search(Signal.VECTOR, "u1", unit(0), 5, now=NOW) == []
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
