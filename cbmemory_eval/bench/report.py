"""The bench table (Markdown) from a bench result. Pure: a ``BenchResult`` (or a loaded ``bench.json``) in,
text out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .long_session import LongSessionRow
from .result import BenchResult, PeerCell
from .rows import GoalCheck, MachineFacts, NeighbourRow, Timing, UsersRow


def _size(n: str | int) -> str:
    n = int(n)
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def _ms(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _triple(t: Timing | None) -> str:
    if t is None:
        return "-"
    text = " / ".join(_ms(x) for x in (t.p50_ms, t.p95_ms, t.p99_ms))
    if t.partial:
        text += f" ({t.queries} q)"
    return text


def _peer(c: PeerCell | None) -> str:
    if c is None:
        return "-"
    if c.skipped:
        return "skipped: over cap" if c.skipped.startswith("over cap") else "skipped"
    text = _triple(c.timing)
    if c.ratio_p95:
        text += f" (x{c.ratio_p95:g} vs `{c.vs}`)"
    return text


def _rate(x: float | None) -> str:
    return "-" if x is None else f"{x}"


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


def format_long_session(rows: Sequence[LongSessionRow]) -> list[str]:
    """The long-session table: p50 / p95 / p99 per recipe and p95 against the first recipe's."""
    if not rows:
        return []
    first = rows[0].latency
    lines = ["", f"One long session: a user whose {rows[0].session_turns:,} turns are one session (one long-running "
             f"agent thread); ms, query embedding excluded, median of {first.runs} runs x {first.queries} queries; "
             "`default` shows each hit with the turns before and after it, `default_no_window` returns the same "
             "hits alone; cores / load average (1, 5, 15 min) read at the start of each row:", ""]
    body = [[f"`{r.recipe}`", f"{r.session_turns:,}", _ms(r.latency.p50_ms), _ms(r.latency.p95_ms),
             _ms(r.latency.p99_ms), _ratio(r.latency.p95_ms, first.p95_ms), f"{r.needle_hit_rate:g}",
             f"{r.leaked_hits}", _mb(r.file_bytes), _load(r.machine)] for r in rows]
    return lines + _table(["recipe", "session turns", "p50", "p95", "p99", "p95 vs first", "needle found",
                           "other users' hits", "file MB", "cores / load"], body)


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


def format_table(bench: BenchResult | Mapping[str, Any]) -> str:
    b = bench if isinstance(bench, BenchResult) else BenchResult.from_json(bench)
    m = b.machine
    la = None if m.load_average_at_start is None else list(m.load_average_at_start)
    lines = [f"# cbmemory bench: {m.cores} cores ({m.cpu}), Python {m.python}, SQLite {m.sqlite}, "
             f"load average at start {la}"]
    if b.config.sizes:
        lines += _sizes_section(b)
    elif b.ingest.with_embedding:
        lines += ["", f"Ingest with the offline embedder: {b.ingest.with_embedding_turns_per_s} turns/s "
                  f"({b.ingest.with_embedding.turns} turns through AgentMemory.add_sessions)."]
    lines += format_neighbour(b.neighbour or ())
    lines += format_users(b.users or ())
    lines += format_long_session(b.long_session or ())
    if b.scaling.records:
        lines += ["", "p95 growth, smallest to largest size: " + ", ".join(
            f"`{r}` x{g.p95_growth}" for r, g in b.scaling.records.items())]
    if b.scaling.users:
        u = b.scaling.users
        lines += [f"p95 growth from {u.from_} to {u.to} users: x{u.p95_growth}"]
    lines += format_goals(b.goals)
    lines += ["", f"Data: {b.data}", ""]
    return "\n".join(lines)


