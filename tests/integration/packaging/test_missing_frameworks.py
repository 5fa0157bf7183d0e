"""Integration layer (packaging): importing an adapter whose framework is not installed raises an
``ImportError`` that says what to install, not a bare ``No module named ...``.

The missing framework is simulated in a fresh interpreter: a finder at the head of ``sys.meta_path``
refuses the framework's modules, as an environment without them would.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = r"""
import importlib, json, sys

class Missing:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

BLOCKED = set(sys.argv[2].split(","))
sys.meta_path.insert(0, Missing())
try:
    importlib.import_module(sys.argv[1])
except ImportError as exc:
    print(json.dumps({"types": [c.__name__ for c in type(exc).__mro__], "message": str(exc), "name": exc.name}))
else:
    print(json.dumps(None))
"""


def _import_without(module: str, *blocked: str) -> dict | None:
    done = subprocess.run([sys.executable, "-c", PROBE, module, ",".join(blocked)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.packaging
@pytest.mark.parametrize("missing", ["langchain_core", "langgraph"])
def test_langchain_adapter_names_its_extra(missing):
    error = _import_without("langchain_cbmemory", missing)
    assert error is not None and "ImportError" in error["types"] and "MissingDependencyError" in error["types"]
    assert 'pip install "cbmemory[langchain]"' in error["message"]
    assert "pip install langchain-cbmemory" in error["message"]
    assert error["message"].startswith(f"langchain_cbmemory needs {missing}")
    assert error["name"].partition(".")[0] == missing


@pytest.mark.parametrize("module", ["llamaindex_cbmemory", "llama_index.memory.cbmemory"])
def test_llamaindex_adapter_names_its_extra(module):
    error = _import_without(module, "llama_index.core")
    assert error is not None and "MissingDependencyError" in error["types"]
    assert error["message"].startswith("llamaindex_cbmemory needs llama_index.core")
    assert 'pip install "cbmemory[llamaindex]"' in error["message"]
    assert "pip install llama-index-memory-cbmemory" in error["message"]


@pytest.mark.packaging
def test_other_missing_modules_are_not_renamed():
    """Only the frameworks' absence is translated; a missing module of our own stays what it is."""
    error = _import_without("langchain_cbmemory", "langchain_cbmemory.store")
    assert error is not None and error["types"][0] == "ModuleNotFoundError"
    assert error["name"] == "langchain_cbmemory.store" and "pip install" not in error["message"]
