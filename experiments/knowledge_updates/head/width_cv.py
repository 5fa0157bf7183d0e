"""The second search's width (``current_value.HEAD_EMBEDDED``) chosen by leave one conversation out on the `train` and
`dev` phrasings, ×1 and ×10 (README.md, "The second search's width chosen by leave one conversation out"), from the
product's own runs with each setting (``cbmemory eval locomo-updates --keep-text``, ``HEAD_EMBEDDED`` patched in):
``ROOT/w{width}_{family}{1|10}/cases-{family}-x{1|10}.jsonl``.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/width_cv.py ROOT
"""

from __future__ import annotations

import json
import sys

from cv import choose

WIDTHS = (25, 50, 100, 200)
SHIPPED = 50
RECORDS = [(family, f"x{scale}") for family in ("train", "dev") for scale in (1, 10)]


def counts(root: str, width: int, family: str, scale: str) -> dict[str, tuple[int, int, int, int, int, float]]:
    """Per conversation, as ``cv.outcome`` gives them: newest shown, stale only, changes, own value shown, other
    questions, and lines added a question (not counted here: 0, so ``cv.objective`` is newest shown − stale only)."""
    out: dict[str, list[int]] = {}
    for line in open(f"{root}/w{width}_{family}{scale[1:]}/cases-{family}-{scale}.jsonl"):
        c = json.loads(line)
        row = out.setdefault(c["case_id"].split(":")[0], [0, 0, 0, 0, 0])
        if c["is_change"]:
            row[0] += c["new_shown"]
            row[1] += c["stale_shown"] and not c["new_shown"]
            row[2] += 1
        else:
            row[3] += c["new_shown"]
            row[4] += 1
    return {k: (*v, 0.0) for k, v in out.items()}


def main(root: str) -> None:
    got = {}
    for w in WIDTHS:
        for rec in RECORDS:
            for conv, row in counts(root, w, *rec).items():
                got[w, rec, conv] = row
    convs = sorted({conv for _, _, conv in got})
    choose(got, RECORDS, convs, list(WIDTHS), lambda w: (w == SHIPPED, -w))


if __name__ == "__main__":
    main(sys.argv[1])