def _sizes_section(b: BenchResult) -> list[str]:
    cfg, sizes = b.config, [str(s) for s in b.config.sizes]
    lines = [
        "",
        f"Search latency in ms, p50 / p95 / p99, k={cfg.k}, query embedding excluded; median of "
        f"{cfg.repeats} runs x {cfg.queries} queries per size, warm-up excluded. Records per user:",
        "",
    ]
    rows = [[f"cbmemory `{r}`", *[_triple(c.timing if (c := v.get(s)) else None) for s in sizes]]
            for r, v in b.search.items()]
    rows += [[peer, *[_peer(v.get(s)) for s in sizes]] for peer, v in b.peers.items()]
    lines += _table(["system", *[_size(s) for s in sizes]], rows)
    if any(b.search_included.values()):
        lines += ["", "Including the query embedding (offline MiniLM, uncached):", ""]
        rows = [[f"cbmemory `{r}`", *[_triple(v.get(s)) for s in sizes]] for r, v in b.search_included.items()]
        if b.query_embedding:
            qe = b.query_embedding
            rows.append(["embedding one query alone", *[_triple(qe.get(s)) for s in sizes]])
        lines += _table(["system", *[_size(s) for s in sizes]], rows)
    hit_rows = [[f"cbmemory `{r}`", *[_rate(c.needle_hit_rate if (c := v.get(s)) else None) for s in sizes]]
                for r, v in b.search.items()]
    hit_rows += [[p, *[_rate(pc.result.needle_hit_rate if (pc := v.get(s)) and pc.result else None)
                       for s in sizes]] for p, v in b.peers.items()]
    lines += ["", f"Needle found in top {cfg.k} (sanity check that every system searched the same data):", ""]
    lines += _table(["system", *[_size(s) for s in sizes]], hit_rows)

    ing = b.ingest
    lines += ["", "Ingest and storage:", ""]
    rows = []
    for s in sizes:
        i, st = ing.by_size.get(s), b.storage.get(s)
        rows.append([_size(s), _rate(i.turns_per_s if i else None), _rate(st.file_mb_per_10k if st else None),
                     _rate(st.search_rss_mb_per_10k if st else None),
                     _rate(st.search_process_peak_rss_mb if st else None)])
    lines += _table(["records", "store-only ingest (turns/s)", "file MB per 10k", "search RSS MB per 10k",
                     "search process peak RSS MB"], rows)
    emb = ing.with_embedding
    lines += ["", f"Ingest overall: store only (precomputed vectors) {ing.store_only_turns_per_s} turns/s; "
              f"with the offline embedder {ing.with_embedding_turns_per_s} turns/s "
              f"({emb.turns if emb else '-'} turns through AgentMemory.add_sessions)."]
    return lines + format_sparse(b)


def format_sparse(b: BenchResult) -> list[str]:
    """The sparse recipes' section: what is real (the encoder, on documents and queries) and the query's
    sparse encoding alone, over the user's word pieces and over all of them."""
    if not b.sparse:
        return []
    sizes = [s for s in (str(n) for n in b.config.sizes) if s in b.sparse]
    first = b.sparse[sizes[0]]
    skipped = [_size(n) for n in b.config.sizes if str(n) not in b.sparse]
    lines = ["", f"Recipes with the sparse signal: the synthetic records given `{first.encoder}` vectors by the "
             "real encoder (a copy of each size's file); every timed search encodes its query's sparse vector "
             "with the real encoder, over the user's word pieces (as AgentMemory.search does), in both tables"
             + (f"; not measured at {', '.join(skipped)} (over sparse_max_size "
                f"{b.config.sparse_max_size:,})" if skipped else "") + ". The query's sparse encoding alone, "
             "p50 / p95 / p99 ms:", ""]
    rows = [[_size(s), f"{v.records:,} at {v.records_per_s:.0f}/s", f"{v.terms:,}", _triple(v.query_encoding),
             _triple(v.query_encoding_all_terms)] for s in sizes if (v := b.sparse[s])]
    return lines + _table(["records", "documents encoded", "user's word pieces", "over the user's pieces",
                           "over all 30,522 pieces"], rows)


__all__ = ["format_goals", "format_long_session", "format_neighbour", "format_sparse", "format_table", "format_users"]
