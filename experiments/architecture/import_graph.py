"""Import graph of ``shared/cbmemory`` (every import, function-level ones too): modules, edges, floors (layers of
the graph of strongly connected parts), edges not going down a floor, cycles.

Usage: ``python3 experiments/architecture/import_graph.py ROOT`` (ROOT: a checkout or an exported tree; issue 32
compared ``git archive 5bfe769 shared | tar -x -C /tmp/base`` with HEAD)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def modules(root: Path) -> dict[str, Path]:
    out = {}
    for f in (root / "shared" / "cbmemory").rglob("*.py"):
        parts = f.relative_to(root / "shared").with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def edges_of(mods: dict[str, Path]) -> dict[str, set[str]]:
    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        pkg = m.split(".") if f.name == "__init__.py" else m.split(".")[:-1]
        for node in ast.walk(ast.parse(f.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = pkg[: len(pkg) - node.level + 1] if node.level else []
                mod = ".".join(base + (node.module.split(".") if node.module else []))
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                r = resolve(t)
                if r and r != m and r.startswith("cbmemory"):
                    edges[m].add(r)
    return edges


def components(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10_000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def main() -> None:
    mods = modules(Path(sys.argv[1]))
    edges = edges_of(mods)
    comps = components(edges)
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    floor: dict[int, int] = {}

    def floor_of(i: int) -> int:
        if i not in floor:
            below = [floor_of(comp_of[w]) for v in comps[i] for w in edges[v] if comp_of[w] != i]
            floor[i] = 1 + max(below, default=0)
        return floor[i]

    for i in range(len(comps)):
        floor_of(i)
    up = sum(1 for v in mods for w in edges[v] if floor[comp_of[w]] >= floor[comp_of[v]])
    cycles = [sorted(c) for c in comps if len(c) > 1]
    print(f"modules {len(mods)}, edges {sum(map(len, edges.values()))}, floors {max(floor.values())}, "
          f"edges not going down a floor {up}, cycles {len(cycles)}: {cycles}")


if __name__ == "__main__":
    main()
