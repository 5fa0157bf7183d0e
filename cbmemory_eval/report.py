"""The report step: per-question JSONL -> summary.json, a Markdown table and a heatmap of the interaction
matrix (rows: recipes, baselines, peers; columns: question categories).

``summary.json``::

    {"settings": {...run.json...},
     "results": {row: {"recipe": {...Recipe.to_dict()...} or None, "overall": {metric: value},
                       "overall_answerable": {...}, "by_category": {category: {...}}, "describe": {...}}}}

``overall`` counts every category (LoCoMo 1-5, as the LoCoMo paper's table counts them);
``overall_answerable`` leaves out LoCoMo's adversarial and LongMemEval's abstention questions. Retrieval
metrics average over questions with evidence (``n_no_evidence`` counts the others); QA metrics over
answered questions where they apply (``None`` values are left out: a metric that does not apply, or J and
sufficiency in a run without a judge). The date scores of temporal questions average over the questions
whose gold names a usable date (``n_date_scored``; an answer without a date is in them as a miss, see
``answer_scores``); ``n_date_gold_unusable`` counts the temporal questions whose gold has none, and
``date_error_days`` averages over the answers that name a date. With a judge, ``crosstab`` splits answers
by context sufficiency and verdict: sufficient ∧ wrong = reasoning failure, insufficient ∧ wrong =
retrieval failure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cbmemory import InvalidInputError

from .metrics import aggregate, percentile
from .rows import EvalSetupError
from .run_state import TOKEN_BUDGETS
from .runner import read_jsonl

GROUPS = ("overall", "overall_answerable")


class UnknownMetricError(InvalidInputError):
    """A metric asked for (``--metrics``) that no row of the run has."""


def _group_stats(recs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    metrics = [r.get("metrics", {}) for r in recs]
    out: dict[str, Any] = {k: v for k, v in aggregate(metrics).items() if v is not None}
    out["n"] = len(recs)
    out["n_no_evidence"] = sum(1 for r in recs if not r.get("evidence"))
    out["n_no_session_evidence"] = sum(1 for r in recs if not r.get("evidence_sessions"))
    for name in ("latency_ms", "latency_total_ms"):
        values = [m.get(name) for m in metrics]
        for q in (50, 95):
            p = percentile(values, q)
            if p is not None:
                out[f"{name}_p{q}"] = p
    answered = [r for r in recs if "answer" in r]
    if answered:
        out["n_answered"] = len(answered)
        usable = [m.get("date_gold_usable") for m in metrics]
        out["n_date_scored"] = sum(1 for u in usable if u == 1.0)
        out["n_date_gold_unusable"] = sum(1 for u in usable if u == 0.0)
    judged = [r for r in answered if r.get("judge")]
    if judged:
        out["n_judged"] = len(judged)
        cross = {"sufficient_correct": 0, "sufficient_wrong": 0, "insufficient_correct": 0,
                 "insufficient_wrong": 0}
        for r in judged:
            suff = (r.get("sufficiency") or {}).get("verdict")
            if suff is None:
                continue
            right = bool(r["judge"].get("verdict"))
            cross[f"{'sufficient' if suff else 'insufficient'}_{'correct' if right else 'wrong'}"] += 1
        out["crosstab"] = cross
        wrong = cross["sufficient_wrong"] + cross["insufficient_wrong"]
        if wrong:
            out["retrieval_failure_share"] = cross["insufficient_wrong"] / wrong
            out["reasoning_failure_share"] = cross["sufficient_wrong"] / wrong
    return out


def summarise(out_dir: str | Path) -> dict[str, Any]:
    """Aggregate every row's JSONL into the summary (also written to ``out_dir/summary.json``)."""
    out = Path(out_dir)
    if not (out / "run.json").is_file():
        raise EvalSetupError(f"{out} holds no evaluation run (no run.json); write one with `cbmemory eval locomo "
                             f"--data FILE --out {out}` (or `eval longmemeval`)")
    settings = json.loads((out / "run.json").read_text())
    categories = [c["name"] for c in settings["categories"]]
    unanswerable = {c["name"] for c in settings["categories"] if c.get("unanswerable")}
    results: dict[str, Any] = {}
    for name, describe in settings["rows"].items():
        recs = read_jsonl(out / "questions" / f"{name}.jsonl")
        if not recs:
            continue
        entry: dict[str, Any] = {
            "recipe": describe.get("recipe"),  # the serialised recipe of a recipe row (None otherwise)
            "describe": describe,
            "overall": _group_stats(recs),
            "overall_answerable": _group_stats([r for r in recs if r["category"] not in unanswerable]),
            "by_category": {c: _group_stats([r for r in recs if r["category"] == c]) for c in categories
                            if any(r["category"] == c for r in recs)},
        }
        results[name] = entry
    summary = {"settings": settings, "results": results}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    return summary


