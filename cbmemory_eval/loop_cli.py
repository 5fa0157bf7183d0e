"""``cbmemory eval locomo-loop`` and ``cbmemory eval loop-report``: the agent-loop benchmark (``loop.py``,
``loop_run.py``, ``loop_report.py``) on the command line, registered beside ``eval locomo`` by ``cli.register``.

Top-level imports stay light: everything heavy loads inside the command functions.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cbmemory.cli import Interrupted, csv, positive

from .data_files import check_data


def _wrong_every(text: str) -> int:
    """0 (no wrong-answer variant) or a whole number of at least 2."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError("--wrong-every is 0 (no wrong replies) or at least 2 (every N-th reply wrong)")
    return value


def _loop_set(args: argparse.Namespace, data: Path):
    """The conversations asked (all, ``--conversations N`` first ones, or ``--only``) and their questions
    (all, or the first ``--questions N`` of each)."""
    import dataclasses

    from cbmemory import InvalidInputError

    from .datasets.locomo import load_locomo
    from .questions import from_locomo

    conversations = load_locomo(data)
    if args.only:
        wanted = csv(args.only)
        unknown = [w for w in wanted if w not in {c.sample_id for c in conversations}]
        if unknown:
            raise InvalidInputError(f"--only names {unknown}, not conversations of {data}")
        conversations = [c for c in conversations if c.sample_id in wanted]
    elif args.conversations:
        conversations = conversations[: args.conversations]
    es = from_locomo(conversations)
    if args.questions:
        taken: dict[str, int] = {}
        kept = []
        for q in es.questions:
            if taken.get(q.user_id, 0) < args.questions:
                taken[q.user_id] = taken.get(q.user_id, 0) + 1
                kept.append(q)
        es = dataclasses.replace(es, questions=tuple(kept))
    return es


def _chosen_recipes(args: argparse.Namespace) -> list:
    """``--recipes`` by name, then each ``--recipe-file`` (a ``Recipe.to_json`` file: a retrieval variant)."""
    from cbmemory.recipes import Recipe, get_recipe

    named = [get_recipe(n) for n in csv(args.recipes)]
    return named + [Recipe.from_json(Path(p).read_text(encoding="utf-8")) for p in args.recipe_file or ()]


def loop_benchmark(data: str | Path, out: str | Path, recipes, *, cache_dir: str | Path | None = None,
                   wrong_every: int | None = 5, k: int = 10, conversations=None, questions: int | None = None,
                   fresh: bool = False, progress: bool = True) -> str:
    """Run the loop benchmark on a LoCoMo file for ``recipes`` (names or ``Recipe`` objects, e.g.
    ``get_recipe("default").with_(name="default_roleprior", ...)``) and return the report's Markdown (also in
    ``out/loop.md``): the reusable "before/after" table of issue 24. ``conversations``: sample ids (default all)."""
    from .loop_report import write_loop_report
    from .loop_run import run_loop

    args = argparse.Namespace(only=",".join(conversations) if conversations else None, conversations=None,
                              questions=questions)
    es = _loop_set(args, Path(data))
    run_loop(es, out, list(recipes), k=k, wrong_every=wrong_every, store_dir=cache_dir, fresh=fresh,
             progress=progress, settings={"data": str(data), "conversations": sorted({q.user_id for q in es.questions}),
                                          "questions_per_conversation": questions})
    return write_loop_report(out)[1]


def cmd_loop(args: argparse.Namespace) -> int:
    from .loop_report import write_loop_report
    from .loop_run import run_loop

    started = time.perf_counter()
    data = check_data(args.data, "locomo")
    if data is None:
        return 2
    es = _loop_set(args, data)
    try:
        run_loop(es, args.out, _chosen_recipes(args), k=args.k, wrong_every=args.wrong_every or None,
                 store_dir=args.cache_dir, fresh=args.fresh, progress=not args.quiet,
                 settings={"data": str(data), "conversations": sorted({q.user_id for q in es.questions}),
                           "questions_per_conversation": args.questions})
    except KeyboardInterrupt:
        raise Interrupted(f"the rows written so far are kept in {Path(args.out) / 'questions'} and the loop's stores "
                          f"in {Path(args.out) / 'stores'}; the same command goes on from there") from None
    _, text = write_loop_report(args.out)
    print(text)
    print(f"wrote {Path(args.out) / 'loop_summary.json'}, {Path(args.out) / 'loop.md'} in "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


def cmd_loop_report(args: argparse.Namespace) -> int:
    from .loop_report import write_loop_report

    _, text = write_loop_report(args.out)
    print(text)
    return 0


def register_loop(sub) -> None:
    """``locomo-loop`` and ``loop-report`` under ``cbmemory eval``."""
    p = sub.add_parser("locomo-loop", help="agent-loop benchmark on LoCoMo: each question asked and answered in a "
                       "new session, recall scored at the moment it is asked (deterministic, no LLM)",
                       description="Ingest each conversation (the evaluation's stores), then ask its questions in "
                       "order, each in a new session dated after the conversation (one day after its last session, "
                       "ten minutes per question), through AgentMemory.recall and AgentMemory.save as an agent "
                       "adapter does; the model is replaced by a reply that restates the top memory it was shown "
                       "and gives the gold answer. Reports source recall@k (the conversation's own turns only) "
                       "beside the same questions without the loop, the top-k slots the loop's turns take, tokens, "
                       "search p95 and how often a reply is read later without its source; per category, fold "
                       "and conversation. Resumable; cbmemory_eval/README.md defines every figure.")
    p.add_argument("--data", required=True, help="the LoCoMo file (official format)")
    p.add_argument("--out", required=True, help="output folder (resumable: a second run goes on where the first "
                   "stopped)")
    p.add_argument("--recipes", default="default", help="comma-separated recipe names (default: default)")
    p.add_argument("--recipe-file", action="append", metavar="JSON", help="also a recipe from a file written by "
                   "Recipe.to_json (a retrieval variant under its own name); may be given more than once")
    p.add_argument("--k", type=positive, default=10, help="memories recalled per question (default 10)")
    p.add_argument("--wrong-every", type=_wrong_every, default=5, help="also run a variant where every N-th reply "
                   "of a conversation gives a wrong answer (another question's gold answer); 0: no such variant "
                   "(default 5)")
    pick = p.add_mutually_exclusive_group()
    pick.add_argument("--conversations", type=positive, help="only the first N conversations (default: all)")
    pick.add_argument("--only", help="only these conversations, e.g. conv-26,conv-30")
    p.add_argument("--questions", type=positive, help="only the first N questions of each conversation")
    p.add_argument("--cache-dir", help="where the ingested stores live (default OUT/cache); share cbmemory eval's "
                   "to skip the ingest: the loop copies them and never writes to them")
    p.add_argument("--fresh", action="store_true", help="discard earlier rows and loop stores in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_loop)
    rep = sub.add_parser("loop-report", help="rewrite loop_summary.json and loop.md of a locomo-loop run")
    rep.add_argument("--out", required=True, help="the output folder of an earlier `cbmemory eval locomo-loop` run")
    rep.set_defaults(func=cmd_loop_report)


__all__ = ["cmd_loop", "cmd_loop_report", "loop_benchmark", "register_loop"]
