"""Running the knowledge-update benchmark: build each conversation's memory, append the injected turns,
ask every case's question through ``AgentMemory.recall`` (the default recipe unless told otherwise) and
score what it shows (``metrics``).

The plain haystack of a conversation (×1, or ×N with ``scale``'s distractor sessions) is ingested once into
``cache_dir/base-<key>.db``, keyed by the conversation, scale, seed, embedder, ingest settings and a hash of
the installed ``cbmemory`` sources but the read side (so a product that stores differently builds its stores again). Each run copies it and
appends the injected turns with ``add_messages``, session by session in date order, as an agent's saves
would: the plain sessions are all stored before the injected turns (a product that links a statement to
earlier ones must read dates, not storage order).
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cbmemory
from cbmemory import AgentMemory, Hit, MemoryRecord
from cbmemory.recipes import get_recipe

from ..run_state import hash_sessions
from .generate import UpdateCase, appended
from .metrics import case_metrics

READ_SIDE = ("retrieval", "context")  # packages that only read: left out of the store key


@functools.cache
def source_hash() -> str:
    """A hash of the installed ``cbmemory`` package's Python sources that can change what is stored (every
    module but the read side, ``READ_SIDE``): part of every base store's key. Read once per process, so the
    sources changing under a run do not change its keys midway."""
    root = Path(cbmemory.__file__).resolve().parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if rel.parts[0] in READ_SIDE:
            continue
        h.update(str(rel).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _units(record: MemoryRecord) -> set[str]:
    return {t for t in (record.turn_id, *record.source_ids) if t}


def ranked_turns(hits: Sequence[Hit]) -> list[set[str]]:
    """Per hit (best first) the turn ids its passage shows: the hit's record and its window."""
    return [set().union(*(_units(r) for r in (h.record, *h.context))) for h in hits]


def record_marks(memory: Any, user_id: str, hits: Sequence[Hit]) -> dict[str, bool] | None:
    """Per shown turn id, whether the context marks its record as changed: the records the hits say a
    later memory changed (``Hit.changed``, what the context stage marks ``[changed on DATE ...]``); on a
    product that keeps links but does not mark them, a later live record supersedes it
    (``MemoryStore.superseding``); ``None`` when the product keeps no such links at all."""
    shown = [r for h in hits for r in (h.record, *h.context)]
    if hasattr(Hit, "changed"):
        changed = {rid for h in hits for rid in getattr(h, "changed", {})}
    elif hasattr(memory.store, "superseding"):
        changed = set(memory.store.superseding(user_id, [r.record_id for r in shown]))
    else:
        return None
    out: dict[str, bool] = {}
    for r in shown:
        for t in _units(r):
            out[t] = out.get(t, False) or r.record_id in changed
    return out


def link_finder(memory: Any, user_id: str) -> Callable[[Sequence[str], Sequence[str]], bool | None]:
    """A function (newer turns, older turns) -> whether a record of the newer turns supersedes one of the
    older (write-time links, read once per user); it returns ``None`` when the product keeps no links."""
    if not hasattr(MemoryRecord, "supersedes"):
        return lambda newer, older: None
    recs = memory.session_records(user_id, kinds=None)
    by_turn = {t: r.record_id for r in recs for t in _units(r)}

    def found(newer: Sequence[str], older: Sequence[str]) -> bool | None:
        olds = {by_turn[t] for t in older if t in by_turn}
        return any(olds & set(getattr(r, "supersedes", ())) for r in recs if _units(r) & set(newer))

    return found


Marker = Callable[[Any, str, Sequence[Hit]], "dict[str, bool] | None"]


def base_store(haystack, cache_dir: Path, *, label: str, embedder, memory_options: dict[str, Any]) -> Path:
    """The ingested plain haystack (built once per key: user, label, embedder, ingest settings, the
    benchmark's source and every session and turn of the haystack, so another seed or file never reuses it)."""
    ingest = memory_options.get("ingest") or get_recipe(memory_options.get("recipe", "default")).ingest
    key = hash_sessions(hashlib.sha256(json.dumps([haystack.user_id, label, embedder.name, ingest.key,
                                                   source_hash()]).encode()), haystack)  # its turns too: seed, file
    path = cache_dir / f"base-{haystack.user_id}-{label}-{key.hexdigest()[:12]}.db"
    if path.exists():
        return path
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.db")
    tmp.unlink(missing_ok=True)
    mem = AgentMemory.open(tmp, embedder=embedder, **memory_options)
    try:
        mem.add_sessions(haystack.user_id, haystack.batches())
    finally:
        mem.close()
    tmp.replace(path)
    return path


def run_cases(haystacks: dict, cases: Sequence[UpdateCase], work_dir: Path, cache_dir: Path, *, label: str,
              embedder, memory_options: dict[str, Any] | None = None, recall_options: dict[str, Any] | None = None,
              marker: Marker = record_marks, keep_text: bool = False,
              answer: Callable[[UpdateCase, Any], dict[str, Any]] | None = None,
              answer_ids: frozenset[str] | set[str] = frozenset()) -> list[dict[str, Any]]:
    """Score every case; one record per case (its metrics and what it is). ``label`` names the haystack
    variant (``x1``, ``x10``) in store names. ``answer`` (``reader.make_answerer``): the reader, asked the
    questions of ``answer_ids`` only."""
    opts = dict(memory_options or {})
    work_dir.mkdir(parents=True, exist_ok=True)
    by_user: dict[str, list[UpdateCase]] = {}
    for c in cases:
        by_user.setdefault(c.user_id, []).append(c)
    plan = appended(cases)
    out = []
    for user, user_cases in by_user.items():
        hs = haystacks[user]
        base = base_store(hs, cache_dir, label=label, embedder=embedder, memory_options=opts)
        path = work_dir / f"{user}-{label}-{user_cases[0].family}.db"
        path.unlink(missing_ok=True)
        shutil.copyfile(base, path)
        dates = {s.session_id: s.date for s in hs.sessions}
        mem = AgentMemory.open(path, embedder=embedder, **opts)
        try:
            for sid, msgs in sorted(plan[user], key=lambda p: (dates[p[0]], p[0])):
                mem.add_messages(user, sid, msgs, date=dates[sid])
            linked = link_finder(mem, user)
            for c in user_cases:
                rec = mem.recall(c.question, user, today=c.question_date, **(recall_options or {}))
                hits = list(rec.hits)  # best first (rec.context.hits: in the order shown)
                row = {"case_id": c.case_id, "user_id": user, "kind": c.kind, "family": c.family,
                       "variant": c.variant, "is_change": c.is_change, "scale": label, "question": c.question,
                       "current": c.current, "stale": c.stale,
                       **case_metrics(c.current_turns, c.stale_turns, ranked_turns(hits),
                                      marks=marker(mem, user, hits), tokens=rec.context.tokens),
                       # a change: the new statement links to the old one; a non-change: someone else's fact
                       # links to the user's own (a false link)
                       "linked": linked(c.current_turns, c.stale_turns) if c.is_change
                       else linked(c.stale_turns, c.current_turns)}
                if keep_text:
                    row["text"] = rec.text
                if answer is not None and c.case_id in answer_ids:
                    row["reader"] = answer(c, rec)
                out.append(row)
        finally:
            mem.close()
    return out
