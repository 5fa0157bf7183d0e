"""Contract layer: links between records, part of the store contract (mixed into ``StoreContract``). A record
may name the earlier records of its user that it supersedes (``MemoryRecord.supersedes``: a statement that
changes what an earlier one said on the same matter); the link is stored with the record, read back with it,
and found from the older side by ``superseding``. Nothing is deleted by a link; ``forget`` and
``purge_expired`` drop the links to what they erase; links are never read across users."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.store.signals import Signal

from .contract_data import NOW, T0, session_batch, unit


class LinksContract:
    """Needs the ``bound`` fixture (a store bound to an embedder) of ``StoreContract``."""

    def history(self, store, user="u1", *, expires_at=None):
        """Three sessions: Paris (s1), then Porto superseding it (s2), then Lisbon superseding Porto (s3)."""
        s1, [paris] = session_batch(user, "s1", ["I live in Paris"], date=T0)
        s2, [porto] = session_batch(user, "s2", ["I moved to Porto"], date=T0 + timedelta(days=30))
        s3, [lisbon] = session_batch(user, "s3", ["Lisbon is home now"], date=T0 + timedelta(days=60),
                                     expires_at=expires_at)
        porto = replace(porto, supersedes=(paris.record_id,))
        lisbon = replace(lisbon, supersedes=(porto.record_id,))
        for sess, rec, i in ((s1, paris, 0), (s2, porto, 1), (s3, lisbon, 2)):
            store.write([sess], [rec], np.stack([unit(i)]))
        return paris, porto, lisbon

    def test_a_link_is_stored_with_its_record_and_found_from_the_older_side(self, bound):
        paris, porto, lisbon = self.history(bound)
        got = {r.record_id: r for r in bound.get_records("u1", [paris.record_id, porto.record_id, lisbon.record_id])}
        assert got[paris.record_id].supersedes == ()
        assert got[porto.record_id].supersedes == (paris.record_id,)
        assert got[lisbon.record_id].supersedes == (porto.record_id,)
        assert bound.superseding("u1", [paris.record_id, porto.record_id, lisbon.record_id], now=NOW) == {
            paris.record_id: (porto.record_id,), porto.record_id: (lisbon.record_id,)}
        listed = {r.record_id: r.supersedes for r in bound.list_records("u1", now=NOW)}
        assert listed[lisbon.record_id] == (porto.record_id,)
        [hit] = bound.search(Signal.VECTOR, "u1", unit(1), 1, now=NOW)
        assert hit.record.supersedes == (paris.record_id,)
        assert bound.count("u1") == 3  # nothing is deleted by a link

    def test_links_are_never_read_across_users(self, bound):
        paris, porto, _ = self.history(bound)
        assert bound.superseding("u2", [paris.record_id, porto.record_id], now=NOW) == {}
        assert bound.superseding("u1", [], now=NOW) == {}

    def test_a_changed_link_replaces_the_record_and_the_same_is_unchanged(self, bound):
        paris, porto, _ = self.history(bound)
        s2, _ = session_batch("u1", "s2", ["I moved to Porto"], date=T0 + timedelta(days=30))
        res = bound.write([s2], [porto], np.stack([unit(1)]))
        assert (res.inserted, res.replaced, res.unchanged) == (0, 0, 1)
        res = bound.write([s2], [replace(porto, supersedes=())], np.stack([unit(1)]))
        assert (res.inserted, res.replaced, res.unchanged) == (0, 1, 0)
        assert paris.record_id not in bound.superseding("u1", [paris.record_id], now=NOW)

    def test_forgetting_a_session_drops_the_links_to_its_records(self, bound):
        paris, porto, lisbon = self.history(bound)
        bound.forget("u1", "s2")  # Porto goes: Lisbon no longer names it, Paris is no longer superseded
        [left] = bound.get_records("u1", [lisbon.record_id])
        assert left.supersedes == ()
        assert bound.superseding("u1", [paris.record_id, porto.record_id], now=NOW) == {}
        assert bound.count("u1") == 2

    def test_an_expired_link_is_not_read_and_purging_it_drops_it(self, bound):
        paris, porto, lisbon = self.history(bound, expires_at=NOW - timedelta(days=1))
        assert bound.superseding("u1", [porto.record_id], now=NOW) == {}  # Lisbon expired
        assert bound.superseding("u1", [porto.record_id], now=NOW - timedelta(days=2)) == {
            porto.record_id: (lisbon.record_id,)}
        assert bound.purge_expired(NOW) == 1
        assert bound.superseding("u1", [paris.record_id], now=NOW) == {paris.record_id: (porto.record_id,)}

    def test_bad_links_are_refused_and_nothing_is_stored(self, bound):
        sess, [rec] = session_batch("u1", "s1", ["I live in Paris"])
        for links in ((rec.record_id,), ("",), (7,), ["a-list"], tuple(f"r{i}" for i in range(65))):
            with pytest.raises(InvalidInputError, match="supersedes"):
                bound.write([sess], [replace(rec, supersedes=links)], np.stack([unit(0)]))
        assert bound.count("u1") == 0
        with pytest.raises(InvalidInputError):
            bound.superseding("u1", "r1")
