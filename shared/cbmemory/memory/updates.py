"""Write-time links of a user's statements to the earlier ones they change (``MemoryRecord.supersedes``),
from cheap evidence (``cbmemory.ingest.updates.changes``): no LLM call. Only a user statement that makes a
claim (``cbmemory.claims.claims``: the user's own plain statement of a kind of fact) is looked at,
and its candidates are the user's nearest earlier statements, by embedding, that claim a fact of the same
kind: ``MAX_CANDIDATES`` from the store (one exact vector search of ``SEARCHED`` of the user's turns before
the new turn's date, the assistant's left out) and as many from the batch itself (earlier turns written
with it, e.g. a whole conversation at once). The cost per user turn is a few regular expressions; per claim
(88 of the 1,826 user statements of LoCoMo dev), one vector search of ``SEARCHED`` and one rule check per candidate.

With an LLM enricher in ``facts`` mode, a statement may also carry slot keys (``cbmemory.ingest.slots``):
then it supersedes, per key, the user's latest earlier statement with the same key and another value
(``keyed``: one ``list_records`` per key), those links joining the rules' (the same field, ``MAX_LINKS``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from ..claims import claims
from ..ingest.config import IngestConfig
from ..ingest.slots import grounded, marker, same_value, slots_of
from ..ingest.updates import MAX_CANDIDATES, changes
from ..models import MemoryRecord, SearchFilters, conversation_order
from ..store.base import MAX_LINKS, MemoryStore
from ..store.signals import Signal
from ..text import stated

SEARCHED = 16 * MAX_CANDIDATES  # turns searched for the user's MAX_CANDIDATES nearest earlier claims
SLOT_SEARCHED = 8  # the user's latest turns with a slot key read per key (later turns of the same day among them)


def _said(r: MemoryRecord) -> str:
    """What a user's turn states (``text.stated``: its questions left out); "" for any other record."""
    return stated(r.text) if r.kind == "turn" and r.role == "user" else ""


def _is_statement(r: MemoryRecord) -> bool:
    return bool(_said(r))


def linked(store: MemoryStore, records: Sequence[MemoryRecord], vectors: np.ndarray,
           now: datetime, ingest: IngestConfig) -> list[MemoryRecord]:
    """``records`` (row i of ``vectors`` is record i's), each user statement with ``supersedes`` set to the
    earlier statements of its user it changes (records that already carry links keep them), when
    ``ingest.link_updates`` is on; else ``records`` as they are."""
    out = list(records)
    if not ingest.link_updates:
        return out
    # only a statement that claims a fact of the user (cbmemory.claims) or carries an enricher's slot keys
    # (ingest.slots) can change one: no search else
    kinds_of = {i: claims(said).keys() for i, r in enumerate(records) if not r.supersedes and (said := _said(r))}
    mine = [i for i, k in kinds_of.items() if k or slots_of(records[i])]
    if not mine:
        return out
    ids = {r.record_id for r in records}
    vecs = np.asarray(vectors, dtype=np.float32)
    for user in sorted({records[i].user_id for i in mine}):
        rows = sorted((i for i in mine if records[i].user_id == user), key=lambda i: conversation_order(records[i]))
        statements = [r for r in records if r.user_id == user and _is_statement(r)]  # linked already or not
        # each claim's kinds as bits, so that the earlier claims of a kind are found without a loop; each row's
        # similarities are computed for those alone (no rows x rows matrix: a bulk import may hold thousands)
        bit = {k: 1 << n for n, k in enumerate(sorted({k for i in rows for k in kinds_of[i]}))}
        bits = np.array([sum(bit[k] for k in kinds_of[i]) for i in rows], dtype=np.int64)
        block = vecs[rows]
        for j, i in enumerate(rows):
            rec = records[i]
            kinds = kinds_of[i]  # the kinds of fact it claims: only a claim of one of them can change
            found: dict[str, tuple[MemoryRecord, float]] = {}
            same = np.flatnonzero(bits[:j] & bits[j])  # the earlier claims of a kind it claims
            sims = block[same] @ block[j]
            nearest = np.argsort(-sims, kind="stable")[:MAX_CANDIDATES]
            for e, sim in zip(same[nearest].tolist(), sims[nearest].tolist(), strict=True):
                found[records[rows[e]].record_id] = (records[rows[e]], sim)
            # the nearest turns are often the assistant's replies (indexed with the turn they answer) or the
            # user's chat or claims of other facts: search deeper and keep the user's first MAX_CANDIDATES
            # statements that claim a fact of the same kind
            if kinds:  # a claim: the store's nearest earlier claims of the same kind
                kept = 0
                for hit in store.search(Signal.VECTOR, user, vecs[i], SEARCHED, SearchFilters(
                        kinds=("turn",), occurred_before=rec.occurred_at), now=now):
                    old = hit.record
                    if (old.record_id not in ids and conversation_order(old) < conversation_order(rec)
                            and (said := _said(old)) and claims(said).keys() & kinds):
                        found.setdefault(old.record_id, (old, hit.score))
                        kept += 1
                        if kept == MAX_CANDIDATES:
                            break
            links = [rid for rid, (old, score) in sorted(found.items(), key=lambda kv: -kv[1][1])
                     if changes(rec.text, old.text, score)]
            if slots_of(rec):
                before = [r for r in statements if conversation_order(r) < conversation_order(rec)]
                links += [rid for rid in keyed(store, rec, before, ids, now) if rid not in links]
            if links:
                out[i] = dataclasses.replace(rec, supersedes=tuple(links[:MAX_LINKS]))
    return out


def keyed(store: MemoryStore, rec: MemoryRecord, earlier: Sequence[MemoryRecord], batch: set[str],
          now: datetime) -> list[str]:
    """The ids of the statements ``rec`` supersedes by the slot keys an LLM enricher gave its facts
    (``cbmemory.ingest.slots``; none without them): for each key K of ``rec``, the user's latest earlier
    statement with key K, when its value differs. ``earlier``: the user's statements of the same write
    before ``rec``; the store is asked for its latest ``SLOT_SEARCHED`` turns with K (one ``list_records``
    per key), those of the write left out (the write's version is newer). A stored key whose value is not in its
    turn's words (``slots.grounded``: written before that check, a small model's copied example) counts as none."""
    out: list[str] = []
    for key, value in sorted(slots_of(rec).items()):
        found = [r for r in earlier if key in slots_of(r)]
        found += [r for r in store.list_records(
            rec.user_id, SearchFilters(kinds=("turn",), annotations=marker(key), occurred_before=rec.occurred_at),
            limit=SLOT_SEARCHED, newest_first=True, now=now)
            if r.record_id not in batch and _is_statement(r) and conversation_order(r) < conversation_order(rec)]
        found = [r for r in found if grounded(slots_of(r)[key], r.text)]
        if found:
            latest = max(found, key=conversation_order)
            if not same_value(slots_of(latest)[key], value) and latest.record_id not in out:
                out.append(latest.record_id)
    return out
