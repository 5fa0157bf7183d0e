"""The write pipeline behind ``AgentMemory``'s writes (``add_session(s)``, ``add_messages``, ``enrich``):
bind the embedder (and sparse encoder) to the store at the first write, enrich with cached facts, embed,
write the raw records and long ones' passages, purge what expired, derive with the LLM and write (merge)
what it derives. ``AgentMemory`` holds the state (store, embedder, ingest settings, enricher, clock)."""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np

from ..embedding.base import CachedEmbedder
from ..embedding.sparse import SparseEncoder, SparseVector
from ..errors import InvalidInputError, SparseEncoderBoundError, StoreUnavailableError, WriteConflictError
from ..ingest import RAW_KINDS, EnrichConfig, IngestConfig, with_passages
from ..models import IngestResult, MemoryRecord, Message, SearchFilters, Session
from ..retrieval.statements import KEPT_FORM, kept_texts
from ..store.base import MemoryStore, WriteMode
from ..store.turns import writes_allowed
from ..text import content_hash
from ..validation import check_id
from .reading import linked, plan_append, stored_raw
from .sparse import bound_encoder, top_up

if TYPE_CHECKING:  # the enrichment modules load when an enrichment runs: import cbmemory loads none
    from ..ingest.enrich import Derivation, Enricher, EnrichReport

APPEND_TRIES = 100
# Turns of a store written before what turns state was kept given those vectors per write, until none is left: on
# conv-41 x10 (2 cores) a one-turn write took 305-451 ms with 32 (18 ms without), 482-695 ms with 64.
KEEP_PER_WRITE = 32
PURGE_INTERVAL = timedelta(minutes=1)
LOG = logging.getLogger("cbmemory.memory")
_APPEND_LOCKS = tuple(threading.Lock() for _ in range(64))  # striped by (user, session)


