"""The second search's width (``current_value.HEAD_EMBEDDED``) chosen by leave one conversation out on the `train` and
`dev` phrasings, ×1 and ×10 (README.md, "The second search's width chosen by leave one conversation out"), from the
product's own runs with each setting (``cbmemory eval locomo-updates --keep-text``, ``HEAD_EMBEDDED`` patched in):
``ROOT/w{width}_{family}{1|10}/cases-{family}-x{1|10}.jsonl``.

    python3 experiments/knowledge_updates/head/width_cv.py ROOT
"""

from __future__ import annotations

import json
import sys

WIDTHS = (25, 50, 100, 200)
SHIPPED = 50
RECORDS = [(family, scale) for family in ("train", "dev") for scale in (1, 10)]


def counts(root: str, width: int, family: str, scale: int) -> dict[str, tuple[int, int, int, int]]:
    """Per conversation: newest shown, stale only, changes, own value shown."""
    out: dict[str, list[int]] = {}
    for line in open(f"{root}/w{width}_{family}{scale}/cases-{family}-x{scale}.jsonl"):
        c = json.loads(line)
        row = out.setdefault(c["case_id"].split(":")[0], [0, 0, 0, 0])
        if c["is_change"]:
            row[0] += c["new_shown"]
            row[1] += c["stale_shown"] and not c["new_shown"]
            row[2] += 1
        else:
            row[3] += c["new_shown"]
    return {k: (v[0], v[1], v[2], v[3]) for k, v in out.items()}


def objective(got: dict, width: int, among: list[str]) -> float:
    total = 0.0
    for rec in RECORDS:
        rows = [got[width, rec][c] for c in among]
        total += sum(r[0] - r[1] for r in rows) / sum(r[2] for r in rows)
    return total


def main(root: str) -> None:
    got = {(w, rec): counts(root, w, *rec) for w in WIDTHS for rec in RECORDS}
    convs = sorted(got[SHIPPED, RECORDS[0]])
    chosen, held = [], {rec: [0, 0, 0] for rec in RECORDS}
    for c in convs:
        rest = [x for x in convs if x != c]
        best = max(WIDTHS, key=lambda w: (round(objective(got, w, rest), 9), w == SHIPPED, -w))
        chosen.append(best)
        for rec in RECORDS:
            r = got[best, rec][c]
            held[rec] = [held[rec][0] + r[0], held[rec][1] + r[1], held[rec][2] + r[3]]
    print("folds chose:", chosen)
    print("held out (newest shown, stale only, own value):", held)
    for w in WIDTHS:
        print(w, {f"{f} x{s}": tuple(sum(got[w, (f, s)][c][i] for c in convs) for i in (0, 1, 3)) for f, s in RECORDS},
              round(objective(got, w, convs), 4))


if __name__ == "__main__":
    main(sys.argv[1])
