"""The second search's width (``current_value.HEAD_EMBEDDED``) chosen by leave one conversation out on the `train` and
`dev` phrasings, ×1 and ×10 (README.md, "The second search's width chosen by leave one conversation out"), from the
product's own runs with each setting (``cbmemory eval locomo-updates --keep-text``, ``HEAD_EMBEDDED`` patched in):
``ROOT/w{width}_{family}{1|10}/cases-{family}-x{1|10}.jsonl``.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/width_cv.py ROOT
"""

from __future__ import annotations

import sys

from cv import choose, run_counts

WIDTHS = (25, 50, 100, 200)
SHIPPED = 50
RECORDS = [(family, f"x{scale}") for family in ("train", "dev") for scale in (1, 10)]


def main(root: str) -> None:
    got = {}
    for w in WIDTHS:
        for family, scale in RECORDS:
            path = f"{root}/w{w}_{family}{scale[1:]}/cases-{family}-{scale}.jsonl"
            for conv, row in run_counts(path, lines=False).items():  # lines not counted, as the rule set
                got[w, (family, scale), conv] = row
    convs = sorted({conv for _, _, conv in got})
    choose(got, RECORDS, convs, list(WIDTHS), lambda w: (w == SHIPPED, -w))


if __name__ == "__main__":
    main(sys.argv[1])