class Writing:
    """The write sequence ``AgentMemory`` inherits; the attributes are set by its constructor."""

    store: MemoryStore
    embedder: CachedEmbedder
    ingest: IngestConfig
    enricher: Enricher | None
    sparse_encoder: SparseEncoder | None
    clock: Callable[[], datetime]
    default_ttl: timedelta | None
    _bound: bool
    _unfilled: bool
    _kept_after: dict[str, str | None]
    _last_purge: datetime | None

    def _bind(self) -> None:
        if not self._bound and writes_allowed():  # not in a recall (turns.reads_only): its first write binds
            self.store.bind_embedder(self.embedder.name, self.embedder.dimension)
            if self.sparse_encoder is not None:
                self.store.bind_sparse_encoder(self.sparse_encoder.name)
                self._unfilled = True  # a read-only store's sparse searches check instead (search)
            self._bound = True
        if self._unfilled and self.sparse_encoder is not None:
            self._unfilled = not top_up(self.store, self.sparse_encoder)

    def _sparse_searched(self, recipe: str) -> None:
        """A search with ``recipe``, which searches sparse vectors, by this memory, which writes none: the
        encoder another process bound to the store since this memory opened is adopted; with none bound,
        the search is refused (``InvalidInputError``)."""
        if (bound := self.store.bound_sparse_encoder) is None:
            raise InvalidInputError(
                f"recipe {recipe!r} searches sparse vectors, which this memory does not write: open it with "
                f"recipe={recipe!r} (or ingest=recipe.ingest) before adding memories, so each record gets one")
        self._adopt_sparse(bound)

    def _adopt_sparse(self, name: str) -> None:
        """Another writer bound the sparse encoder ``name`` to the store since this memory opened without
        one (seen at a write or a sparse search): do what opening after the binding does (load it, fill the
        records without a vector unless the store is read-only); every later write carries vectors."""
        encoder = bound_encoder(name)
        self.store.bind_sparse_encoder(encoder.name)  # bound already: only checks
        self.sparse_encoder = encoder
        self.ingest = dataclasses.replace(self.ingest, sparse=encoder.name)
        self._unfilled = not top_up(self.store, encoder)

    def _write(self, sessions: list[Session], records: list[MemoryRecord], mode: WriteMode) -> IngestResult:
        """The one write sequence (records validated and built by the caller): enrich with cached facts, embed,
        write the raw records and long ones' passages (``ingest.passages``), derive with the LLM, write (merge)."""
        self._bind()
        enricher = self.enricher if self.ingest.enrich is not None else None
        if enricher is not None and self.ingest.rewrites_raw:  # cached facts only: no LLM call before the raw write
            records = enricher.prepare(records, ingest=self.ingest, stored=stored_raw(self.store, records, self.clock()))
        result = self._store(sessions, with_passages(records, self.ingest), mode)  # a long message's passages too
        self._keep_older(dict.fromkeys(r.user_id for r in records))
        self._purge()
        if enricher is not None:  # LLM calls, after the raw records are stored
            self._derive(enricher, sessions, records, self.ingest, stored_raw(self.store, records, self.clock()))
        return result

    def _keep_older(self, users: Iterable[str]) -> None:
        """Give up to ``KEEP_PER_WRITE`` turns of each user written, stored before what turns state was kept (by an
        older version) or kept in an earlier form (``KEPT_FORM``), the vectors a write keeps now (``kept_texts``), in
        record-id order from where this memory's last look stopped, so a turn that states nothing is looked at once;
        never in a search, a read-only store or one that keeps none. The write is stored before: a store locked by
        another writer meanwhile is left for the next write, and any other fault (a hosted embedder's) is logged and
        ends that user's backfill in this memory, without failing the write (a first-person question then embeds
        those turns on its first read, as before)."""
        if not self.store.keeps_derived or self.store.read_only or not writes_allowed():
            return
        for user in users:
            after = self._kept_after.get(user, "")
            if after is None:
                continue
            try:
                turns = self.store.turns_to_keep(user, after, limit=KEEP_PER_WRITE, form=KEPT_FORM)
                if kept := self._with_kept(user, turns, [])[1]:
                    self.store.keep_derived(user, kept, form=KEPT_FORM)
            except StoreUnavailableError:
                continue
            except Exception as exc:  # noqa: BLE001 - an optional speed-up must not fail a write already stored
                LOG.warning("vectors of %r's older turns not kept (%s: %s); this memory keeps no more of theirs",
                            user, type(exc).__name__, exc)
                self._kept_after[user] = None
                continue
            self._kept_after[user] = turns[-1].record_id if turns and len(turns) == KEEP_PER_WRITE else None

    def _purge(self) -> None:
        """Erase expired records at most once per ``PURGE_INTERVAL`` of the memory's clock (they are hidden
        from every read as soon as they expire; erasing them rewrites the file, so it is not done per write)."""
        now = self.clock()
        if self._last_purge is None or not timedelta(0) <= now - self._last_purge < PURGE_INTERVAL:
            self.store.purge_expired(now)
            self._last_purge = now

    def _store(self, sessions: Sequence[Session], records: Sequence[MemoryRecord], mode: WriteMode) -> IngestResult:
        vectors, derived = self._embedded(records)
        records = linked(self.store, records, vectors, self.clock(), self.ingest)
        try:
            return self.store.write(sessions, records, vectors, mode=mode, sparse=self._encode_sparse(records),
                                    derived=derived, derived_form=KEPT_FORM)
        except SparseEncoderBoundError as exc:  # bound by another writer since this memory opened: nothing written
            if self.sparse_encoder is not None:
                raise
            self._adopt_sparse(exc.encoder)
        return self.store.write(sessions, records, vectors, mode=mode, sparse=self._encode_sparse(records),
                                derived=derived, derived_form=KEPT_FORM)

    def _embedded(self, records: Sequence[MemoryRecord]) -> tuple[np.ndarray, dict[str, dict[str, np.ndarray]] | None]:
        """The records' vectors and, where the store keeps them (``keeps_derived``), those of the texts the
        current-value stage embeds of them (``kept_texts``) by content hash, each user's in one embedding call."""
        if not self.store.keeps_derived:
            return self.embedder.embed_records(records), None
        vectors = np.empty((len(records), self.embedder.dimension), dtype=np.float32)
        derived: dict[str, dict[str, np.ndarray]] = {}
        for user in dict.fromkeys(r.user_id for r in records):
            idx = [i for i, r in enumerate(records) if r.user_id == user]
            vectors[idx], kept = self._with_kept(user, [records[i] for i in idx], [records[i].index_text for i in idx])
            derived.update(kept)
        return vectors, derived

    def _with_kept(self, user: str, records: Sequence[MemoryRecord], texts: Sequence[str]
                   ) -> tuple[np.ndarray, dict[str, dict[str, np.ndarray]]]:
        """``texts`` embedded for ``user`` together with what the user's ``records`` state (``kept_texts``), in one
        call: the texts' vectors, and the kept ones by record id and content hash."""
        parts = {r.record_id: kept_texts(r) for r in records}
        said = [t for ts in parts.values() for t in ts]
        if not texts and not said:
            return np.empty((0, self.embedder.dimension), dtype=np.float32), {}
        vecs = self.embedder.embed([*texts, *said], user_id=user)
        rest = iter(vecs[len(texts):])
        return vecs[:len(texts)], {rid: {content_hash(t): next(rest) for t in ts} for rid, ts in parts.items() if ts}

    def _encode_sparse(self, records: Sequence[MemoryRecord]) -> list[SparseVector] | None:
        encoder = self.sparse_encoder
        return encoder.encode_documents([r.index_text for r in records]) if encoder is not None else None

    def _derive(self, enricher: Enricher, sessions: Sequence[Session], records: Sequence[MemoryRecord],
                ingest: IngestConfig, stored: Sequence[MemoryRecord]) -> EnrichReport:
        derivation: Derivation = enricher.derive(records, ingest=ingest, now=self.clock(), stored=stored)
        if not derivation.records:
            return derivation.report
        affected = {(r.user_id, r.session_id) for r in derivation.records}
        result = self._store([s for s in sessions if (s.user_id, s.session_id) in affected], derivation.records,
                             "merge")
        return dataclasses.replace(derivation.report, write=result)

    def _enrich_stored(self, user_id: str, session_ids: Sequence[str] | None,
                       config: EnrichConfig | None) -> EnrichReport:
        """``AgentMemory.enrich`` (``user_id`` checked): the enricher's modes over the stored raw records of
        the sessions, then what they derive embedded and written."""
        from ..ingest.enrich import EnrichReport

        if self.enricher is None:
            raise InvalidInputError("no enricher: open the memory with enricher=Enricher(llm)")
        cfg = config or self.ingest.enrich
        if cfg is None:
            raise InvalidInputError("no enrichment modes: pass config=EnrichConfig(modes=(...))")
        wanted = None if session_ids is None else {check_id(s, "session_id") for s in session_ids}
        sessions = [s for s in self.store.list_sessions(user_id) if wanted is None or s.session_id in wanted]
        if not sessions:
            return EnrichReport()
        self._bind()
        f = SearchFilters(session_ids=tuple(s.session_id for s in sessions), kinds=RAW_KINDS)
        records = self.store.list_records(user_id, f, now=self.clock())
        return self._derive(self.enricher, sessions, records, dataclasses.replace(self.ingest, enrich=cfg), records)

    def _append_retried(self, user_id: str, session_id: str, msgs: list[Message], occurred: datetime | None,
                        expires: Callable[[datetime], datetime | None]) -> IngestResult:
        """``add_messages``' write: the append is planned after what the session holds when the write commits;
        if another writer appended first (``WriteConflictError``), it is planned again after it. Appends from
        this process take turns (a lock per user and session); other processes are caught at commit."""
        lock = _APPEND_LOCKS[hash((user_id, session_id)) % len(_APPEND_LOCKS)]
        for attempt in range(APPEND_TRIES):
            with lock:
                try:
                    now = self.clock()
                    plan = plan_append(self.store, self.ingest, user_id, session_id, msgs, occurred or now, now,
                                       expires(now))
                    if not plan.records:  # every message stored already: a retried append
                        return IngestResult(0, 0, plan.known, ())
                    return self._write([plan.session], plan.records, "append")
                except WriteConflictError:
                    if attempt == APPEND_TRIES - 1:
                        raise
            time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        raise AssertionError("unreachable")


__all__ = ["APPEND_TRIES", "PURGE_INTERVAL", "Writing"]
