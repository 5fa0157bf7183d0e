"""The agent-loop benchmark's report step: its rows (``loop_run``) -> ``loop_summary.json`` and ``loop.md``.

Per recipe and variant (``no_loop``, ``loop``, ``loop_wrong<N>``), over all questions, per LoCoMo category,
per cross-validation fold (``FOLDS``, the two folds of every earlier choice), per conversation and per
position in the loop:

- ``source_recall@k``: mean over questions with evidence (``loop.py``: loop records never count); the drop
  is the loop variant's minus ``no_loop``'s, in points;
- **slots**: of all hits the reader got (at most k per question), the share whose record the loop wrote
  (``loop_slot_share``), split into the user's questions and the agent's replies; ``top1_loop_share``: the
  questions whose first hit is a loop record; ``shown_loop_share``: of all records read (hits and windows);
- ``tokens``: mean size of what the reader gets (the context stage's count); search p50/p95: ``recall``
  with the query's vector already computed (the harness's ``latency_ms``).

**Echoes** (``echo_stats``). A reply W (the agent turn saved for question Q_W, whose evidence is not empty)
is *shown* to a later question L of the same conversation and variant when W's record is among the records
L's reader gets (a top-k hit or in a hit's window). It is shown *without its source* when none of Q_W's
evidence turns is among them. ``pairs``: (L, W) with W shown; ``share_without_source``: of those, the share
without the source; ``question_share``: of the questions asked after at least one such reply, those whose
context shows at least one without its source. **Wrong-echo**: the same over the wrong replies of a
``loop_wrong<N>`` variant: how often a later context holds the agent's wrong answer and not the source.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .loop import NO_LOOP, loop_turn_ids
from .metrics import mean, percentile
from .rows import EvalSetupError
from .runner import read_jsonl

FOLDS = {"A": ("conv-26", "conv-41", "conv-43", "conv-47"), "B": ("conv-30", "conv-42", "conv-44", "conv-48")}
POSITIONS = ((1, 50), (51, 100), (101, 150), (151, None))


def load_rows(out: Path) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """recipe -> variant -> rows, from ``questions/<recipe>--<variant>.jsonl``."""
    found: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for path in sorted((out / "questions").glob("*--*.jsonl")):
        recipe, variant = path.stem.rsplit("--", 1)
        rows = read_jsonl(path)
        if rows:
            found.setdefault(recipe, {})[variant] = rows
    return found


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def group_stats(rows: Sequence[Mapping[str, Any]], k: int) -> dict[str, Any]:
    """The figures of one group of rows (see the module docstring)."""
    ms = [r["metrics"] for r in rows]
    hits = sum(m["hits"] for m in ms)
    shown = sum(m["shown_records"] for m in ms)
    out: dict[str, Any] = {"n": len(rows), "n_no_evidence": sum(1 for r in rows if not r["evidence"])}
    for name in (f"source_recall@{k}", f"source_recall_all@{k}", f"source_recall_any@{k}", f"hit_source_recall@{k}",
                 "source_recall@1", "source_recall@5"):
        value = mean(m.get(name) for m in ms)
        if value is not None:
            out[name] = value
    out.update({
        "loop_slot_share": _ratio(sum(m["loop_slots"] for m in ms), hits),
        "loop_user_slot_share": _ratio(sum(m["loop_user_slots"] for m in ms), hits),
        "loop_agent_slot_share": _ratio(sum(m["loop_agent_slots"] for m in ms), hits),
        "top1_loop_share": mean(m["top1_loop"] for m in ms),
        "shown_loop_share": _ratio(sum(m["shown_loop_records"] for m in ms), shown),
        "hits_mean": mean(m["hits"] for m in ms), "tokens_mean": mean(m["tokens"] for m in ms),
        "latency_ms_p50": percentile((m.get("latency_ms") for m in ms), 50),
        "latency_ms_p95": percentile((m.get("latency_ms") for m in ms), 95),
    })
    return out


def echo_stats(rows: Iterable[Mapping[str, Any]], *, wrong_only: bool) -> dict[str, Any]:
    """How often later contexts show a reply (``wrong_only``: a wrong reply) without its source (module
    docstring). ``rows``: one loop variant's rows, of any number of conversations."""
    by_user: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_user.setdefault(r["user_id"], []).append(r)
    replies = pairs = alone = asked = flagged = 0
    for conv in by_user.values():
        conv = sorted(conv, key=lambda r: r["n"])
        earlier: list[tuple[str, frozenset[str]]] = []  # (agent turn id, evidence) of eligible replies so far
        for r in conv:
            if earlier:
                asked += 1
                shown = set(r["shown_turn_ids"])
                seen = [(a, ev) for a, ev in earlier if a in shown]
                pairs += len(seen)
                lonely = sum(1 for _, ev in seen if not ev & shown)
                alone += lonely
                flagged += lonely > 0
            reply = r.get("reply") or {}
            if r.get("session_id") and r["evidence"] and (reply.get("wrong") or not wrong_only):
                earlier.append((loop_turn_ids(r["session_id"])[1], frozenset(r["evidence"])))
                replies += 1
    return {"replies": replies, "pairs": pairs, "pairs_without_source": alone,
            "share_without_source": _ratio(alone, pairs), "questions": asked,
            "questions_with_echo_without_source": flagged, "question_share": _ratio(flagged, asked)}


