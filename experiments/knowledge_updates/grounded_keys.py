"""Issue 31, the LLM path: the keys the local model gave (``llm-links-conv*-train-v3.jsonl``, prompt ``enrich-v3``)
read again with ``cbmemory.ingest.slots.grounded`` (a value must be found in its line's words). Counts the keys it
drops and the links by the model's keys before and after (a common key, values not ``same_value``), on the stored
answers: no model is called. The cases are regenerated one conversation at a time, as ``llm_links.py --only`` made
them.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/grounded_keys.py \\
        --data ../shared/data/locomo/locomo-dev.json experiments/knowledge_updates/llm-links-conv26-train-v3.jsonl \\
        experiments/knowledge_updates/llm-links-conv30-train-v3.jsonl
"""

import argparse
import json

from cbmemory.ingest.slots import grounded, same_value
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate


def keyed_link(newer: dict[str, str], older: dict[str, str]) -> bool:
    return any(k in older and not same_value(v, older[k]) for k, v in newer.items())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("answers", nargs="+")
    args = p.parse_args()
    rows = [json.loads(line) for path in args.answers for line in open(path)]
    convs = {c.sample_id: c for c in load_locomo(args.data)}
    cases = {}
    for cid in sorted({r["case"].split(":")[0] for r in rows}):
        cases.update({c.case_id: c for c in generate([convs[cid]], "train")})
    tot = {"keys": 0, "dropped": 0, "changes": 0, "linked_before": 0, "linked_after": 0, "others": 0,
           "false_before": 0, "false_after": 0}
    for r in rows:
        case = cases[r["case"]]
        said = {m.turn_id: m.content for inj in case.injections for m in inj.messages}
        texts = [" ".join(said[t] for t in turns if t in said) for turns in (case.current_turns, case.stale_turns)]
        keys = [r["llm"].get("keys_current", {}), r["llm"].get("keys_stale", {})]
        kept = [{k: v for k, v in ks.items() if grounded(v, text)} for ks, text in zip(keys, texts, strict=True)]
        tot["keys"] += sum(map(len, keys))
        tot["dropped"] += sum(map(len, keys)) - sum(map(len, kept))
        for ks, ok in zip(keys, kept, strict=True):
            for k in ks.keys() - ok.keys():
                print(f"dropped {r['case']:28} {k}: {ks[k]!r}")
        name = "linked" if case.is_change else "false"
        tot["changes" if case.is_change else "others"] += 1
        tot[f"{name}_before"] += keyed_link(*keys)
        tot[f"{name}_after"] += keyed_link(*kept)
    print(tot)


if __name__ == "__main__":
    main()
