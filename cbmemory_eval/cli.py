"""``cbmemory eval locomo|longmemeval|report`` and ``cbmemory demo``: registered in the core's ``cbmemory``
command through the entry-point group ``cbmemory.commands`` (this package's ``register``).

Top-level imports stay light: everything heavy loads inside the command functions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from cbmemory.cli import Interrupted, csv, positive

from .data_files import check_data
from .scale import scales_arg

# The main recipes: every experiment of the study that runs at the retrieval level.
MAIN_RECIPES = ("vector", "vector_no_dates", "bm25", "vector_bm25_rerank_10", "vector_bm25_rerank_50",
                "vector_bm25_rerank_100", "hybrid", "recency", "future_filter", "default")
# --embedder: the offline default (MiniLM) and the optional e5 (cbmemory[e5]; docs/recipes.md, "Embedders")
EMBEDDERS = ("minilm", "e5-small")
DEFAULT_EXTRA_ROWS = "bm25,oracle,full_context"  # rows.EXTRA_ROWS (not imported: the CLI's imports stay light)


def _recipes(text: str, add_bm25: bool = True) -> list[str]:
    from cbmemory.recipes import all_recipes, get_recipe

    names = list(all_recipes()) if text == "all" else list(MAIN_RECIPES) if text == "main" else csv(text)
    for n in names:
        get_recipe(n)  # unknown names fail here, with the list of known ones
    if add_bm25 and "bm25" not in names:  # the BM25-only baseline runs unless --baselines leaves it out
        print("note: adding the bm25 baseline row (--baselines none leaves out every extra row)", file=sys.stderr)
        names.append("bm25")
    return names


def _with_readings(recipes: list[Any], readings: str | None) -> list[Any]:
    """Each recipe once per reading (``cbmemory.context.READINGS``): rows ``<recipe>-<reading>`` that
    retrieve the same memories and differ only in what the reader is shown. ``None``: the recipes as they are."""
    if not readings:
        return recipes
    from cbmemory import InvalidInputError
    from cbmemory.context import READINGS
    from cbmemory.recipes import get_recipe

    names = csv(readings)
    unknown = [n for n in names if n not in READINGS]
    if unknown:
        raise InvalidInputError(f"unknown readings {unknown}; known: {', '.join(READINGS)}")
    return [get_recipe(r).with_(name=f"{get_recipe(r).name}-{n}", context=READINGS[n]) for r in recipes for n in names]


def _qa(args: argparse.Namespace, dataset: str):
    """The reader and, only when ``--judge`` names one, the judge: without it no judge runs (J and
    sufficiency are not computed; the automatic scores are)."""
    if not args.llm:
        return None
    from .qa import QAConfig, make_chat_model

    reader = make_chat_model(args.llm, args.llm_base_url, max_tokens=args.answer_tokens)
    judge = make_chat_model(args.judge, args.judge_base_url or args.llm_base_url) if args.judge else None
    if judge is None:
        print("note: no --judge, so no judge runs: automatic scores only (J and sufficiency not computed)",
              file=sys.stderr)
    return QAConfig(reader, judge, dataset, say_today=not args.no_today, sufficiency=not args.no_sufficiency)


def _subset(es, args: argparse.Namespace):
    """The questions of a run: a fixed-seed ``--sample``, a balanced ``--limit``, or all of them."""
    import dataclasses

    from .questions import sample, select

    if args.sample is not None:
        questions = sample(es, args.sample, args.sample_seed)
    else:
        questions = select(es.questions, args.limit)
    return dataclasses.replace(es, questions=tuple(questions))


def _variants(args: argparse.Namespace, dataset: str, data: Path):
    from .questions import from_locomo, from_longmemeval

    if dataset == "locomo":
        from .datasets.locomo import load_locomo
        from .scale import scaled_haystacks

        conversations = load_locomo(data)
        chosen = conversations[: args.conversations] if args.conversations else conversations
        out = {}
        for factor in args.scale:
            hs = scaled_haystacks(chosen, factor, others=conversations, seed=args.seed) if factor > 1 else None
            out[f"x{factor}"] = _subset(from_locomo(chosen, haystacks=hs), args)
        return out
    from .datasets.longmemeval import load_longmemeval

    return {"x1": _subset(from_longmemeval(load_longmemeval(data)), args)}


def _question_ids(args: argparse.Namespace, variants) -> list[str] | None:
    """The chosen question ids (the same in every variant), or ``None`` when the run takes every question.
    With ``--sample``, a resumed run must have drawn exactly the questions of the run in ``--out``."""
    from .rows import EvalSetupError

    first = next(iter(variants.values()))
    if args.sample is None and args.limit is None:
        return None
    ids = [q.question_id for q in first.questions]
    if any([q.question_id for q in es.questions] != ids for es in variants.values()):
        raise EvalSetupError("the haystack variants drew different questions")  # pragma: no cover - a bug
    path = Path(args.out) / "run.json"
    if args.fresh or not path.exists():
        return ids
    old = json.loads(path.read_text())
    if (old.get("sample") or args.sample is not None) and old.get("question_ids") != ids:
        raise EvalSetupError(f"{args.out} holds a run on other questions (sample {old.get('sample')!r}, seed "
                             f"{old.get('sample_seed')!r}, {len(old.get('question_ids') or [])} ids); this run "
                             f"draws {len(ids)} other ones. Use the same --sample and --sample-seed and data, "
                             "another --out, or --fresh")
    return ids


def _embedder(name: str):
    """The embedder ``--embedder`` names (built, not loaded: a missing extra is said at the first text)."""
    from cbmemory.embedding import E5SmallEmbedder, MiniLMEmbedder

    return E5SmallEmbedder() if name == "e5-small" else MiniLMEmbedder()


def _print_report(out: Path, metrics: list[str] | None, started: float | None = None) -> None:
    from .report import PLOT_NOTE, can_plot, draws_heatmap, write_reports

    summary, text = write_reports(out, metrics or None)
    print(text)
    drawn = draws_heatmap(summary)
    tail = f"wrote {out / 'summary.json'}, {out / 'matrix.md'}" + (f", {out / 'heatmap.png'}" if drawn else "")
    if started is not None:
        tail += f" in {time.perf_counter() - started:.0f} s"
    print(tail)
    if not summary["results"]:
        print("note: no question was evaluated, so there is no heatmap and the tables are empty", file=sys.stderr)
    elif not can_plot():
        print(PLOT_NOTE, file=sys.stderr)


def cmd_eval(args: argparse.Namespace) -> int:
    from .baselines import BASELINES
    from .enrich_recipes import SKIP_NOTE, split_recipes
    from .peers import expand
    from .rows import parse_extra_rows
    from .runner import run_eval

    started = time.perf_counter()
    data = check_data(args.data, args.dataset)
    if data is None:
        return 2
    from .report import PLOT_NOTE, can_plot

    if not can_plot():  # said before the run, not found out after it
        print(PLOT_NOTE, file=sys.stderr)
    variants = _variants(args, args.dataset, data)
    question_ids = _question_ids(args, variants)
    if args.sample is not None:
        first = next(iter(variants.values()))
        print(f"sample {args.sample} (seed {args.sample_seed}): {len(first.questions)} questions from "
              f"{len({q.user_id for q in first.questions})} conversations", file=sys.stderr)
    ks = sorted(set(args.ks) | {args.k})
    enricher = _enricher(args)
    extra = parse_extra_rows(args.baselines)
    recipes, skipped = split_recipes(_recipes(args.recipes, "bm25" in extra), enricher is not None)
    recipes = _with_readings(recipes, args.readings)
    if skipped:
        print(SKIP_NOTE.format(names=", ".join(skipped)), file=sys.stderr)
    try:
        run_eval(variants, args.out, recipes, k=args.k, ks=ks, baselines=[b for b in extra if b in BASELINES],
                 peers=expand(csv(args.peers)), qa=_qa(args, args.dataset), embedder=_embedder(args.embedder),
                 store_dir=args.cache_dir,
                 fresh=args.fresh, progress=not args.quiet, workers=args.workers,
                 memory_options={"enricher": enricher} if enricher is not None else None,
                 settings={"data": str(data), "limit": args.limit, "scales": args.scale,
                           "sample": None if args.sample is None else str(args.sample),
                           "sample_seed": None if args.sample is None else args.sample_seed,
                           "question_ids": question_ids,
                           "conversations": getattr(args, "conversations", None),
                           "enrich_llm": enricher.model if enricher is not None else None})
    except KeyboardInterrupt:
        stores = args.cache_dir or Path(args.out) / "stores"
        kept = "" if args.fresh else f", and the questions evaluated so far in {Path(args.out) / 'questions'}"
        raise Interrupted(f"the memories ingested so far are kept in {stores}{kept}; the same command goes on "
                          "from there") from None
    if enricher is not None:
        st = enricher.runner.stats
        print(f"enrichment ({enricher.model}): {st.calls} LLM calls, {st.cached} cached, {st.repaired} repaired, "
              f"{st.failed} failed, {st.budget_skipped} over budget; tokens in {st.input_tokens}, "
              f"out {st.output_tokens}; JSON mode {st.json_mode}", file=sys.stderr)
    _print_report(Path(args.out), csv(args.metrics), started)
    return 0


def _enricher(args: argparse.Namespace):
    """The ingest-time LLM (``--enrich-llm``), or None: recipes that need one are then skipped."""
    if not getattr(args, "enrich_llm", None):
        return None
    from cbmemory.ingest.enrich import make_enricher

    cache = args.enrich_cache or str(Path(args.cache_dir or Path(args.out) / "stores") / "enrich_cache.db")
    return make_enricher(args.enrich_llm, args.enrich_base_url, cache_path=cache,
                         max_concurrency=args.enrich_concurrency, calls_per_session=args.enrich_budget)


def cmd_report(args: argparse.Namespace) -> int:
    _print_report(Path(args.out), csv(args.metrics))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    if args.data is None:  # the agent demo: the package's own conversation, nothing to download
        from langchain_cbmemory.demo import run_agent_demo

        return run_agent_demo(args.out)
    from .demo import run_demo

    data = check_data(args.data, "locomo")
    if data is None:
        return 2
    return run_demo(str(data), args.out, conversation=args.conversation, questions=args.questions,
                    progress=not args.quiet)


def _sample_spec(text: str):
    from .questions import SampleSpec, SampleSpecError

    try:
        return SampleSpec.parse(text)
    except SampleSpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _cutoffs(text: str) -> list[int]:
    """``1,3,5,10``: cut-offs, each a whole number of at least 1."""
    try:
        values = [positive(p) for p in csv(text)]
    except argparse.ArgumentTypeError:
        values = []
    if not values:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers of at least 1, e.g. 1,5,10; "
                                         f"got {text!r}")
    return values


def register(subparsers) -> None:
    ev = subparsers.add_parser("eval", help="evaluate recipes on LoCoMo or LongMemEval (retrieval; QA with --llm)",
                               description="Evaluate recipes on LoCoMo or LongMemEval: per-question results, a "
                               "summary, a Markdown matrix and a heatmap in --out.")
    sub = ev.add_subparsers(dest="dataset", required=True, metavar="{locomo,longmemeval,report,locomo-loop,loop-report,locomo-updates,locomo-updates-labels}")
    for name in ("locomo", "longmemeval"):
        p = sub.add_parser(name, help=f"evaluate on {name}")
        p.add_argument("--data", required=True, help="the dataset file (official format)")
        p.add_argument("--out", required=True, help="output folder (resumable: a second run goes on where the "
                       "first stopped)")
        p.add_argument("--recipes", default="main", help="comma-separated recipe names, 'main' or 'all'")
        p.add_argument("--k", type=positive, default=10, help="hits per question the matrix is scored at")
        p.add_argument("--ks", type=_cutoffs, default="1,3,5,10,20,30,50",
                       help="cut-offs of the recall/NDCG metrics (--k is always among them)")
        pick = p.add_mutually_exclusive_group()
        pick.add_argument("--limit", type=positive, help="a subset of at most N questions, balanced over categories "
                          "and conversations (deterministic, the first questions in file order; default: all)")
        pick.add_argument("--sample", type=_sample_spec, metavar="SPEC",
                          help="a fixed-seed draw per group, e.g. temporal=60,other=40: groups are category names "
                          "or codes, 'other' is every category not named; balanced over conversations (and the "
                          "categories of a group). The same seed and data give the same questions on every run; "
                          "their ids go to run.json and a resumed run must draw the same")
        p.add_argument("--sample-seed", type=int, default=0, help="seed of --sample")
        p.add_argument("--baselines", default=DEFAULT_EXTRA_ROWS,
                       help="extra rows beside the recipes: bm25 (the BM25-only recipe, added when not among "
                       "--recipes), oracle (the evidence sessions), full_context (the whole conversation); default "
                       "all three; 'none' (or '') for none, e.g. for LLM runs: full_context overflows a small "
                       "model's window and every extra row costs model time")
        p.add_argument("--peers", default="", help="langchain, llamaindex, all, or peer names (default: none)")
        p.add_argument("--llm", help="reader model (ChatOpenAI); without it only retrieval is evaluated")
        p.add_argument("--llm-base-url", help="OpenAI-compatible server for the reader (e.g. a local one)")
        p.add_argument("--judge", help="judge model for J and context sufficiency (fixed for a study; may be the "
                       "reader's model, as an explicit choice); without it no judge runs and only the automatic "
                       "scores are computed")
        p.add_argument("--answer-tokens", type=int, default=None, help="cap on each answer's length in tokens "
                       "(default: the server's; a small local reader answers faster with e.g. 64)")
        p.add_argument("--readings", help="one row per recipe and reading, the same retrieval read differently: "
                       "undated, dated, resolved (dated + relative dates resolved in place), resolved_no_today "
                       "(comma-separated; default: each recipe's own context settings)")
        p.add_argument("--judge-base-url", help="server of the judge; default: --llm-base-url")
        p.add_argument("--no-today", action="store_true", help="leave 'Today is ...' out of the answer prompt")
        p.add_argument("--no-sufficiency", action="store_true", help="skip the context-sufficiency judge")
        p.add_argument("--workers", type=positive, default=1, help="parallel LLM calls")
        p.add_argument("--enrich-llm", help="ingest-time LLM for the summary/events/facts recipes (ChatOpenAI); "
                       "without it those recipes are skipped")
        p.add_argument("--enrich-base-url", help="OpenAI-compatible server of the ingest-time LLM")
        p.add_argument("--enrich-cache", help="SQLite cache of extractions (default: <cache dir>/enrich_cache.db)")
        p.add_argument("--enrich-concurrency", type=positive, default=4, help="ingest-time LLM calls in flight")
        p.add_argument("--enrich-budget", type=positive, default=64, help="ingest-time LLM calls per session at most")
        p.add_argument("--cache-dir", help="where ingested stores live (default OUT/stores); share between runs")
        p.add_argument("--embedder", choices=EMBEDDERS, default="minilm",
                       help="minilm (all-MiniLM-L6-v2 int8, the default) or e5-small (multilingual-e5-small at 4 "
                       "bits, needs cbmemory[e5]; better vector recall, about a third of the speed). Its stores "
                       "are its own, and an --out run with one is not resumed with the other")
        p.add_argument("--metrics", default="", help="comma-separated metrics for the printed tables and heatmap, "
                       "e.g. ndcg@10,session_recall@10 (default: recall@k, recall_all@k and the QA scores)")
        p.add_argument("--fresh", action="store_true", help="discard earlier results in --out (keeps stores)")
        p.add_argument("--quiet", action="store_true", help="no progress bars")
        if name == "locomo":
            p.add_argument("--scale", type=scales_arg, default=[1],
                           help="haystack scales, e.g. 1,10: add other conversations' sessions as distractors "
                           "(default: 1, the conversations as they are)")
            p.add_argument("--conversations", type=positive, help="only the first N conversations (default: all)")
            p.add_argument("--seed", type=int, default=0, help="seed of the distractor order")
        else:
            p.set_defaults(scale=[1], conversations=None, seed=0)
        p.set_defaults(func=cmd_eval)
    rep = sub.add_parser("report", help="rewrite summary.json, matrix.md and heatmap.png of a run")
    rep.add_argument("--out", required=True, help="the output folder of an earlier `cbmemory eval` run")
    rep.add_argument("--metrics", default="", help="comma-separated metrics for the tables and heatmap, e.g. "
                     "ndcg@10,session_recall@10 (default: recall@k, recall_all@k and the QA scores)")
    rep.set_defaults(func=cmd_report)
    from .loop_cli import register_loop

    register_loop(sub)  # the agent-loop benchmark (loop.py)
    from .updates.cli import register_updates

    register_updates(sub)  # the knowledge-update benchmark (updates/)

    demo = subparsers.add_parser("demo", help="memory at work, offline: a LangChain agent with memory on the package's "
                                 "own conversation, step by step; with --data, one LoCoMo conversation: what the "
                                 "model reads for a few questions, and recall against bm25 and vector")
    demo.add_argument("--data", help="a LoCoMo file (e.g. locomo10.json): the LoCoMo demo instead of the agent demo")
    demo.add_argument("--out", default="out/demo", help="output folder (its stores make a second run quick)")
    demo.add_argument("--conversation", default="conv-26", help="with --data: the conversation stored (default: conv-26)")
    demo.add_argument("--questions", type=positive, default=5, help="with --data: questions shown (default: 5)")
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(func=cmd_demo)