def _position(n: int) -> str:
    for lo, hi in POSITIONS:
        if n >= lo and (hi is None or n <= hi):
            return f"{lo}-{hi}" if hi is not None else f"{lo}+"
    return "?"


def variant_summary(rows: Sequence[Mapping[str, Any]], k: int, categories: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    unanswerable = {c["name"] for c in categories if c.get("unanswerable")}
    users = list(dict.fromkeys(r["user_id"] for r in rows))
    out: dict[str, Any] = {
        "overall": group_stats(rows, k),
        "overall_answerable": group_stats([r for r in rows if r["category"] not in unanswerable], k),
        "by_category": {c["name"]: group_stats([r for r in rows if r["category"] == c["name"]], k)
                        for c in categories if any(r["category"] == c["name"] for r in rows)},
        "by_fold": {f: group_stats([r for r in rows if r["user_id"] in convs], k)
                    for f, convs in FOLDS.items() if any(r["user_id"] in convs for r in rows)},
        "by_conversation": {u: group_stats([r for r in rows if r["user_id"] == u], k) for u in users},
        "by_position": {},
    }
    for lo, hi in POSITIONS:
        group = [r for r in rows if r["n"] >= lo and (hi is None or r["n"] <= hi)]
        if group:
            out["by_position"][_position(lo)] = group_stats(group, k)
    if any(r.get("reply") for r in rows):
        out["echo"] = echo_stats(rows, wrong_only=False)
        if any((r.get("reply") or {}).get("wrong") for r in rows):
            out["wrong_echo"] = echo_stats(rows, wrong_only=True)
    return out


def summarise(out_dir: str | Path) -> dict[str, Any]:
    """Every recipe's and variant's figures (also written to ``out_dir/loop_summary.json``)."""
    out = Path(out_dir)
    if not (out / "run.json").is_file():
        raise EvalSetupError(f"{out} holds no loop run (no run.json); write one with `cbmemory eval locomo-loop "
                             f"--data FILE --out {out}`")
    settings = json.loads((out / "run.json").read_text())
    k = settings["k"]
    results = {recipe: {v: variant_summary(rows, k, settings["categories"]) for v, rows in variants.items()}
               for recipe, variants in load_rows(out).items()}
    summary = {"settings": settings, "results": results}
    (out / "loop_summary.json").write_text(json.dumps(summary, indent=1, default=str))
    return summary


# ---------------------------------------------------------------------------- Markdown
def _f(value: float | None, kind: str = "share") -> str:
    if value is None:
        return "—"
    if kind == "delta":
        return f"{value * 100:+.1f}"
    if kind == "ms":
        return f"{value:.1f}"
    if kind == "int":
        return f"{value:,.0f}"
    return f"{value:.3f}"


def _order(variants: Iterable[str]) -> list[str]:
    return sorted(variants, key=lambda v: (v != NO_LOOP, len(v), v))


def _table(header: Sequence[str], lines: Iterable[Sequence[str]]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1),
                      *("| " + " | ".join(line) + " |" for line in lines)])


def _recall_rows(res: Mapping[str, Any], metric: str, keys: Sequence[str], pick) -> list[list[str]]:
    """A row per variant and, after each loop variant, its drop against no_loop, over the groups ``keys``."""
    lines = []
    base = res.get(NO_LOOP)
    for v in _order(res):
        values = [pick(res[v], key).get(metric) for key in keys]
        lines.append([v, *(_f(x) for x in values)])
        if v != NO_LOOP and base is not None:
            drops = [None if x is None or pick(base, key).get(metric) is None else x - pick(base, key)[metric]
                     for x, key in zip(values, keys, strict=True)]
            lines.append([f"Δ {v} (points)", *(_f(d, "delta") for d in drops)])
    return lines


