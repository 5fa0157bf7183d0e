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
returns at k. Latency: ``latency_ms`` is the search with the query vector already computed,
``latency_total_ms`` adds the query embedding (peers: their whole call, embedding included).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..context import DEFAULT_CONTEXT, ContextConfig, context_tokens, format_context
from ..dates import utcnow
from ..errors import InvalidInputError
from ..ingest import DEFAULT_INGEST, IngestConfig
from ..models import Hit, IngestResult, MemoryRecord
from ..retrieval.engine import retrieve
from ..retrieval.recipes import Recipe
from ..store.sqlite_sql import SCHEMA_VERSION  # a new store layout gets new files, not a refusal
from .baselines import BASELINES, baseline_hits
from .metrics import KS, retrieval_metrics, session_units
from .progress import ingest_label, ingest_with_bar, rate
from .questions import EvalQuestion, EvalSet
from .rows import EvalSetupError, Row, plan_rows

TEXT_CHARS = 300


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


def haystack_fingerprint(eval_set: EvalSet) -> str:
    """sha256 over every haystack's sessions and turns: stores are keyed by it, so a changed file or a
    different scale never reuses a stale store."""
    h = hashlib.sha256(eval_set.dataset.encode())
    for user_id in sorted(eval_set.haystacks):
        h.update(b"\x1eU" + user_id.encode())
        for s in eval_set.haystacks[user_id].sessions:
            h.update(f"\x1eS{s.session_id}\x1f{s.date.isoformat()}".encode())
            for m in s.messages:
                ann = json.dumps(dict(m.annotations), sort_keys=True)
                h.update(f"\x1eM{m.role}\x1f{m.speaker}\x1f{m.turn_id}\x1f{ann}\x1f{m.content}".encode())
    return h.hexdigest()


def _store_name(fingerprint: str, ingest: IngestConfig, embedder: str) -> str:
    key = f"{fingerprint}|{ingest.key}|{embedder}|schema={SCHEMA_VERSION}"
    return hashlib.sha256(key.encode()).hexdigest()[:16] + ".db"


def _turn_ids(r: MemoryRecord) -> tuple[str, ...]:
    return r.source_ids or (r.turn_id or r.record_id,)


def _units(hits: Sequence[Hit], *, context: bool = True) -> tuple[list[frozenset[str]], list[str]]:
    """Each hit as the turns the reader gets from it: its own and (``context``) its window's."""
    turns = [frozenset(t for r in (h.record, *(h.context if context else ())) for t in _turn_ids(r))
             for h in hits]
    return turns, [h.record.session_id for h in hits]


def _hit_json(rank: int, h: Hit) -> dict[str, Any]:
    r = h.record
    return {"rank": rank, "turn_ids": list(r.source_ids or (r.turn_id,)), "session_id": r.session_id,
            **({"context_turn_ids": [t for c in h.context for t in _turn_ids(c)]} if h.context else {}),
            "score": round(float(h.score), 6), "signals": {k: round(float(v), 6) for k, v in h.signals.items()},
            "date": r.occurred_at.date().isoformat(), "speaker": r.speaker or r.role, "text": r.text[:TEXT_CHARS]}


