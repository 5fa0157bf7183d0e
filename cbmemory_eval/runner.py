"""Running an evaluation: ingest once per ingest setting, retrieve per recipe, score, write JSONL.

Layout of ``out_dir``::

    run.json                 settings of the run (checked when a run is resumed)
    questions/<row>.jsonl    one line per question: hits, metrics, latency, answer and verdicts
    stores/<hash>.db         one SQLite memory per (haystack, ingest setting, embedder); reusable
    summary.json, matrix.md, heatmap.png   written by ``report.write_reports``

A row is a recipe (optionally at a haystack scale, ``default@x10``), a baseline (``oracle``,
``full_context``) or a peer (``langchain_ensemble``...). Every line of a recipe row, and the row's entry in
``run.json``, carries the serialised recipe (``"recipe": Recipe.to_dict()``; ``None`` for the others). Resumable: lines already in ``questions/`` are
kept and only missing (row, question) pairs run; a half-written last line is dropped.

Per-cut-off metrics come from the recipe's own top-k list for cut-offs up to the run's ``k`` and from a
second, deeper retrieval (k = the largest cut-off) beyond it, so ``recall@k`` is exactly what the recipe
returns at k. Recall at token budgets (``recall@1024t``: ``run_state.budget_metrics``) reads a list of its
own depth, apart from the cut-offs: at least ``budget_depth`` hits (100), deeper while that does not fill the
largest budget (``run_state.budget_list``); the deep list itself when the largest cut-off is that deep.
Latency: ``latency_ms`` is the search with the query vector already computed, ``latency_total_ms`` adds the
query embedding (peers: their whole call, embedding included). The per-question work and the stores are
``run_state``'s; this module plans, resumes and writes.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from cbmemory import IngestResult, InvalidInputError
from cbmemory.dates import utcnow
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.ingest import DEFAULT_INGEST, IngestConfig, embed_rate, ingest_label, ingest_with_bar
from cbmemory.recipes import Recipe

from .baselines import BASELINES
from .metrics import KS
from .questions import EvalQuestion, EvalSet
from .rows import EvalSetupError, Row, plan_rows
from .run_state import BUDGET_DEPTH, BUDGET_DEPTH_MAX, EvalRun, haystack_fingerprint


# ---------------------------------------------------------------------------- files
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Complete records of a JSONL file; a torn last line (a killed run) is dropped and the file repaired."""
    if not path.exists():
        return []
    raw = path.read_text(encoding="utf-8")
    good, bad = [], False
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            good.append(json.loads(line))
        except ValueError:
            bad = True
    if bad or (raw and not raw.endswith("\n")):
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in good), encoding="utf-8")
        tmp.replace(path)
    return good


