"""The bench table (Markdown) from a ``bench.json`` result. Pure: a dict in (the typed rows as objects or as
their JSON), text out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .rows import GoalCheck, MachineFacts, NeighbourRow, UsersRow, rows_of


def _size(n: str | int) -> str:
    n = int(n)
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def _ms(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _triple(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "-"
    if cell.get("skipped"):
        return "skipped: over cap" if str(cell["skipped"]).startswith("over cap") else "skipped"
    text = " / ".join(_ms(cell.get(f"p{p}_ms")) for p in (50, 95, 99))
    if cell.get("partial"):
        text += f" ({cell.get('queries', 0)} q)"
    return text


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _load(m: MachineFacts) -> str:
    return f"{m.cores} / " + " ".join(f"{x:.2f}" for x in m.load_average)


def _mb(n: int) -> str:
    return f"{n / 2**20:,.1f}"


def _ratio(x: float, base: float) -> str:
    return f"x{x / base:.2f}" if base > 0 else "-"


def format_neighbour(rows: Sequence[NeighbourRow]) -> list[str]:
    """The tenant-neighbour table: per recipe and neighbour size, p50 / p95 / p99 and p95 against the smallest
    neighbour (none, where measured)."""
    if not rows:
        return []
    first = rows[0]
    lines = ["", f"Tenant neighbour: one user with {first.user_records:,} records; another tenant in the same file "
             "holds N records, each with some of that user's query words (\"matches\": the tenant's records "
             "holding a word of a query, mean over queries). ms, query embedding excluded, median of "
             f"{first.latency.runs} runs x {first.latency.queries} queries; cores / load average (1, 5, 15 min) "
             "read at the start of each row:", ""]
    order = {recipe: i for i, recipe in enumerate(dict.fromkeys(r.recipe for r in rows))}
    base: dict[str, float] = {}
    for r in sorted(rows, key=lambda r: r.neighbour_records):
        base.setdefault(r.recipe, r.latency.p95_ms)
    body = [[f"`{r.recipe}`", f"{r.neighbour_records:,}", f"{r.neighbour_matches_per_query:,.0f}",
             _ms(r.latency.p50_ms), _ms(r.latency.p95_ms), _ms(r.latency.p99_ms),
             _ratio(r.latency.p95_ms, base[r.recipe]), f"{r.needle_hit_rate:g}", f"{r.leaked_hits}", _mb(r.file_bytes),
             "-" if r.neighbour_ingest_turns_per_s is None else f"{r.neighbour_ingest_turns_per_s:,.0f}",
             _load(r.machine)]
            for r in sorted(rows, key=lambda r: (order[r.recipe], r.neighbour_records))]
    return lines + _table(["recipe", "neighbour records", "matches", "p50", "p95", "p99", "p95 vs first",
                           "needle found", "neighbour's hits", "file MB", "neighbour ingest (turns/s)",
                           "cores / load"], body)


def format_users(rows: Sequence[UsersRow]) -> list[str]:
    """The users-sweep table: p50 / p95 / p99 per number of users and p95 against the fewest users."""
    if not rows:
        return []
    rows = sorted(rows, key=lambda r: r.users)
    first = rows[0]
    lines = ["", f"Users in one file ({first.per_user_records:,} records each), recipe `{first.recipe}`, queries of "
             f"random users; ms, query embedding excluded, median of {first.latency.runs} runs x "
             f"{first.latency.queries} queries, each user's first search an untimed warm-up; cores / load average "
             "(1, 5, 15 min) read at the start of each row:", ""]
    body = [[f"{r.users:,}", f"{r.records:,}", _ms(r.latency.p50_ms), _ms(r.latency.p95_ms), _ms(r.latency.p99_ms),
             _ratio(r.latency.p95_ms, first.latency.p95_ms), f"{r.needle_hit_rate:g}", f"{r.leaked_hits}",
             _mb(r.file_bytes), "-" if r.ingest_turns_per_s is None else f"{r.ingest_turns_per_s:,.0f}",
             f"{r.peak_rss_mb:,.0f}", _load(r.machine)] for r in rows]
    return lines + _table(["users", "records in file", "p50", "p95", "p99", "p95 vs first", "needle found",
                           "other users' hits", "file MB", "ingest (turns/s)", "peak RSS MB", "cores / load"], body)


def format_goals(goals: Sequence[GoalCheck]) -> list[str]:
    if not goals:
        return []
    lines = ["", "Goals (issue 12):", ""]
    for g in goals:
        what = (f"neighbour {g.to:,} vs {g.base:,} records" if g.row == "neighbour"
                else f"{g.to:,} vs {g.base:,} users")
        lines.append(f"- {g.row} `{g.recipe}`: p95 {_ms(g.to_p95_ms)} ms vs {_ms(g.base_p95_ms)} ms ({what}): "
                     f"x{g.ratio:g}, goal <= x{g.limit:g}: {'met' if g.met else 'NOT met'}")
    return lines


def format_table(bench: dict[str, Any]) -> str:
    m = bench.get("machine", {})
    cfg = bench.get("config", {})
    sizes = [str(s) for s in cfg.get("sizes", [])]
    lines = [
        f"# cbmemory bench: {m.get('cores')} cores ({m.get('cpu', '')}), Python {m.get('python')}, "
        f"SQLite {m.get('sqlite')}, load average at start {m.get('load_average_at_start')}",
    ]
    if sizes:
        lines += _sizes_section(bench, cfg, sizes)
    elif bench.get("ingest", {}).get("with_embedding"):
        ing = bench["ingest"]
        lines += ["", f"Ingest with the offline embedder: {ing.get('with_embedding_turns_per_s')} turns/s "
                  f"({ing['with_embedding'].get('turns', '-')} turns through AgentMemory.add_sessions)."]
    lines += format_neighbour(rows_of(NeighbourRow, bench.get("neighbour") or []))
    lines += format_users(rows_of(UsersRow, bench.get("users") or []))
    sc = bench.get("scaling", {})
    if sc.get("records"):
        lines += ["", "p95 growth, smallest to largest size: " + ", ".join(
            f"`{r}` x{v['p95_growth']}" for r, v in sc["records"].items())]
    if sc.get("users"):
        lines += [f"p95 growth from {sc['users']['from']} to {sc['users']['to']} users: x{sc['users']['p95_growth']}"]
    lines += format_goals(rows_of(GoalCheck, bench.get("goals") or []))
    lines += ["", f"Data: {bench.get('data', '')}", ""]
    return "\n".join(lines)


def _sizes_section(bench: dict[str, Any], cfg: dict[str, Any], sizes: list[str]) -> list[str]:
    lines = [
        "",
        f"Search latency in ms, p50 / p95 / p99, k={cfg.get('k')}, query embedding excluded; median of "
        f"{cfg.get('repeats')} runs x {cfg.get('queries')} queries per size, warm-up excluded. Records per user:",
        "",
    ]
    rows = [[f"cbmemory `{r}`", *[_triple(bench["search"][r].get(s)) for s in sizes]] for r in bench["search"]]
    for peer, by_size in bench.get("peers", {}).items():
        cells = []
        for s in sizes:
            c = by_size.get(s)
            text = _triple(c)
            if c and c.get("ratio_p95"):
                text += f" (x{c['ratio_p95']:g} vs `{c['vs']}`)"
            cells.append(text)
        rows.append([peer, *cells])
    lines += _table(["system", *[_size(s) for s in sizes]], rows)
    if any(bench.get("search_included", {}).values()):
        lines += ["", "Including the query embedding (offline MiniLM, uncached):", ""]
        rows = [[f"cbmemory `{r}`", *[_triple(v.get(s)) for s in sizes]]
                for r, v in bench["search_included"].items()]
        qe = bench.get("query_embedding", {})
        if qe:
            rows.append(["embedding one query alone", *[_triple(qe.get(s)) for s in sizes]])
        lines += _table(["system", *[_size(s) for s in sizes]], rows)
    hit_rows = [[f"cbmemory `{r}`", *[f"{bench['search'][r].get(s, {}).get('needle_hit_rate', '-')}" for s in sizes]]
                for r in bench["search"]]
    hit_rows += [[p, *[f"{v.get(s, {}).get('needle_hit_rate', '-')}" for s in sizes]]
                 for p, v in bench.get("peers", {}).items()]
    lines += ["", f"Needle found in top {cfg.get('k')} (sanity check that every system searched the same data):", ""]
    lines += _table(["system", *[_size(s) for s in sizes]], hit_rows)

    ing = bench.get("ingest", {})
    lines += ["", "Ingest and storage:", ""]
    rows = []
    for s in sizes:
        i = ing.get("by_size", {}).get(s, {})
        st = bench.get("storage", {}).get(s, {})
        rows.append([_size(s), f"{i.get('turns_per_s', '-')}", f"{st.get('file_mb_per_10k', '-')}",
                     f"{st.get('search_rss_mb_per_10k', '-')}", f"{st.get('search_process_peak_rss_mb', '-')}"])
    lines += _table(["records", "store-only ingest (turns/s)", "file MB per 10k", "search RSS MB per 10k",
                     "search process peak RSS MB"], rows)
    lines += ["", f"Ingest overall: store only (precomputed vectors) {ing.get('store_only_turns_per_s')} turns/s; "
              f"with the offline embedder {ing.get('with_embedding_turns_per_s')} turns/s "
              f"({ing.get('with_embedding', {}).get('turns', '-')} turns through AgentMemory.add_sessions)."]
    return lines


__all__ = ["format_goals", "format_neighbour", "format_table", "format_users"]
