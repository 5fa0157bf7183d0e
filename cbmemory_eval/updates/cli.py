"""``cbmemory eval locomo-updates``: the knowledge-update benchmark (issue 31) on a LoCoMo file.

Writes ``OUT/cases-<family>-x<N>.jsonl`` (one line per question), ``OUT/summary.json`` and ``OUT/tables.md``
(overall, by variant, by kind; per family and scale) and prints the tables. Top-level imports stay light.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

from cbmemory.cli import csv, positive

from ..scale import scales_arg

FAMILY_CHOICES = ("train", "dev", "test", "fresh", "blind", "probe", "both")


def cmd_updates(args: argparse.Namespace) -> int:
    from cbmemory.embedding import MiniLMEmbedder
    from cbmemory.recipes import get_recipe

    from ..datasets.locomo import load_locomo
    from ..scale import scaled_haystacks
    from .generate import generate
    from .metrics import summarise, table
    from .reader import fixed_subset, reader_summary
    from .run import run_cases

    started = time.perf_counter()
    data = Path(args.data)
    if not data.exists():
        print(f"cbmemory: error: LoCoMo is not at {data}; pass --data (the official file, see `cbmemory eval "
              "locomo --help`)", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = Path(args.cache_dir) if args.cache_dir else out / "stores"
    conversations = load_locomo(data)
    chosen = conversations[: args.conversations] if args.conversations else conversations
    if args.only:
        chosen = [c for c in chosen if c.sample_id in set(csv(args.only))]
    families = ["train", "test"] if args.family == "both" else [args.family]
    embedder = MiniLMEmbedder()
    options: dict[str, Any] = {"recipe": args.recipe}
    if args.link_updates:  # the product's write-time links are opt-in (IngestConfig.link_updates)
        options["ingest"] = dataclasses.replace(get_recipe(args.recipe).ingest, link_updates=True)
    recall: dict[str, Any] = {}
    stage = get_recipe(args.recipe).retrieval.current_value
    if args.current_value is not None:  # the read-time current-value stage (RetrievalConfig.current_value) set
        recall["recipe"] = get_recipe(args.recipe).with_(current_value=args.current_value)
        stage = args.current_value
    summary: dict[str, Any] = {"data": str(data), "recipe": args.recipe, "seed": args.seed, "results": {},
                               "current_value": stage, "asks_back": args.asks_back, "ask_as": args.ask_as}
    texts = []
    answer = None
    if args.llm:
        from cbmemory.llm import make_chat_model, model_name

        from .reader import make_answerer

        llm = make_chat_model(args.llm, args.llm_base_url, max_tokens=args.answer_tokens)
        answer = make_answerer(llm)
        summary["reader"] = {"model": model_name(llm), "questions": args.llm_questions, "seed": args.seed}
    for factor in args.scale:
        hs = scaled_haystacks(chosen, factor, others=conversations, seed=args.seed)
        for family in families:
            cases = [c for c in generate(conversations, family, seed=args.seed, asks_back=args.asks_back,
                                      ask_as=args.ask_as)
                     if c.user_id in hs]
            label = f"x{factor}"
            ids = fixed_subset(cases, args.llm_questions, args.seed) if answer is not None else set()
            rows = run_cases(hs, cases, out / "work", cache, label=label, embedder=embedder, memory_options=options,
                             recall_options=recall, keep_text=args.keep_text, answer=answer, answer_ids=ids)
            path = out / f"cases-{family}-{label}.jsonl"
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            key = f"{family}@{label}"
            summary["results"][key] = {"all": summarise(rows)["all"], "variant": summarise(rows, "variant"),
                                       "kind": summarise(rows, "kind")}
            texts.append(f"### {key} ({len(rows)} questions, recipe {args.recipe})\n\n"
                         + table(summarise(rows, "variant") | summarise(rows), "variant") + "\n")
            if answer is not None:
                summary["results"][key]["reader"] = rs = reader_summary(rows)
                texts.append(_reader_line(key, rs))
            if not args.quiet:
                print(texts[-1], flush=True)
    if args.sample_links:
        texts.append(_sample_links(args, chosen, cache, embedder, options, out, summary))
        print(texts[-1], flush=True)
    if args.longmemeval:
        texts.append(_longmemeval(args, out, embedder, options, summary))
        if not args.quiet:
            print(texts[-1], flush=True)
    summary["wall_s"] = round(time.perf_counter() - started, 1)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    (out / "tables.md").write_text("\n".join(texts))
    print(f"wrote {out / 'summary.json'}, {out / 'tables.md'} in {summary['wall_s']:.0f} s")
    return 0


def _reader_line(key: str, rs: dict[str, Any]) -> str:
    def pct(x: Any) -> str:
        return "n/a" if x is None else f"{x:.2f}"

    a, b = rs["all"], rs["both_shown"]
    return (f"reader on {key}: {a['n']} questions, answers naming the stale value only {pct(a['stale'])}, the "
            f"current only {pct(a['current'])}, both {pct(a['both'])}, neither {pct(a['neither'])}; when both "
            f"values were shown ({b['n']}): stale only {pct(b['stale'])}, current only {pct(b['current'])}\n")


def _longmemeval(args: argparse.Namespace, out: Path, embedder: Any, options: dict[str, Any],
                 summary: dict[str, Any]) -> str:
    """LongMemEval's knowledge-update category, or one line saying why it is skipped."""
    from .longmemeval import ku_questions, run_ku
    from .metrics import summarise, table

    questions, why = ku_questions(args.longmemeval)
    if why is not None:
        summary["longmemeval"] = {"skipped": why}
        print(f"note: LongMemEval knowledge-update skipped: {why}", file=sys.stderr)
        return f"LongMemEval knowledge-update: skipped ({why})\n"
    rows = run_ku(questions[: args.longmemeval_limit], out / "work", embedder=embedder, memory_options=options)
    (out / "longmemeval-ku.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    summary["longmemeval"] = s = summarise(rows)["all"]
    return f"### LongMemEval knowledge-update ({len(rows)} questions)\n\n" + table({"KU": s}, "category") + "\n"


def _sample_links(args: argparse.Namespace, chosen: list[Any], cache: Path, embedder: Any,
                  options: dict[str, Any], out: Path, summary: dict[str, Any]) -> str:
    """A sample of the product's links on the plain ×1 conversations, for labelling."""
    from cbmemory import MemoryRecord

    from ..scale import scaled_haystacks
    from .links import sample_links, write_sample
    from .run import base_store

    if not hasattr(MemoryRecord, "supersedes"):
        summary["links"] = {"skipped": "this cbmemory keeps no supersession links"}
        return "supersession links: not available (this cbmemory keeps no supersession links)\n"
    hs = scaled_haystacks(chosen, 1)
    stores = [(base_store(h, cache, label="x1", embedder=embedder, memory_options=options), u) for u, h in hs.items()]
    links, total = sample_links(stores, args.sample_links, args.seed)
    path = out / "links-sample.jsonl"
    write_sample(links, path)
    turns = sum(h.turns for h in hs.values())
    summary["links"] = {"total": total, "turns": turns, "sampled": len(links), "file": str(path)}
    return (f"supersession links on the plain conversations (x1, {turns} turns): {total}; {len(links)} drawn "
            f"(seed {args.seed}) into {path}: set each \"label\" to \"update\" or \"not\", then `cbmemory eval "
            f"locomo-updates-labels --labels {path}`\n")


def cmd_labels(args: argparse.Namespace) -> int:
    from .links import score_labels

    s = score_labels(Path(args.labels))
    lo_hi = s["wilson95"]
    ci = "" if lo_hi is None else f" (Wilson 95 % {lo_hi[0]:.2f}-{lo_hi[1]:.2f})"
    prec = "n/a" if s["precision"] is None else f"{s['precision']:.3f}"
    print(f"{s['labelled']} of {s['links']} links labelled ({s['unlabelled']} unlabelled): {s['update']} updates, "
          f"precision {prec}{ci}")
    return 0


def register_updates(sub) -> None:
    p = sub.add_parser("locomo-updates", help="the knowledge-update benchmark: fact changes injected into LoCoMo",
                       description="Fact changes (20+ kinds, six ways of telling them, non-changes that look like "
                       "changes) injected into LoCoMo conversations and asked after the last session through "
                       "AgentMemory.recall: newest value shown, stale only, newest ranked above stale, marked, "
                       "tokens (docs/evaluation.md, 'Knowledge updates').")
    p.add_argument("--data", required=True, help="a LoCoMo file (official format)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--family", choices=FAMILY_CHOICES, default="train",
                   help="phrasing family: develop on train (and dev, fresh, blind, probe), report on test; both: "
                        "train and test (default: train)")
    p.add_argument("--scale", type=scales_arg, default=[1], help="haystack scales, e.g. 1,10 (default: 1)")
    p.add_argument("--conversations", type=positive, help="only the first N conversations (default: all)")
    p.add_argument("--only", help="only these conversations (comma-separated ids, e.g. conv-26,conv-30); their "
                   "cases are the ones a run on every conversation makes")
    p.add_argument("--seed", type=int, default=0, help="seed of the generator and of the distractor order")
    p.add_argument("--recipe", default="default", help="the recipe recall uses (default: default)")
    p.add_argument("--link-updates", action="store_true", help="ingest with IngestConfig(link_updates=True): "
                   "the product's write-time supersession links (off by default)")
    p.add_argument("--current-value", action=argparse.BooleanOptionalAction, default=None,
                   help="recall with the recipe's current_value stage on or off (the user's latest statements of the "
                   "fact asked about; RetrievalConfig.current_value; default: as the recipe has it, on in default)")
    p.add_argument("--asks-back", action="store_true", help="each injected statement ends with a question back "
                   "(\"..., how have you been?\"), as chat turns often do")
    p.add_argument("--ask-as", choices=("user", "agent", "name"), default="user", help="user: each question in the "
                   "first person, as the user asks it (default); agent: about \"the user\", as an agent's memory tool "
                   "asks it (\"Which city does the user live in?\"); name: about the user by their speaker's name "
                   "(\"Which city does John live in?\")")
    p.add_argument("--cache-dir", help="where the plain haystacks' stores live (default OUT/stores)")
    p.add_argument("--keep-text", action="store_true", help="keep what recall showed in each question's line")
    p.add_argument("--llm", help="reader model (ChatOpenAI): answers a fixed subset; scores whether the answer "
                   "names the current value or the stale one")
    p.add_argument("--llm-base-url", help="OpenAI-compatible server of the reader (e.g. a local one)")
    p.add_argument("--llm-questions", type=positive, default=20,
                   help="changes the reader answers per family and scale, a fixed draw (default: 20)")
    p.add_argument("--answer-tokens", type=int, default=64, help="cap on each answer's length (default: 64)")
    p.add_argument("--longmemeval", help="a LongMemEval file: its knowledge-update questions are scored the same "
                   "way (skipped, with the reason, when absent or without any)")
    p.add_argument("--longmemeval-limit", type=positive, help="only the first N knowledge-update questions")
    p.add_argument("--sample-links", type=positive, metavar="N",
                   help="also draw N of the product's supersession links on the plain x1 conversations into "
                   "OUT/links-sample.jsonl, for labelling (false supersession)")
    p.add_argument("--quiet", action="store_true", help="print only where the results went")
    p.set_defaults(func=cmd_updates)
    lab = sub.add_parser("locomo-updates-labels", help="precision of a labelled sample of supersession links",
                         description="Read a labelled links-sample.jsonl (each label 'update', 'not' or null) and "
                         "print the precision of the links with its Wilson 95 % interval.")
    lab.add_argument("--labels", required=True, help="the labelled file")
    lab.set_defaults(func=cmd_labels)
