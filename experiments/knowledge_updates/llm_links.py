"""Issue 31: the optional LLM path of supersession (an ``Enricher`` with the ``facts`` mode and ``link_updates``: the
extraction gives each lasting fact of the user a slot key, and a later fact of the same key links to the earlier)
against the rules alone, on the knowledge-update benchmark's injected statements only (no haystack: this measures
whether the model keys the old and the new statement alike, not the search for candidates in a long memory).

Per case of the chosen conversations (``train`` phrasings): each injection (the user's statement and the
assistant's reply) is a session of its own, dated as the session it is injected into, in one fresh store per case
and path. A change counts as linked when the record of its current statement supersedes the record of the stale
one; someone else's fact (``other``) counts as a false link when either statement supersedes the other.

    ../shared/tools/local-llm/serve.sh
    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/llm_links.py \
        --data ../shared/data/locomo/locomo-dev.json --only conv-26 --base-url http://127.0.0.1:8765/v1 --out OUT.jsonl
"""

import argparse
import collections
import json
import tempfile
import time
from pathlib import Path

from cbmemory import AgentMemory
from cbmemory.ingest.config import EnrichConfig, IngestConfig
from cbmemory.ingest.enrich.factory import make_enricher
from cbmemory.ingest.slots import slots_of
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate


def linked(mem: AgentMemory, user: str, newer: tuple[str, ...], older: tuple[str, ...]) -> bool:
    recs = {r.turn_id: r for r in mem.session_records(user, kinds=None) if r.turn_id}
    old_ids = {recs[t].record_id for t in older if t in recs}
    return any(old_ids & set(recs[t].supersedes) for t in newer if t in recs)


def keys(mem: AgentMemory, user: str, turns: tuple[str, ...]) -> dict[str, str]:
    """The slot keys the extraction gave the records of ``turns`` (key: value)."""
    return {k: v for r in mem.session_records(user, kinds=None) if r.turn_id in turns for k, v in slots_of(r).items()}


def run_case(case, dates: dict[str, object], ingest: IngestConfig, enricher, folder: Path) -> dict:
    path = folder / f"{case.case_id.replace(':', '-')}-{'llm' if enricher else 'rules'}.db"
    mem = AgentMemory.open(path, ingest=ingest, enricher=enricher)
    try:
        for i, inj in enumerate(case.injections):
            mem.add_session(case.user_id, f"{inj.session_id}-{inj.step}-{i}", list(inj.messages),
                            date=dates[inj.session_id])
        cur, stale = case.current_turns, case.stale_turns
        seen = {"keys_current": keys(mem, case.user_id, cur), "keys_stale": keys(mem, case.user_id, stale)} \
            if enricher else {}
        if case.is_change:
            return {"linked": linked(mem, case.user_id, cur, stale), **seen}
        return {"false_link": linked(mem, case.user_id, cur, stale) or linked(mem, case.user_id, stale, cur), **seen}
    finally:
        mem.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--only", required=True, help="conversations, comma-separated")
    p.add_argument("--family", default="train")
    p.add_argument("--model", default="local-gguf")
    p.add_argument("--base-url", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    only = set(args.only.split(","))
    convs = [c for c in load_locomo(args.data) if c.sample_id in only]
    dates = {s.session_id: s.date for c in convs for s in c.sessions}
    cases = generate(convs, args.family)
    rules = IngestConfig(link_updates=True)
    llm = IngestConfig(link_updates=True, enrich=EnrichConfig(modes=("facts",)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        enricher = make_enricher(args.model, args.base_url, cache_path=Path(tmp) / "cache.db", api_key="local",
                                 max_concurrency=1)
        for case in cases:
            t0 = time.perf_counter()
            row = {"case": case.case_id, "variant": case.variant,
                   "rules": run_case(case, dates, rules, None, Path(tmp)),
                   "llm": run_case(case, dates, llm, enricher, Path(tmp)), "seconds": 0.0}
            row["seconds"] = round(time.perf_counter() - t0, 1)
            rows.append(row)
            print(json.dumps(row), flush=True)
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    for path in ("rules", "llm"):
        by: dict[str, list[bool]] = collections.defaultdict(list)
        for r in rows:
            for k, v in r[path].items():
                if isinstance(v, bool):
                    by[k].append(v)
        print(path, {k: f"{sum(v)}/{len(v)}" for k, v in by.items()})


if __name__ == "__main__":
    main()