QA_METRICS = ("J", "sufficiency", "f1", "contains", "date_within_7")


EQUAL_TOKENS = "recall@1024t"  # recall at equal tokens (``run_state.budget_metrics``), in the default tables


def default_metrics(summary: Mapping[str, Any]) -> list[str]:
    """The QA metrics some row has (J and sufficiency only with a judge), then recall@k, recall_all@k and
    recall at 1,024 tokens of what the reader gets (when some row has it: runs before it do not)."""
    k = summary["settings"]["k"]
    retrieval = [f"recall@{k}", f"recall_all@{k}"]
    groups = [r["overall"] for r in summary["results"].values()]
    tokens = [EQUAL_TOKENS] if any(EQUAL_TOKENS in g for g in groups) else []
    return [m for m in QA_METRICS if any(m in g for g in groups)] + retrieval + tokens


def _columns(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, header) for every column: the categories, then the two overall groups."""
    cats = summary["settings"]["categories"]
    cols = []
    for c in cats:
        alt = c.get("alt_label")
        extra = f"; mem0: {alt}" if alt and alt != c["name"] else ""
        cols.append((c["name"], f"{c['name']} ({c['code']}{extra})"))
    names = [c["name"] for c in cats if c.get("unanswerable")]
    cols.append(("overall", "overall"))
    cols.append(("overall_answerable", f"overall w/o {'/'.join(names) or '-'}"))
    return cols


def cell(summary: Mapping[str, Any], row: str, column: str, metric: str) -> float | None:
    entry = summary["results"][row]
    group = entry[column] if column in GROUPS else entry["by_category"].get(column, {})
    value = group.get(metric)
    return float(value) if isinstance(value, (int, float)) else None


def _fmt(value: float | None, metric: str) -> str:
    if value is None:
        return "—"
    if metric == "n" or metric.startswith("n_"):
        return f"{value:,.0f}"
    if metric.startswith(("tokens", "latency", "k_auto", "n_", "hits@", "budget_depth")) or metric.endswith("_days"):
        return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"
    return f"{value:.3f}"


def markdown(summary: Mapping[str, Any], metrics: Sequence[str] | None = None) -> str:
    """One table per metric (rows x categories, best per column in bold) and a cost table."""
    metrics = list(metrics or default_metrics(summary))
    rows = list(summary["results"])
    cols = _columns(summary)
    k = summary["settings"]["k"]
    parts = []
    for metric in metrics:
        shown = [r for r in rows if any(cell(summary, r, key, metric) is not None for key, _ in cols)]
        if not shown:
            continue
        lines = [f"**{metric}**", "", "| row | " + " | ".join(h for _, h in cols) + " |",
                 "|---|" + "---:|" * len(cols)]
        best: dict[str, float | None] = {}
        for key, _ in cols:
            vals = [v for v in (cell(summary, r, key, metric) for r in shown) if v is not None]
            best[key] = max(vals) if vals else None
        for r in shown:
            cells = []
            for key, _ in cols:
                v = cell(summary, r, key, metric)
                text = _fmt(v, metric)
                cells.append(f"**{text}**" if v is not None and v == best[key] and len(shown) > 1 else text)
            lines.append(f"| {r} | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    if any(EQUAL_TOKENS in summary["results"][r]["overall"] for r in rows):
        parts.append(_equal_tokens_table(summary, rows))
    at_budget = ["hits@1024t"] if EQUAL_TOKENS in metrics else []  # how many hits 1,024 tokens hold
    cost = [f"tokens@{k}", *at_budget, "latency_ms_p50", "latency_total_ms_p50", "latency_total_ms_p95", "n",
            "n_no_evidence"]
    lines = ["**costs and counts (all questions)**", "", "| row | " + " | ".join(cost) + " |",
             "|---|" + "---:|" * len(cost)]
    for r in rows:
        lines.append(f"| {r} | " + " | ".join(_fmt(cell(summary, r, 'overall', m), m) for m in cost) + " |")
    parts.append("\n".join(lines))
    if any("crosstab" in summary["results"][r]["overall"] for r in rows):
        lines = ["**context sufficiency x verdict (answerable questions)**", "",
                 "| row | sufficient+correct | sufficient+wrong (reasoning) | insufficient+wrong (retrieval) | "
                 "insufficient+correct | retrieval share of failures |", "|---|---:|---:|---:|---:|---:|"]
        for r in rows:
            g = summary["results"][r]["overall_answerable"]
            c = g.get("crosstab")
            if c:
                share = g.get("retrieval_failure_share")
                lines.append(f"| {r} | {c['sufficient_correct']} | {c['sufficient_wrong']} | "
                             f"{c['insufficient_wrong']} | {c['insufficient_correct']} | "
                             f"{'—' if share is None else f'{share:.2f}'} |")
        parts.append("\n".join(lines))
    if any(summary["results"][r]["overall"].get("n_date_scored") is not None for r in rows):
        parts.append(_date_table(summary, rows))
    s = summary["settings"]
    notes = [f"k={k}; embedder {s.get('embedder')}; {s.get('question_date')}."]
    if s.get("qa"):
        qa = s["qa"]
        judge = f"judge {qa['judge_model']}" if qa.get("judge_model") else "no judge (automatic scores only)"
        notes.append(f"Reader {qa['reader']}, {judge} (prompts {qa['prompt_version']}).")
    parts.append(" ".join(notes))
    return "\n\n".join(parts) + "\n"


def equal_tokens_columns(k: int) -> list[str]:
    """The equal-token table's columns: recall, session recall and tokens at k, then recall at each token
    budget, how many hits the largest holds and how often the list was deep enough to fill it."""
    top = max(TOKEN_BUDGETS)
    return [f"recall@{k}", f"session_recall@{k}", f"tokens@{k}", *(f"recall@{b}t" for b in TOKEN_BUDGETS),
            f"hits@{top}t", f"deep_enough@{top}t"]


def _equal_tokens_table(summary: Mapping[str, Any], rows: Sequence[str]) -> str:
    """Every row at k and at equal tokens of what the reader gets (all questions; best recall in bold)."""
    cols = equal_tokens_columns(summary["settings"]["k"])
    lines = ["**at equal tokens (all questions): recall of what fits each budget, the hits in rank order (baselines: "
             "conversation order), each with its window**", "", "| row | " + " | ".join(cols) + " |",
             "|---|" + "---:|" * len(cols)]
    values = {r: [cell(summary, r, "overall", m) for m in cols] for r in rows}
    best = [max([x for v in values.values() if (x := v[i]) is not None], default=None) for i in range(len(cols))]
    for r in rows:
        cells = []
        for i, (m, v) in enumerate(zip(cols, values[r], strict=True)):
            text = _fmt(v, m)
            bold = m.startswith(("recall", "session_recall")) and v is not None and v == best[i] and len(rows) > 1
            cells.append(f"**{text}**" if bold else text)
        lines.append(f"| {r} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _date_table(summary: Mapping[str, Any], rows: Sequence[str]) -> str:
    """Per row: how many temporal questions the date scores cover, and the scores (over all of them)."""
    lines = ["**temporal dates (answers without a date count as misses)**", "",
             "| row | scored | gold without a usable date | answered with a date | within 1 d | within 7 d | "
             "within 31 d | mean days off (dated answers) |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        g = summary["results"][r]["overall"]
        if g.get("n_date_scored") is None:
            continue
        values = [_fmt(cell(summary, r, "overall", m), m) for m in
                  ("date_answered", "date_within_1", "date_within_7", "date_within_31", "date_error_days")]
        lines.append(f"| {r} | {g['n_date_scored']} | {g['n_date_gold_unusable']} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def heatmap(summary: Mapping[str, Any], path: str | Path, metrics: Sequence[str] | None = None) -> Path:
    """A PNG with one panel per metric: rows x categories, the value in each cell, best per column boxed.
    Uses matplotlib's object API only (no pyplot, no global backend change)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    metrics = list(metrics or default_metrics(summary))[:3]
    rows = [r for r in summary["results"]
            if any(cell(summary, r, key, m) is not None for key, _ in _columns(summary) for m in metrics)]
    cols = _columns(summary)
    fig = Figure(figsize=(2.2 + 1.05 * len(cols) * len(metrics), 2.4 + 0.38 * max(len(rows), 1)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    for ax, metric in zip(axes, metrics, strict=True):
        data = [[cell(summary, r, key, metric) for key, _ in cols] for r in rows]
        grid = [[math.nan if v is None else v for v in line] for line in data]
        finite = [v for line in data for v in line if v is not None]
        lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
        if metric.startswith(("recall", "session_recall", "ndcg", "session_ndcg", "J", "sufficiency", "f1", "em",
                              "contains", "date_within", "date_answered")):
            lo, hi = 0.0, 1.0
        im = ax.imshow(grid, cmap="viridis", vmin=lo, vmax=hi if hi > lo else lo + 1, aspect="auto")
        ax.set_xticks(range(len(cols)), [h.replace(" (", "\n(") for _, h in cols], fontsize=7, rotation=30,
                      ha="right")
        ax.set_yticks(range(len(rows)), rows, fontsize=8)
        ax.set_title(metric, fontsize=10)
        for j in range(len(cols)):
            column = [data[i][j] for i in range(len(rows))]
            known = [v for v in column if v is not None]
            top = max(known) if known else None
            for i, v in enumerate(column):
                if v is None:
                    continue
                dark = (v - lo) / ((hi - lo) or 1) > 0.6
                ax.text(j, i, _fmt(v, metric), ha="center", va="center", fontsize=7,
                        color="black" if dark else "white", fontweight="bold" if v == top else "normal")
                if v == top and len(rows) > 1:
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=1.5))
        fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02)
    s = summary["settings"]
    fig.suptitle(f"{s['dataset']}: interaction matrix (k={s['k']}; best per column boxed)", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    return path


PLOT_NOTE = ("note: matplotlib is not installed, so heatmap.png is not drawn (the tables are written): "
             'pip install "cbmemory[eval]" for it')


def can_plot() -> bool:
    """Whether matplotlib imports: the heatmap needs it (the ``eval`` extra), the tables do not."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def known_metrics(summary: Mapping[str, Any]) -> list[str]:
    """Every metric some row of the run has a value of (overall or in a category), sorted."""
    groups = [g for entry in summary["results"].values()
              for g in (entry["overall"], entry["overall_answerable"], *entry["by_category"].values())]
    return sorted({m for g in groups for m, v in g.items() if isinstance(v, (int, float))})


def check_metrics(summary: Mapping[str, Any], metrics: Sequence[str] | None) -> None:
    """Refuse (``UnknownMetricError``) metrics no row has, naming some that exist. A run without results
    (nothing evaluated yet) has none to check against."""
    known = known_metrics(summary)
    unknown = [m for m in metrics or () if m not in known]
    if unknown and known:
        examples = [m for m in default_metrics(summary) if m in known] or known[:5]
        raise UnknownMetricError(f"no row of this run has the metric{'s' if len(unknown) > 1 else ''} "
                                 f"{', '.join(unknown)}; it has e.g. {', '.join(examples)} ({len(known)} metrics, "
                                 "listed per row in summary.json)")


def draws_heatmap(summary: Mapping[str, Any]) -> bool:
    """Whether ``write_reports`` draws heatmap.png for this summary: there are results, and matplotlib."""
    return bool(summary["results"]) and can_plot()


def write_reports(out_dir: str | Path, metrics: Sequence[str] | None = None) -> tuple[dict[str, Any], str]:
    """summary.json, matrix.md and, when ``draws_heatmap`` (results, and matplotlib), heatmap.png in
    ``out_dir``; returns the summary and the Markdown. Unknown ``metrics`` are refused before matrix.md and
    heatmap.png are written."""
    out = Path(out_dir)
    summary = summarise(out)
    check_metrics(summary, metrics)
    text = markdown(summary, metrics)
    (out / "matrix.md").write_text(text, encoding="utf-8")
    if draws_heatmap(summary):
        heatmap(summary, out / "heatmap.png", metrics)
    return summary, text
