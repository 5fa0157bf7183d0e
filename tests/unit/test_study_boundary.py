"""Unit layer (the study apart): the study (``cbmemory_eval``) imports only the core's public API, names from
``cbmemory`` and from the ``__init__`` of its public subpackages, each a name that package declares in its
``__all__``; the core (``shared/cbmemory``) imports nothing of the study; and the study's modules import each
other in no cycle, imports inside functions included. Read from the sources with ``ast``: no project code of
the study is run."""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "cbmemory_eval"
CORE = ROOT / "shared" / "cbmemory"
PUBLIC = ("cbmemory", "cbmemory.context", "cbmemory.dates", "cbmemory.ingest", "cbmemory.ingest.enrich", "cbmemory.recipes", "cbmemory.retrieval",
          "cbmemory.store", "cbmemory.embedding", "cbmemory.llm", "cbmemory.cli")


@functools.cache  # each module is read once for all the tests here
def _imports(path: Path, package: str) -> tuple[tuple[int, str, tuple[str, ...]], ...]:
    """``(line, absolute module, names)`` of each import of a module (``names`` empty for ``import x``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            out.append((node.lineno, module, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name, ()) for a in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            out.append((node.lineno, node.args[0].value, ()))
    return tuple(out)


def _modules(root: Path, name: str):
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).with_suffix("").parts
        package = ".".join((name, *rel[:-1]))  # a module's package; an __init__'s is its folder's
        yield path, package


@pytest.mark.heavy
def test_the_study_imports_only_the_core_s_public_api():
    checked, seen = 0, set()
    for path, package in _modules(STUDY, "cbmemory_eval"):
        for line, module, names in _imports(path, package):
            where = f"{path.relative_to(ROOT)}:{line}"
            assert not module.startswith("cbmemory_eval") or module.split(".")[0] == "cbmemory_eval", where
            if module.split(".")[0] != "cbmemory":
                continue
            assert module in PUBLIC, f"{where} imports {module}, below the core's public packages {PUBLIC}"
            public = set(importlib.import_module(module).__all__)
            assert not names or set(names) <= public, f"{where}: {sorted(set(names) - public)} not in {module}.__all__"
            seen.add(module)
            checked += 1
    assert checked > 50 and {"cbmemory", "cbmemory.retrieval", "cbmemory.store"} <= seen  # the walk saw them


@pytest.mark.heavy
def test_the_core_imports_nothing_of_the_study():
    checked = 0
    for path, package in _modules(CORE, "cbmemory"):
        for line, module, _ in _imports(path, package):
            assert module.split(".")[0] != "cbmemory_eval", f"{path.relative_to(ROOT)}:{line} imports {module}"
        checked += 1
    assert checked > 60


def _graph(root: Path, name: str) -> dict[str, set[str]]:
    """Each module of the package under ``root`` and the modules of that package it imports (an import inside a
    function too; ``from . import x`` names the module ``x``)."""
    modules = {package if path.name == "__init__.py" else f"{package}.{path.stem}": (path, package)
               for path, package in _modules(root, name)}
    graph: dict[str, set[str]] = {}
    for module, (path, package) in modules.items():
        targets = set()
        for _, target, names in _imports(path, package):
            targets |= {f"{target}.{n}" for n in names if f"{target}.{n}" in modules} or ({target} & set(modules))
        graph[module] = targets - {module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = [stack.pop()]
            while group[-1] != v:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))
    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_study_s_modules_import_each_other_in_no_cycle():
    graph = _graph(STUDY, "cbmemory_eval")
    assert len(graph) > 40 and sum(map(len, graph.values())) > 100  # the walk saw the modules and their imports
    assert "cbmemory_eval.bench.process" in graph["cbmemory_eval.bench.long_session"]  # imported in a function: read
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_each_cycle_and_nothing_else():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("module", PUBLIC)
def test_each_public_package_declares_what_it_exports(module):
    names = importlib.import_module(module).__all__
    assert len(set(names)) == len(names), f"{module}.__all__ names something twice"
    missing = [n for n in names if n != "CouchbaseStore" and not hasattr(importlib.import_module(module), n)]
    assert not missing, f"{module}.__all__ names what it does not define: {missing}"
