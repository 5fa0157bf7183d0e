"""Unit layer (the public namespace): the root ``cbmemory`` names what an application uses, at most 35 names;
the helpers only framework adapters use are in ``cbmemory.integration``, not in the root; the adapters
(``langchain_cbmemory``, ``llamaindex_cbmemory`` and the LlamaIndex-path package) import from those two
only, each name one that module declares; and every helper of ``cbmemory.integration`` is one an adapter
uses. Read from the sources with ``ast``: no adapter code is run."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import cbmemory
import cbmemory.integration

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = (ROOT / "langchain_cbmemory", ROOT / "llamaindex_cbmemory", ROOT / "packages" / "llama-index-memory-cbmemory")
MAX_ROOT_NAMES = 35
ALLOWED = {"cbmemory": set(cbmemory.__all__), "cbmemory.integration": set(cbmemory.integration.__all__)}


@functools.cache  # read once for all the tests here
def _cbmemory_imports() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """``(where, module, names)`` of each import of a ``cbmemory`` module in the adapters' sources."""
    out = []
    for folder in ADAPTERS:
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "cbmemory":
                    out.append((where, node.module or "", tuple(a.name for a in node.names)))
                elif isinstance(node, ast.Import):
                    out += [(where, a.name, ()) for a in node.names if a.name.split(".")[0] == "cbmemory"]
    return tuple(out)


def test_the_root_names_at_most_35_things_each_defined_once():
    names = cbmemory.__all__
    assert len(names) <= MAX_ROOT_NAMES, f"cbmemory exports {len(names)} names: {sorted(names)}"
    assert len(set(names)) == len(names)
    assert all(getattr(cbmemory, n) is not None for n in names if n != "CouchbaseStore")  # the SDK is optional


def test_the_adapters_helpers_live_in_the_integration_module_not_in_the_root():
    helpers = set(cbmemory.integration.__all__)
    assert not helpers & set(cbmemory.__all__), sorted(helpers & set(cbmemory.__all__))
    assert {"passage", "inline", "check_k", "iso", "plan_turns", "distinct_passages"} <= helpers
    assert all(hasattr(cbmemory.integration, n) for n in helpers)


def test_the_adapters_import_only_the_root_and_the_integration_module_by_their_declared_names():
    imports = _cbmemory_imports()
    for where, module, names in imports:
        assert module in ALLOWED, f"{where} imports {module}: adapters import cbmemory or cbmemory.integration"
        assert names, f"{where}: import {module} (name what is used)"
        assert set(names) <= ALLOWED[module], f"{where}: {sorted(set(names) - ALLOWED[module])} not in {module}.__all__"
    assert len(imports) > 20 and {m for _, m, _ in imports} == set(ALLOWED)  # the walk saw both


def test_every_integration_helper_is_one_an_adapter_uses():
    used = {n for _, module, names in _cbmemory_imports() if module == "cbmemory.integration" for n in names}
    unused = set(cbmemory.integration.__all__) - used
    assert not unused, f"cbmemory.integration names what no adapter imports: {sorted(unused)}"
