"""Running the agent-loop benchmark (``loop.py`` says what one step does): resumable and deterministic, one
JSONL row per (recipe, variant, question).

Layout of ``out_dir``::

    run.json                               settings (checked when a run is resumed) and invocations
    questions/<recipe>--<variant>.jsonl    one row per question (variants: no_loop, loop, loop_wrong<N>)
    stores/<recipe>--<variant>.db          the loop's own copy of the ingested store, one per loop variant
    loop_summary.json, loop.md             written by ``loop_report``

The ingested stores are the evaluation's (``run_state``: one SQLite memory per haystack, ingest setting and
embedder, in ``store_dir``, shared with ``cbmemory eval``). ``no_loop`` reads that store (read-only); each loop
variant first copies it (SQLite backup) into ``stores/``, so no loop turn ever reaches the cache.

Resumable: rows already written are kept and their questions skipped. Before a conversation goes on, the
loop turns of its rows written so far are saved again (a no-op where they are stored: ``AgentMemory.save``
skips turn ids already in the session), so a run killed between a row and its save goes on with the same
store; a loop session without its row (killed between save and row) is forgotten before its question is
asked again. Rows differ between two runs only in their timings (``loop.TIMINGS``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from cbmemory import AgentMemory, CbMemoryError, Message, Recall
from cbmemory.dates import utcnow
from cbmemory.embedding import CachedEmbedder, MiniLMEmbedder
from cbmemory.ingest import ingest_label, ingest_with_bar
from cbmemory.recipes import Recipe, get_recipe
from cbmemory.store import SCHEMA_VERSION

from .loop import (
    LOOP_VERSION,
    LoopVariant,
    asked_at,
    hits_json,
    loop_session,
    loop_turn_ids,
    loop_variants,
    reply_text,
    right_answer,
    score,
    shown_turn_ids,
    top_line,
    wrong_answer,
)
from .questions import EvalQuestion, EvalSet
from .rows import EvalSetupError
from .run_state import EvalRun, store_file_name
from .runner import read_jsonl

VARIANT = "x1"  # the haystack variant of the evaluation's stores: the conversations as they are
PROTOCOL = ("each question asked in a new session one day after the conversation's last session, ten minutes "
            "per question; recall before the step's turns are saved; loop records never count as evidence")


class LoopError(CbMemoryError):
    """The loop could not do what an agent step does (recall or save failed): its numbers would be wrong."""


class _Clock:
    """The memories' clock: the time the current question is asked (so what is stored is the same every run)."""

    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> datetime:
        return self.now


def versions(embedder: str) -> dict[str, Any]:
    """What every row is stamped with besides its recipe and variant."""
    from importlib.metadata import PackageNotFoundError, version

    def of(dist: str) -> str | None:
        try:
            return version(dist)
        except PackageNotFoundError:
            return None

    return {"cbmemory": of("cbmemory"), "cbmemory_eval": of("cbmemory-eval"), "store_schema": SCHEMA_VERSION,
            "embedder": embedder, "loop": LOOP_VERSION}


def row_file(out: Path, recipe: str, variant: str) -> Path:
    return out / "questions" / f"{recipe}--{variant}.jsonl"


def _questions_sha(eval_set: EvalSet) -> str:
    return hashlib.sha256("\n".join(q.question_id for q in eval_set.questions).encode()).hexdigest()


def copy_store(src: Path, dst: Path) -> None:
    """A consistent copy of the SQLite store ``src`` at ``dst`` (SQLite's online backup; written aside first)."""
    tmp = dst.with_name(dst.name + ".tmp")
    tmp.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(f"file:{src}?mode=ro", uri=True)) as a, \
            contextlib.closing(sqlite3.connect(tmp)) as b:
        a.backup(b)
    tmp.replace(dst)


