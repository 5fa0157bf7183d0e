"""A signal's candidates as arrays: what retrieval ranks before it reads a single record.

A search of the store contract (``MemoryStore.search``, one ``Signal``) returns hits, each holding its
whole record. Fusing a few signals' pools of 100, lifting their sessions and neighbours and cutting to k
needs only each candidate's score and where it sits (session, kind, position, date, speaker, whether it is
an echo), so ``MemoryStore.search_candidates`` answers the same search with those as columns, best first,
and ``MemoryStore.read_candidates`` reads the records of the few that are returned. The embedded store
fills the columns from what it keeps in memory; any other backend gets them from its hits (and keeps the
records it read).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..models import Hit, MemoryRecord


def _objects(values: Sequence[object]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


@dataclass(frozen=True, eq=False, slots=True)
class Candidates:
    """One signal's candidates for one user, best first (ties in the backend's stable order).

    - ``keys``: the backend's key of each record (unique within the store: a rowid, a record id).
    - ``ids``: the record ids (ties in fused rankings break by them).
    - ``scores``: the signal's raw score (float64).
    - ``sessions``, ``kinds``, ``positions``, ``occurred`` (epoch seconds), ``speakers`` (``None`` for
      none), ``echoes`` (a turn stored restating what its agent step was shown: ``source_ids`` set).
    - ``records``: the records themselves when the backend read them anyway (else ``None``: read them with
      ``MemoryStore.read_candidates``).
    """

    user_id: str
    keys: np.ndarray
    ids: np.ndarray
    scores: np.ndarray
    sessions: np.ndarray
    kinds: np.ndarray
    positions: np.ndarray
    occurred: np.ndarray
    speakers: np.ndarray
    echoes: np.ndarray
    records: tuple[MemoryRecord, ...] | None = None

    def __len__(self) -> int:
        return int(self.keys.size)

    def take(self, idx: np.ndarray) -> Candidates:
        """The candidates at ``idx`` (indices or a boolean mask), in that order."""
        records = None if self.records is None else tuple(self.records[i] for i in np.arange(len(self))[idx])
        return Candidates(self.user_id, self.keys[idx], self.ids[idx], self.scores[idx], self.sessions[idx], self.kinds[idx],
                          self.positions[idx], self.occurred[idx], self.speakers[idx], self.echoes[idx],
                          records)

    @classmethod
    def empty(cls, user_id: str) -> Candidates:
        none = np.empty(0, dtype=object)
        return cls(user_id, none, none, np.empty(0), none, none, np.empty(0, np.int64), np.empty(0), none,
                   np.empty(0, bool), ())

    @classmethod
    def from_records(cls, user_id: str, records: Sequence[MemoryRecord], scores: Sequence[float]) -> Candidates:
        """Records already read, with their scores (keys: their record ids); the records are kept."""
        ids = _objects([r.record_id for r in records])
        return cls(
            user_id,
            ids,
            ids,
            np.asarray(scores, dtype=np.float64).reshape(len(records)),
            _objects([r.session_id for r in records]),
            _objects([r.kind for r in records]),
            np.fromiter((r.position for r in records), np.int64, len(records)),
            np.fromiter((r.occurred_at.timestamp() for r in records), np.float64, len(records)),
            _objects([r.speaker for r in records]),
            np.fromiter((r.kind == "turn" and bool(r.source_ids) for r in records), bool, len(records)),
            tuple(records),
        )

    @classmethod
    def from_hits(cls, user_id: str, hits: Sequence[Hit]) -> Candidates:
        return cls.from_records(user_id, [h.record for h in hits], [h.score for h in hits])


__all__ = ["Candidates"]
