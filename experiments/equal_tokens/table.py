"""The equal-token tables of a `run.sh` run, from its summary.json: one per haystack scale (every row at k and
at 512 / 1,024 / 2,048 tokens of what the reader gets) and the headline (the default recipes against the
peers, x1 and x10 side by side).

    .venv/bin/python experiments/equal_tokens/table.py [OUT]      # OUT: run.sh's output (/tmp/eqwork/out)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BUDGETS = (512, 1024, 2048)
HEADLINE = ("default", "default_sparse", "default_no_window", "langchain_vector", "langchain_ensemble",
            "llamaindex_vector", "llamaindex_fusion")


def _fmt(v: float | None, tokens: bool = False) -> str:
    if v is None:
        return "—"
    return f"{v:,.0f}" if tokens else f"{v:.3f}"


def scale_table(results: dict, k: int, scale: str) -> str:
    cols = [f"recall@{k}", f"session_recall@{k}", f"tokens@{k}", *(f"recall@{b}t" for b in BUDGETS),
            "hits@2048t", "deep_enough@2048t"]
    lines = [f"| row ({scale}) | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for name, entry in results.items():
        if not name.endswith(f"@{scale}"):
            continue
        o = entry["overall"]
        cells = [_fmt(o.get(c), c.startswith(("tokens", "hits"))) for c in cols]
        lines.append(f"| `{name.rsplit('@', 1)[0]}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def headline(results: dict, k: int) -> str:
    head = ["row", f"recall@{k} (tokens) ×1", *(f"@{b}t ×1" for b in BUDGETS), f"recall@{k} ×10",
            *(f"@{b}t ×10" for b in BUDGETS)]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for name in HEADLINE:
        cells = []
        for scale in ("x1", "x10"):
            o = results.get(f"{name}@{scale}", {}).get("overall", {})
            first = _fmt(o.get(f"recall@{k}"))
            if scale == "x1":
                first += f" ({_fmt(o.get(f'tokens@{k}'), True)})"
            cells += [first, *(_fmt(o.get(f"recall@{b}t")) for b in BUDGETS)]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(out: Path) -> None:
    summary = json.loads((out / "summary.json").read_text())
    k, results = summary["settings"]["k"], summary["results"]
    n = {name: e["overall"]["n"] for name, e in results.items()}
    print(f"{out}: {len(results)} rows, questions per row {min(n.values())}–{max(n.values())}\n")
    for scale in ("x1", "x10"):
        print(scale_table(results, k, scale), end="\n\n")
    print(headline(results, k))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/eqwork/out"))