# ---------------------------------------------------------------------------- the run
class _Run:
    def __init__(self, variants: Mapping[str, EvalSet], out_dir: Path, rows: list[Row], *, k: int,
                 ks: Sequence[int], qa: Any, embedder: Any, store_dir: Path, progress: bool, workers: int,
                 memory_options: Mapping[str, Any] | None = None):
        self.variants, self.out, self.rows, self.k = variants, out_dir, rows, k
        self.ks = sorted(set(ks) | {k})
        self.deep_k = max(self.ks)
        self.qa, self.embedder, self.store_dir = qa, embedder, store_dir
        self.progress, self.workers = progress, max(1, workers)
        self.memory_options = dict(memory_options or {})
        self.fingerprints = {v: haystack_fingerprint(es) for v, es in variants.items()}
        self._memories: dict[tuple[str, str], Any] = {}
        self._ingested: set[tuple[str, str, str]] = set()
        self.ingest_seconds: dict[str, float] = {}
        self.writes: dict[tuple[str, str, str], IngestResult] = {}  # per (variant, ingest key, user): what was new
        self.failures: list[str] = []

    # -- stores
    def memory(self, variant: str, ingest: IngestConfig):
        key = (variant, ingest.key)
        if key not in self._memories:
            from ..memory import AgentMemory

            path = self.store_dir / _store_name(self.fingerprints[variant], ingest, self.embedder.name)
            self._memories[key] = AgentMemory.open(path, embedder=self.embedder, ingest=ingest,
                                                   **self.memory_options)
            index = self.store_dir / "stores.json"
            known = json.loads(index.read_text()) if index.exists() else {}
            known[path.name] = {"dataset": self.variants[variant].dataset, "variant": variant,
                                "ingest": ingest.key, "embedder": self.embedder.name,
                                "haystack_sha256": self.fingerprints[variant]}
            index.write_text(json.dumps(known, indent=1))
        return self._memories[key]

    def ensure_user(self, variant: str, ingest: IngestConfig, user_id: str):
        mem = self.memory(variant, ingest)
        if (variant, ingest.key, user_id) not in self._ingested:
            start = time.perf_counter()
            written = mem.add_sessions(user_id, self.variants[variant].haystacks[user_id].batches())  # idempotent
            self.writes[(variant, ingest.key, user_id)] = written
            took = time.perf_counter() - start
            name = f"{variant}|{ingest.key}"
            self.ingest_seconds[name] = self.ingest_seconds.get(name, 0.0) + took
            self._ingested.add((variant, ingest.key, user_id))
        return mem

    def close(self) -> None:
        for mem in self._memories.values():
            mem.close()

    # -- one question
    @staticmethod
    def _tokens_at(hits: Sequence[Hit], c: int, shown: ContextConfig) -> int:
        """The context stage's size of the first ``c`` hits (its per-line counts are cached)."""
        return context_tokens(hits[:c], shown)

    def _metrics(self, q: EvalQuestion, main: Sequence[Hit], deep: Sequence[Hit] | None,
                 shown: ContextConfig = DEFAULT_CONTEXT) -> dict[str, Any]:
        m: dict[str, Any] = {}
        for c in self.ks:
            src = main if c <= self.k or deep is None else deep
            turns, sessions = _units(src)
            m.update(retrieval_metrics(q.evidence, turns, [c]))
            if any(h.context for h in src[:c]):  # recall of the hits alone, beside that of what is read
                alone = retrieval_metrics(q.evidence, _units(src, context=False)[0], [c], prefix="hit_")
                m[f"hit_recall@{c}"] = alone[f"hit_recall@{c}"]
            m.update(retrieval_metrics(q.evidence_sessions, session_units(sessions), [c], prefix="session_"))
            if c != self.k:
                m[f"tokens@{c}"] = self._tokens_at(src, c, shown)
        return m

    def evaluate(self, row: Row, q: EvalQuestion, qvec: Any, embed_ms: float,
                 peer: Any) -> tuple[dict, str, ContextConfig]:
        """One row's record for one question, the context text its reader gets and how it was rendered
        (a recipe's ``context``; the default for baselines and peers)."""
        rec: dict[str, Any] = {
            "question_id": q.question_id, "row": row.name, "kind": row.kind, "target": row.target,
            "variant": row.variant, "user_id": q.user_id, "category": q.category,
            "category_code": q.category_code, "unanswerable": q.unanswerable, "question": q.question,
            "gold": q.answer, "question_date": q.question_date.isoformat(), "date_source": q.date_source,
            "evidence": list(q.evidence), "evidence_sessions": list(q.evidence_sessions), "k": self.k,
            "recipe": row.stamp(),
        }
        deep: list[Hit] | None = None
        context_hits: list[Hit]
        metrics: dict[str, Any] = {}
        budget = None
        shown = row.recipe.context if row.recipe is not None else DEFAULT_CONTEXT
        if row.kind == "recipe":
            recipe = row.recipe
            assert recipe is not None
            cfg = recipe.retrieval
            mem = self.ensure_user(row.variant, recipe.ingest, q.user_id)
            store = mem.store
            sparse = functools.lru_cache(maxsize=1)(mem.sparse_encoder.encode_query) if mem.sparse_encoder is not None else None
            now = utcnow()
            start = time.perf_counter()  # the query's sparse vector (if any) is made inside, and timed
            main = retrieve(store, lambda _q: qvec, recipe, q.user_id, q.question, k=self.k,
                            reference_date=q.question_date, now=now, encode_sparse=sparse)
            search_ms = (time.perf_counter() - start) * 1000
            if self.deep_k > self.k:
                deep = retrieve(store, lambda _q: qvec, recipe, q.user_id, q.question, k=self.deep_k,
                                reference_date=q.question_date, now=now, encode_sparse=sparse)
            metrics.update(self._metrics(q, main, deep, shown))
            uses_vector = "vector" in cfg.signals
            metrics["latency_ms"] = search_ms
            metrics["latency_total_ms"] = search_ms + (embed_ms if uses_vector else 0.0)
            context_hits, budget = main, cfg.token_budget
            if cfg.k is None:  # the recipe picks its own k: also score what it returns then
                own = retrieve(store, lambda _q: qvec, recipe, q.user_id, q.question, k=None,
                               reference_date=q.question_date, now=now, encode_sparse=sparse)
                turns, sessions = _units(own)
                auto = retrieval_metrics(q.evidence, turns, [len(own)])
                metrics.update({name.replace(f"@{len(own)}", "@auto"): v for name, v in auto.items()})
                metrics["k_auto"] = len(own)
                metrics["tokens@auto"] = format_context(own, shown).tokens
                context_hits = own
            rec["hits"] = [_hit_json(i + 1, h) for i, h in enumerate(main)]
        elif row.kind == "peer":
            search, by_id = peer
            start = time.perf_counter()
            ids = search(q.question, self.k)
            total_ms = (time.perf_counter() - start) * 1000
            main = [Hit(by_id[i], 0.0, recipe=row.name) for i in ids]
            if self.deep_k > self.k:
                deep = [Hit(by_id[i], 0.0, recipe=row.name) for i in search(q.question, self.deep_k)]
            metrics.update(self._metrics(q, main, deep))
            metrics["latency_ms"] = None
            metrics["latency_total_ms"] = total_ms
            context_hits = main
            rec["hits"] = [_hit_json(i + 1, h) for i, h in enumerate(main)]
        else:
            store = self.ensure_user(row.variant, DEFAULT_INGEST, q.user_id).store
            context_hits = baseline_hits(row.target, store, q)
            rec["hits"] = []
            rec["context_turns"] = len(context_hits)
        if deep is not None:
            rec["deep_turn_ids"] = [sorted(u) for u in _units(deep)[0]]
        context = format_context(context_hits, shown, budget=budget)
        at_k = context if row.kind != "recipe" or context_hits is main else format_context(main, shown, budget=budget)
        metrics[f"tokens@{self.k}"] = at_k.tokens
        rec["tokens"] = context.tokens  # what the reader gets
        rec["metrics"] = metrics
        return rec, context.text, shown


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
    for key in ("dataset", "k", "ks", "embedder", "qa", "fingerprints"):
        a, b = old.get(key), settings.get(key)
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
) -> dict[str, Any]:
    """Evaluate ``recipes`` on ``variants`` (one ``EvalSet``, or several keyed by a label such as
    ``"x1"``/``"x10"``), write per-question JSONL under ``out_dir`` and return the run's settings.

    ``qa``: a ``QAConfig`` to answer and judge (None: retrieval metrics only). ``embedder``: cbmemory's
    offline MiniLM by default. ``store_dir``: where the ingested memories live (default
    ``out_dir/stores``); sharing one between runs makes re-runs skip embedding. ``memory_options``: extra
    keyword arguments for every ``AgentMemory.open`` (for example what an ingest-time enrichment needs).
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
        from ..embedding.onnx import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    rows = plan_rows(recipes, list(variants), baselines=baselines, peers=peers)
    first = next(iter(variants.values()))
    run = _Run(variants, out, rows, k=k, ks=ks, qa=qa, embedder=embedder, store_dir=stores, progress=progress,
               workers=workers, memory_options=memory_options)
    now = utcnow().isoformat(timespec="seconds")
    meta = {
        "dataset": first.dataset, "k": k, "ks": run.ks, "embedder": embedder.name,
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


def _written(run: _Run, variant: str, ingest: IngestConfig, user: str) -> IngestResult | None:
    """Ingest one user's haystack (if not done yet) and return what that write stored."""
    run.ensure_user(variant, ingest, user)
    return run.writes.get((variant, ingest.key, user))


def _execute(run: _Run) -> None:
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
                  f"{tally} {ingest.unit}s in {took:.1f} s{rate(tally, took, ingest.unit)}", file=sys.stderr)
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


def _evaluate_user(run: _Run, variant: str, user: str, items, handles, bar, pool,
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
