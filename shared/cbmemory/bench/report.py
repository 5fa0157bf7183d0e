"""The bench table (Markdown) from a ``bench.json`` result. Pure: a dict in, text out."""

from __future__ import annotations

from typing import Any


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


def format_table(bench: dict[str, Any]) -> str:
    m = bench.get("machine", {})
    cfg = bench.get("config", {})
    sizes = [str(s) for s in cfg.get("sizes", [])]
    lines = [
        f"# cbmemory bench: {m.get('cores')} cores ({m.get('cpu', '')}), Python {m.get('python')}, "
        f"SQLite {m.get('sqlite')}, load average at start {m.get('load_average_at_start')}",
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
    users = bench.get("users")
    if users:
        lines += ["", f"Users in one file ({users['per_user_records']} records each), recipe "
                  f"`{users['recipe']}`, ms p50 / p95 / p99:", ""]
        rows = [[u, f"{v['records']}", _triple(v), f"{v['file_bytes'] / 2**20:.1f}", f"{v['leaked_hits']}"]
                for u, v in users["by_users"].items()]
        lines += _table(["users", "records in file", "latency", "file MB", "other users' hits"], rows)
    sc = bench.get("scaling", {})
    if sc.get("records"):
        lines += ["", "p95 growth, smallest to largest size: " + ", ".join(
            f"`{r}` x{v['p95_growth']}" for r, v in sc["records"].items())]
    if sc.get("users"):
        lines += [f"p95 growth from {sc['users']['from']} to {sc['users']['to']} users: x{sc['users']['p95_growth']}"]
    lines += ["", f"Data: {bench.get('data', '')}", ""]
    return "\n".join(lines)


__all__ = ["format_table"]