def _check_settings(path: Path, meta: dict[str, Any]) -> dict[str, Any]:
    if not path.exists():
        return meta
    old = json.loads(path.read_text())
    for key in ("dataset", "k", "ks", "embedder", "loop_version", "fingerprint", "questions_sha256"):
        if old.get(key) != meta.get(key):
            raise EvalSetupError(f"{path.parent} holds a loop run with {key}={old.get(key)!r}, not "
                                 f"{meta.get(key)!r}; use another --out or --fresh")
    for name, desc in meta["recipes"].items():
        if name in old.get("recipes", {}) and Recipe.from_dict(old["recipes"][name]) != Recipe.from_dict(desc):
            raise EvalSetupError(f"{path.parent}: recipe {name!r} was run with other settings; use another --out "
                                 "or --fresh")
    merged = {**old, **{k: v for k, v in meta.items() if k not in ("recipes", "variants", "invocations")}}
    merged["recipes"] = {**old.get("recipes", {}), **meta["recipes"]}
    merged["variants"] = list(dict.fromkeys([*old.get("variants", []), *meta["variants"]]))
    merged["invocations"] = old.get("invocations", [])
    return merged


def run_loop(eval_set: EvalSet, out_dir: str | Path, recipes: Sequence[str | Recipe], *, k: int = 10,
             ks: Sequence[int] = (1, 5, 10), wrong_every: int | None = 5, embedder: Any = None,
             store_dir: str | Path | None = None, fresh: bool = False, progress: bool = True,
             settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run the loop benchmark for each recipe (a name or a ``Recipe``, e.g. a retrieval variant made with
    ``get_recipe("default").with_(name=..., ...)``) on ``eval_set`` (LoCoMo, one user per conversation),
    writing rows under ``out_dir``; returns the run's settings. ``store_dir``: the evaluation's ingested
    stores (default ``out_dir/cache``; share ``cbmemory eval``'s ``--cache-dir`` to skip the ingest)."""
    out = Path(out_dir)
    if fresh:
        for name in ("questions", "stores"):
            shutil.rmtree(out / name, ignore_errors=True)
        (out / "run.json").unlink(missing_ok=True)
    (out / "questions").mkdir(parents=True, exist_ok=True)
    (out / "stores").mkdir(parents=True, exist_ok=True)
    chosen = [get_recipe(r) for r in recipes]
    ks = sorted({c for c in ks if c <= k} | {k})
    variants = loop_variants(wrong_every)
    embedder = embedder if embedder is not None else MiniLMEmbedder()
    cache = Path(store_dir) if store_dir is not None else out / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    run = EvalRun({VARIANT: eval_set}, out, [], k=k, ks=ks, qa=None, embedder=embedder, store_dir=cache,
                  progress=progress, workers=1)
    meta: dict[str, Any] = {
        "dataset": eval_set.dataset, "k": k, "ks": ks, "embedder": embedder.name, "loop_version": LOOP_VERSION,
        "fingerprint": run.fingerprints[VARIANT], "questions_sha256": _questions_sha(eval_set),
        "wrong_every": wrong_every, "variants": [v.name for v in variants], "protocol": PROTOCOL,
        "recipes": {r.name: r.to_dict() for r in chosen}, "categories": [
            {"name": c.name, "code": c.code, "alt_label": c.alt_label, "unanswerable": c.unanswerable}
            for c in eval_set.categories],
        **dict(settings or {}),
    }
    path = out / "run.json"
    meta = _check_settings(path, meta)
    path.write_text(json.dumps(meta, indent=1, default=str))
    started, load = time.perf_counter(), os.getloadavg()[0]
    try:
        for recipe in chosen:
            _run_recipe(run, out, recipe, variants, k=k, ks=ks)
    finally:
        run.close()
        meta["invocations"] = [*meta.get("invocations", []), {
            "started": utcnow().isoformat(timespec="seconds"), "wall_s": round(time.perf_counter() - started, 1),
            "load_1min_at_start": round(load, 2), "cpus": os.cpu_count(), "recipes": [r.name for r in chosen],
            "variants": [v.name for v in variants]}]
        path.write_text(json.dumps(meta, indent=1, default=str))
    return meta


def _by_user(eval_set: EvalSet) -> dict[str, list[EvalQuestion]]:
    users: dict[str, list[EvalQuestion]] = {}
    for q in eval_set.questions:
        users.setdefault(q.user_id, []).append(q)
    return users


def _run_recipe(run: EvalRun, out: Path, recipe: Recipe, variants: Sequence[LoopVariant], *, k: int,
                ks: Sequence[int]) -> None:
    from tqdm import tqdm

    eval_set = run.variants[VARIANT]
    users = _by_user(eval_set)
    if any(s.session_id.startswith("loop-") for u in users for s in eval_set.haystacks[u].sessions):
        raise EvalSetupError("a conversation has a session named loop-*: the loop could not tell its turns apart")
    interval = 0.2 if sys.stderr.isatty() else 15.0

    def ingest_one(user: str) -> Any:
        run.ensure_user(VARIANT, recipe.ingest, user)
        return run.writes.get((VARIANT, recipe.ingest.key, user))

    ingest_with_bar([(u, eval_set.haystacks[u].turns) for u in users], ingest_one, label=ingest_label(recipe.ingest),
                    enabled=run.progress, mininterval=interval)
    cache = run.store_dir / store_file_name(run.fingerprints[VARIANT], recipe.ingest, run.embedder.name)
    files = {v.name: row_file(out, recipe.name, v.name) for v in variants}
    done = {v.name: {r["question_id"]: r for r in read_jsonl(files[v.name])} for v in variants}
    shared, clock = CachedEmbedder(run.embedder), _Clock()  # one query embedding per question for every variant
    mems: dict[str, Any] = {}
    try:
        for v in variants:
            path = cache
            if v.loop:
                path = out / "stores" / f"{recipe.name}--{v.name}.db"
                if not path.exists():
                    copy_store(cache, path)
            mems[v.name] = AgentMemory.open(path, read_only=not v.loop, embedder=shared, recipe=recipe, clock=clock)
        total = sum(1 for v in variants for qs in users.values() for q in qs if q.question_id not in done[v.name])
        with contextlib.ExitStack() as stack:
            handles = {n: stack.enter_context(open(p, "a", encoding="utf-8")) for n, p in files.items()}
            bar = stack.enter_context(tqdm(total=total, desc=f"loop {recipe.name}", unit="q", file=sys.stderr,
                                           disable=not run.progress, mininterval=interval))
            stamp = versions(run.embedder.name)
            for user, qs in users.items():
                bar.set_postfix_str(user)
                _run_user(user, qs, recipe, variants, mems, done, handles, shared, clock, stamp, k=k, ks=ks,
                          bar=bar)
    finally:
        for m in mems.values():
            m.close()


def _save(mem: Any, user: str, q: EvalQuestion, reply: str, when: datetime, found: Recall) -> None:
    """The step's two turns, through the adapters' save path, with the recall its model answered from."""
    session = loop_session(q)
    uid, aid = loop_turn_ids(session)
    faults: list[Any] = []
    turns = [Message("user", q.question, turn_id=uid), Message("assistant", reply, turn_id=aid)]
    # None without a fault: both turns were stored already (a resumed run replaying a step it had saved)
    if mem.save(user, session, turns, date=when, shown=found, on_error=faults.append) is None and faults:
        raise LoopError(f"{q.question_id}: the step's turns were not saved ({'; '.join(f.detail for f in faults)})")


def _replay(user: str, qs: Sequence[EvalQuestion], v: LoopVariant, mem: Any, rows: Mapping[str, dict],
            clock: _Clock, recipe: Recipe, k: int) -> None:
    """Save again the loop turns of the rows written (in order), each with the recall it was answered from
    (recalled again: the store is as it was then); refuse a gap (a row missing before one written)."""
    written = [q.question_id in rows for q in qs]
    if any(not a and b for a, b in zip(written, written[1:], strict=False)):
        raise EvalSetupError(f"{user} ({v.name}): rows are missing before rows written; rerun with --fresh")
    for n, q in enumerate(qs, 1):
        if q.question_id in rows:
            clock.now = asked_at(q, n)
            found = mem.recall(q.question, user, shown=_prompt(q), today=clock.now, recipe=recipe, k=k)
            _save(mem, user, q, rows[q.question_id]["reply"]["text"], clock.now, found)


def _prompt(q: EvalQuestion) -> list[Message]:
    """What the prompt holds when the step recalls: the question."""
    return [Message("user", q.question, turn_id=loop_turn_ids(loop_session(q))[0])]


def _run_user(user: str, qs: Sequence[EvalQuestion], recipe: Recipe, variants: Sequence[LoopVariant],
              mems: Mapping[str, Any], done: Mapping[str, Mapping[str, dict]], handles: Mapping[str, Any],
              shared: CachedEmbedder, clock: _Clock, stamp: Mapping[str, Any], *, k: int, ks: Sequence[int],
              bar: Any) -> None:
    for v in variants:
        if v.loop:
            _replay(user, qs, v, mems[v.name], done[v.name], clock, recipe, k)
    for n, q in enumerate(qs, 1):
        pending = [v for v in variants if q.question_id not in done[v.name]]
        if not pending:
            continue
        clock.now = when = asked_at(q, n)
        start = time.perf_counter()
        shared.embed_query(q.question, user_id=user)  # every variant's search then finds it cached
        embed_ms = (time.perf_counter() - start) * 1000
        session = loop_session(q)
        for v in pending:
            mem = mems[v.name]
            if v.loop and mem.session_records(user, session, limit=1):  # saved, but its row was never written
                mem.forget(user, session)
            rec, found = ask(mem, user, q, n, qs, recipe, v, when, k=k, ks=ks)
            rec["metrics"]["embed_ms"] = embed_ms
            rec["versions"] = dict(stamp)
            handles[v.name].write(json.dumps(rec, ensure_ascii=False) + "\n")
            handles[v.name].flush()
            if v.loop:  # after the row: a run killed in between saves it again when resumed (_replay)
                _save(mem, user, q, rec["reply"]["text"], when, found)
            bar.update(1)


def ask(mem: Any, user: str, q: EvalQuestion, n: int, qs: Sequence[EvalQuestion], recipe: Recipe,
        v: LoopVariant, when: datetime, *, k: int, ks: Sequence[int]) -> tuple[dict[str, Any], Recall]:
    """One agent step's recall, scored, and the reply its model gives (nothing is saved here): the row, and
    the recall (what the step's save links echoes to)."""
    session = loop_session(q)
    faults: list[Any] = []
    start = time.perf_counter()
    found = mem.recall(q.question, user, shown=_prompt(q), today=when, recipe=recipe, k=k, on_error=faults.append)
    latency = (time.perf_counter() - start) * 1000
    if found.fault is not None:
        raise LoopError(f"{q.question_id} ({v.name}): recall failed: {found.fault.detail}")
    metrics = score(q, found, ks)
    metrics["latency_ms"] = latency
    reply = None
    if v.loop:
        wrong = v.wrong(n)
        answer = wrong_answer(qs, n - 1) if wrong else right_answer(q)
        reply = {"text": reply_text(top_line(found, recipe.context), answer), "answer": answer, "wrong": wrong}
    return {
        "question_id": q.question_id, "user_id": user, "n": n, "category": q.category,
        "category_code": q.category_code, "unanswerable": q.unanswerable, "question": q.question, "gold": q.answer,
        "evidence": list(q.evidence), "variant": v.name, "recipe_name": recipe.name, "recipe": recipe.to_dict(),
        "asked_at": when.isoformat(), "session_id": session if v.loop else None, "k": k,
        "hits": hits_json(found), "shown_turn_ids": shown_turn_ids(found), "metrics": metrics, "reply": reply,
    }, found


__all__ = ["LoopError", "ask", "copy_store", "row_file", "run_loop", "versions"]
