"""Metrics of the knowledge-update benchmark: pure functions of what one recall showed.

Per question (``case_metrics``), from the hits best first, each with the turn ids its passage shows (the
hit and its window):

- ``new_shown``: a turn of the current value's latest statement is shown (for a non-change: the user's own
  value, "own value still shown");
- ``stale_only``: a turn of the stale value (a non-change: someone else's value) is shown and none of the
  current one's;
- ``new_above_stale``: the current value's first passage ranks strictly above the stale one's (or the stale
  one is not shown); ``None`` when the current one is not shown;
- ``marked``: every shown stale turn is marked as changed and no current turn is (``None`` when the stale
  value is not shown, or when the product marks nothing: ``marks`` is ``None``);
- ``tokens``: the size of what the reader is given.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..metrics import mean

CHANGE_METRICS = ("new_shown", "stale_only", "new_above_stale", "marked")


def _first(ranked: Sequence[Iterable[str]], ids: set[str]) -> int | None:
    for i, shown in enumerate(ranked):
        if ids & set(shown):
            return i
    return None


def case_metrics(current: Sequence[str], stale: Sequence[str], ranked: Sequence[Iterable[str]], *,
                 marks: Mapping[str, bool] | None = None, tokens: int = 0) -> dict[str, Any]:
    """The metrics of one question; ``ranked``: per hit (best first) the turn ids it shows; ``marks``:
    per shown turn id whether it is marked as changed (``None``: the product marks nothing)."""
    cur, old = set(current), set(stale)
    rc, ro = _first(ranked, cur), _first(ranked, old)
    shown = {t for passage in ranked for t in passage}
    marked = None
    if marks is not None and ro is not None:
        marked = all(marks.get(t, False) for t in old & shown) and not any(marks.get(t, False) for t in cur & shown)
    return {
        "new_shown": rc is not None,
        "stale_shown": ro is not None,
        "stale_only": ro is not None and rc is None,
        "new_above_stale": None if rc is None else (ro is None or rc < ro),
        "marked": marked,
        "tokens": tokens,
    }


def summarise(records: Sequence[Mapping[str, Any]], by: str | None = None) -> dict[str, dict[str, Any]]:
    """Means per group (``by``: a record key such as ``variant``, ``kind`` or ``family``; ``None``: one group
    ``all``), changes and non-changes apart: ``n``, the change metrics, and for non-changes ``own_shown``
    and ``other_only``."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in records:
        groups["all" if by is None else str(r[by])].append(r)
    out = {}
    for name, rs in sorted(groups.items()):
        ch = [r for r in rs if r["is_change"]]
        no = [r for r in rs if not r["is_change"]]
        row: dict[str, Any] = {"n": len(ch), "n_other": len(no)}
        for m in CHANGE_METRICS:
            row[m] = mean(r[m] for r in ch)
        row["linked"] = mean(r.get("linked") for r in ch)
        row["own_shown"] = mean(r["new_shown"] for r in no)
        row["other_only"] = mean(r["stale_only"] for r in no)
        row["false_link"] = mean(r.get("linked") for r in no)
        row["tokens"] = mean(r["tokens"] for r in rs)
        out[name] = row
    return out


def table(summary: Mapping[str, Mapping[str, Any]], title: str) -> str:
    """A markdown table of ``summarise``'s output (``linked``: changes whose new statement the product
    linked to the old one at write time; ``false_link``: non-changes where someone else's fact was linked
    to the user's own)."""
    cols = ("n", "new_shown", "stale_only", "new_above_stale", "marked", "linked", "n_other", "own_shown",
            "false_link", "tokens")

    def cell(v: Any) -> str:
        return "n/a" if v is None else str(v) if isinstance(v, int) else f"{v:.2f}" if v < 10 else f"{v:.0f}"

    lines = [f"| {title} | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    lines += [f"| {name} | " + " | ".join(cell(row.get(c)) for c in cols) + " |" for name, row in summary.items()]
    return "\n".join(lines)