def _group(entry: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    if key in ("overall", "overall_answerable"):
        return entry[key]
    for part in ("by_category", "by_fold", "by_conversation", "by_position"):
        if key in entry[part]:
            return entry[part][key]
    return {}


def recipe_markdown(recipe: str, res: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    k = settings["k"]
    metric = f"source_recall@{k}"
    cats = [c for c in settings["categories"] if any(c["name"] in e["by_category"] for e in res.values())]
    heads = [f"{c['name']} ({c['code']}" + (f"; mem0: {c['alt_label']}" if c.get("alt_label") and
                                             c["alt_label"] != c["name"] else "") + ")" for c in cats]
    unanswerable = "/".join(c["name"] for c in settings["categories"] if c.get("unanswerable")) or "-"
    keys = [c["name"] for c in cats] + ["overall", "overall_answerable"]
    parts = [f"### recipe `{recipe}`", "", f"**{metric} by category** (loop turns never count as evidence)", "",
             _table(["variant", *heads, "overall", f"overall w/o {unanswerable}"],
                    _recall_rows(res, metric, keys, _group))]
    cost = []
    for v in _order(res):
        g = res[v]["overall"]
        cost.append([v, _f(g["n"], "int"), _f(g.get(metric)), _f(g.get(f"hit_source_recall@{k}")),
                     _f(g["loop_slot_share"]), _f(g["loop_user_slot_share"]), _f(g["loop_agent_slot_share"]),
                     _f(g["top1_loop_share"]), _f(g["shown_loop_share"]), _f(g["tokens_mean"], "int"),
                     _f(g["latency_ms_p50"], "ms"), _f(g["latency_ms_p95"], "ms")])
    parts += ["", f"**slots and costs** (slots: of the top-{k} hits the reader got)", "",
              _table(["variant", "n", metric, f"hits alone {metric}", "loop share of slots", "user questions",
                      "agent replies", "top-1 is a loop turn", "loop share of records read", "tokens read",
                      "search p50 ms", "search p95 ms"], cost)]
    groups = [f for f in FOLDS if any(f in e["by_fold"] for e in res.values())]
    groups += list(next(iter(res.values()))["by_conversation"])
    names = [f"fold {g}" if g in FOLDS else g for g in groups]
    parts += ["", f"**{metric} by fold and conversation** (folds: " +
              "; ".join(f"{f} = {', '.join(c)}" for f, c in FOLDS.items()) + ")", "",
              _flip(_recall_rows(res, metric, groups, _group), names)]
    slots = [[v, *(_f(_group(res[v], g).get("loop_slot_share")) for g in groups)] for v in _order(res) if v != NO_LOOP]
    if slots:
        parts += ["", "**loop share of slots by fold and conversation**", "", _flip(slots, names)]
    positions = list(next(iter(res.values()))["by_position"])
    parts += ["", f"**{metric} by position in the loop** (the n-th question of its conversation)", "",
              _table(["variant", *positions], _recall_rows(res, metric, positions, _group))]
    slot_pos = [[f"{v}: loop share of slots", *(_f(res[v]["by_position"].get(p, {}).get("loop_slot_share"))
                                               for p in positions)] for v in _order(res) if v != NO_LOOP]
    if slot_pos:
        parts += ["", _table(["", *positions], slot_pos)]
    echo = []
    for v in _order(res):
        for kind in ("echo", "wrong_echo"):
            e = res[v].get(kind)
            if e is not None:
                echo.append([f"{v} ({'wrong replies' if kind == 'wrong_echo' else 'all replies'})",
                             _f(e["replies"], "int"), _f(e["pairs"], "int"), _f(e["pairs_without_source"], "int"),
                             _f(e["share_without_source"]), _f(e["questions"], "int"),
                             _f(e["questions_with_echo_without_source"], "int"), _f(e["question_share"])])
    if echo:
        parts += ["", "**echoes: a reply read by a later question, with or without its source**", "",
                  _table(["variant (replies)", "replies", "later contexts showing one (pairs)", "pairs without source",
                          "share without source", "later questions", "questions with one without source",
                          "share of questions"], echo)]
    return "\n".join(parts)


def _flip(lines: Sequence[Sequence[str]], names: Sequence[str]) -> str:
    """Lines (variant, value per group) as a table with a row per group."""
    return _table(["group", *(line[0] for line in lines)],
                  ([name, *(line[i + 1] for line in lines)] for i, name in enumerate(names)))


def markdown(summary: Mapping[str, Any]) -> str:
    s = summary["settings"]
    parts = [f"## agent-loop benchmark ({s['dataset']}, k={s['k']}, embedder {s['embedder']}, loop v{s['loop_version']})",
             "", f"Protocol: {s.get('protocol', '')}."]
    for recipe, res in summary["results"].items():
        parts += ["", recipe_markdown(recipe, res, s)]
    runs = s.get("invocations") or []
    if runs:
        last = runs[-1]
        parts += ["", f"Last run: {last.get('wall_s')} s wall, {last.get('cpus')} CPUs, load "
                  f"{last.get('load_1min_at_start')} at start."]
    return "\n".join(parts) + "\n"


def write_loop_report(out_dir: str | Path) -> tuple[dict[str, Any], str]:
    """``loop_summary.json`` and ``loop.md`` in ``out_dir``; returns the summary and the Markdown."""
    summary = summarise(out_dir)
    text = markdown(summary)
    (Path(out_dir) / "loop.md").write_text(text, encoding="utf-8")
    return summary, text


__all__ = ["FOLDS", "echo_stats", "group_stats", "load_rows", "markdown", "summarise", "variant_summary",
           "write_loop_report"]