def _same_row(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a row described in an earlier run is the same row now. Recipes are compared as recipes, so a
    field added since (with a default that changes nothing) does not make an old run look different."""
    if old == new:
        return True
    rest = [k for k in set(old) | set(new) if k != "recipe"]
    if any(old.get(k) != new.get(k) for k in rest) or not old.get("recipe") or not new.get("recipe"):
        return False
    try:
        return Recipe.from_dict(old["recipe"]) == Recipe.from_dict(new["recipe"])
    except InvalidInputError:  # written by a version that knew fields this one does not
        return False


def _load_settings(path: Path, settings: dict[str, Any]) -> dict[str, Any]:
    """Check that a resumed run has the same settings; returns the merged settings."""
    if not path.exists():
        return settings
    old = json.loads(path.read_text())
    for key in ("dataset", "k", "ks", "budget_depth", "embedder", "qa", "fingerprints"):
        a, b = old.get(key), settings.get(key)
        if key == "budget_depth" and a is None:
            raise EvalSetupError(f"{path.parent} holds a run whose equal-token lists were cut at the largest of "
                                 "--ks (made before they had their own depth); use another --out or --fresh")
        if key == "fingerprints" and isinstance(a, dict) and isinstance(b, dict):
            clash = [v for v in set(a) & set(b) if a[v] != b[v]]
            if clash:
                raise EvalSetupError(f"{path.parent} holds a run on other data (variants {clash}); use another "
                                     "--out or --fresh")
            continue
        if a != b:
            raise EvalSetupError(f"{path.parent} holds a run with {key}={a!r}, not {b!r}; use another --out or "
                                 "--fresh to start over")
    for name, desc in settings["rows"].items():
        if name in old.get("rows", {}) and not _same_row(old["rows"][name], desc):
            raise EvalSetupError(f"{path.parent}: row {name!r} was run with other settings; use another --out "
                                 "or --fresh")
    merged = dict(old)
    merged.update({k: v for k, v in settings.items() if k not in ("rows", "fingerprints", "invocations")})
    merged["rows"] = {**old.get("rows", {}), **settings["rows"]}
    merged["fingerprints"] = {**old.get("fingerprints", {}), **settings["fingerprints"]}
    merged["invocations"] = old.get("invocations", [])
    return merged


def run_eval(
    variants: EvalSet | Mapping[str, EvalSet],
    out_dir: str | Path,
    recipes: Sequence[str | Recipe],
    *,
    k: int = 10,
    ks: Sequence[int] = KS,
    baselines: Sequence[str] = BASELINES,
    peers: Sequence[str] = (),
    qa: Any = None,
    embedder: Any = None,
    store_dir: str | Path | None = None,
    fresh: bool = False,
    progress: bool = True,
    workers: int = 1,
    settings: Mapping[str, Any] | None = None,
    memory_options: Mapping[str, Any] | None = None,
    budget_depth: int = BUDGET_DEPTH,
) -> dict[str, Any]:
    """Evaluate ``recipes`` on ``variants`` (one ``EvalSet``, or several keyed by a label such as
    ``"x1"``/``"x10"``), write per-question JSONL under ``out_dir`` and return the run's settings.

    ``qa``: a ``QAConfig`` to answer and judge (None: retrieval metrics only). ``embedder``: cbmemory's
    offline MiniLM by default. ``store_dir``: where the ingested memories live (default
    ``out_dir/stores``); sharing one between runs makes re-runs skip embedding. ``memory_options``: extra
    keyword arguments for every ``AgentMemory.open`` (for example what an ingest-time enrichment needs).
    ``budget_depth``: the hits each row's equal-token list asks for first (``run_state.budget_list``).
    """
    if isinstance(variants, EvalSet):
        variants = {"x1": variants}
    out = Path(out_dir)
    if fresh and out.exists():
        shutil.rmtree(out / "questions", ignore_errors=True)
        (out / "run.json").unlink(missing_ok=True)
    (out / "questions").mkdir(parents=True, exist_ok=True)
    stores = Path(store_dir) if store_dir is not None else out / "stores"
    stores.mkdir(parents=True, exist_ok=True)
    if embedder is None:
        embedder = MiniLMEmbedder()
    rows = plan_rows(recipes, list(variants), baselines=baselines, peers=peers)
    first = next(iter(variants.values()))
    run = EvalRun(variants, out, rows, k=k, ks=ks, qa=qa, embedder=embedder, store_dir=stores, progress=progress,
               workers=workers, memory_options=memory_options, budget_depth=budget_depth)
    now = utcnow().isoformat(timespec="seconds")
    meta = {
        "dataset": first.dataset, "k": k, "ks": run.ks, "embedder": embedder.name,
        "budget_depth": {"first": run.budget_depth, "max": BUDGET_DEPTH_MAX},
        "qa": None if qa is None else qa.stamp,
        "fingerprints": run.fingerprints,
        "rows": json.loads(json.dumps({r.name: r.describe() for r in rows}, default=str)),
        "categories": [dataclasses.asdict(c) for c in first.categories],
        "question_date": ("LoCoMo has no question date: 'today' is the conversation's last session date"
                          if first.dataset == "locomo" else "each question's question_date"),
        **dict(settings or {}),
    }
    settings_path = out / "run.json"
    meta = _load_settings(settings_path, meta)
    settings_path.write_text(json.dumps(meta, indent=1, default=str))
    start = time.perf_counter()
    try:
        _execute(run)
    finally:
        run.close()
        meta["invocations"] = [*meta.get("invocations", []), {
            "started": now, "wall_s": round(time.perf_counter() - start, 2),
            "ingest_s": {k: round(v, 2) for k, v in run.ingest_seconds.items()}, "failed": len(run.failures),
            "rows": [r.name for r in rows]}]
        settings_path.write_text(json.dumps(meta, indent=1, default=str))
    return meta


def _written(run: EvalRun, variant: str, ingest: IngestConfig, user: str) -> IngestResult | None:
    """Ingest one user's haystack (if not done yet) and return what that write stored."""
    run.ensure_user(variant, ingest, user)
    return run.writes.get((variant, ingest.key, user))


def _execute(run: EvalRun) -> None:
    from tqdm import tqdm

    files = {r.name: run.out / "questions" / f"{r.name}.jsonl" for r in run.rows}
    done = {name: {rec["question_id"] for rec in read_jsonl(path)} for name, path in files.items()}
    work: list[tuple[str, str, list[tuple[EvalQuestion, list[Row]]]]] = []
    total = 0
    for variant, es in run.variants.items():
        rows = [r for r in run.rows if r.variant == variant]
        by_user: dict[str, list[tuple[EvalQuestion, list[Row]]]] = {}
        for q in es.questions:
            pending = [r for r in rows if q.question_id not in done[r.name]]
            if pending:
                by_user.setdefault(q.user_id, []).append((q, pending))
                total += len(pending)
        work += [(variant, user, items) for user, items in by_user.items()]
    # phase 1: every memory the pending work needs (idempotent: a warm store re-adds in milliseconds)
    needs: list[tuple[str, IngestConfig, str]] = []
    for variant, user, items in work:
        settings = {r.recipe.ingest.key: r.recipe.ingest for _, rows in items for r in rows if r.recipe is not None}
        if any(r.kind != "recipe" for _, rows in items for r in rows):
            settings.setdefault(DEFAULT_INGEST.key, DEFAULT_INGEST)
        needs += [(variant, ingest, user) for ingest in settings.values()]
    interval = 0.2 if sys.stderr.isatty() else 15.0
    groups: dict[tuple[str, str], tuple[IngestConfig, list[str]]] = {}
    for variant, ingest, user in needs:  # one bar per ingest setting, its total the data's turns
        groups.setdefault((variant, ingest.key), (ingest, []))[1].append(user)
    for (variant, _), (ingest, users) in groups.items():
        label = ingest_label(ingest) + (f" (haystack {variant})" if len(run.variants) > 1 else "")
        haystacks = run.variants[variant].haystacks
        start = time.perf_counter()
        tally = ingest_with_bar([(u, haystacks[u].turns) for u in users], label=label, enabled=run.progress,
                                ingest_one=functools.partial(_written, run, variant, ingest), mininterval=interval)
        if run.progress:
            took = time.perf_counter() - start
            print(f"ingest {label}: {sum(haystacks[u].turns for u in users):,} turns of {len(users)} users, "
                  f"{tally} {ingest.unit}s in {took:.1f} s{embed_rate(tally, took, ingest.unit)}", file=sys.stderr)
    # phase 2: retrieval (and QA) per user
    bar = tqdm(total=total, desc="eval", unit="q", file=sys.stderr, disable=not run.progress, smoothing=0.05,
               mininterval=interval)
    handles = {name: open(path, "a", encoding="utf-8") for name, path in files.items()}
    pool = ThreadPoolExecutor(run.workers) if run.qa is not None else None
    timings: list[tuple[float, float]] = []  # per answered question: (reader seconds, all its model calls)
    qa_start = time.perf_counter()
    try:
        for variant, user, items in work:
            bar.set_postfix_str(f"{variant} {user}")
            _evaluate_user(run, variant, user, items, handles, bar, pool, timings)
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
        for f in handles.values():
            f.close()
        bar.close()
        if timings:
            wall = time.perf_counter() - qa_start
            print(f"QA: {len(timings)} answers in {wall:.1f} s wall, {wall / len(timings):.1f} s per answer "
                  f"(mean per question: reader {sum(t[0] for t in timings) / len(timings):.1f} s, all model "
                  f"calls {sum(t[1] for t in timings) / len(timings):.1f} s)", file=sys.stderr)


def _write(handle, rec: dict[str, Any]) -> None:
    handle.write(json.dumps(rec, ensure_ascii=False) + "\n")
    handle.flush()


def _evaluate_user(run: EvalRun, variant: str, user: str, items, handles, bar, pool,
                   timings: list[tuple[float, float]] | None = None) -> None:
    from .peers import build_peer

    peers: dict[str, Any] = {}
    qvecs: dict[str, tuple[Any, float]] = {}
    jobs = []
    for q, rows in items:
        if q.question not in qvecs:
            start = time.perf_counter()
            vec = run.embedder.embed_query(q.question)
            qvecs[q.question] = (vec, (time.perf_counter() - start) * 1000)
        vec, embed_ms = qvecs[q.question]
        for row in rows:
            peer = None
            if row.kind == "peer":
                if row.name not in peers:
                    mem = run.ensure_user(variant, DEFAULT_INGEST, user)
                    records = mem.store.list_records(user)
                    peers[row.name] = (build_peer(row.target, records, documents=mem.embedder,
                                                  queries=run.embedder), {r.record_id: r for r in records})
                peer = peers[row.name]
            rec, context, shown = run.evaluate(row, q, vec, embed_ms, peer)
            if run.qa is None:
                _write(handles[row.name], rec)
                bar.update(1)
            else:
                jobs.append((row, q, rec, context, shown))
    if jobs:
        from .qa import run_qa

        def one(job):
            row, q, rec, context, shown = job
            start = time.perf_counter()
            try:
                result = run_qa(run.qa, q, context, shown)
            except Exception as exc:  # noqa: BLE001 - one failed call must not stop the run; it is retried
                return row, None, f"{q.question_id} ({row.name}): {type(exc).__name__}: {exc}", 0.0
            rec["metrics"].update(result.pop("qa_metrics"))
            rec.update(result)
            return row, rec, None, time.perf_counter() - start

        for row, rec, error, took in pool.map(one, jobs):
            if error is None:
                _write(handles[row.name], rec)
                answer_s = (rec["metrics"].get("answer_ms") or 0.0) / 1000
                if timings is not None:
                    timings.append((answer_s, took))
                if run.progress:
                    bar.write(f"{row.name} {rec['question_id']}: {took:.1f} s (reader {answer_s:.1f} s)",
                              file=sys.stderr)
            else:  # not written, so the next run of the same command retries it
                run.failures.append(error)
                print(f"QA failed, will be retried on the next run: {error}", file=sys.stderr)
            bar.update(1)


__all__ = ["EvalSetupError", "haystack_fingerprint", "read_jsonl", "run_eval"]
