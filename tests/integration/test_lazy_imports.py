"""Integration layer (a fresh interpreter per test): ``import cbmemory`` loads none of the LLM-enrichment
modules (``cbmemory.ingest.enrich.*``), no agent framework, no model runtime and no database SDK (nor does
``cbmemory.integration``, all an adapter imports of the core); ``AgentMemory.enrich`` loads them when it runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("langchain", "langchain_core", "llama_index", "onnxruntime", "tokenizers", "tiktoken", "openai",
         "couchbase", "mcp", "matplotlib")


def loaded_by(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.process
def test_import_cbmemory_loads_no_enrichment_module_framework_or_runtime():
    loaded = loaded_by("import cbmemory, cbmemory.integration")  # all an adapter imports of the core
    assert {"cbmemory", "cbmemory.memory.facade", "cbmemory.ingest"} <= loaded  # the probe saw the import
    assert sorted(m for m in loaded if m.startswith("cbmemory.ingest.enrich")) == []
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY) == []


@pytest.mark.process
def test_enriching_loads_the_enrichment_modules_on_use():
    code = ("import numpy as np\n"
            "from cbmemory import AgentMemory, SQLiteStore\n"
            "from cbmemory.ingest import EnrichConfig\n"
            "class Flat:\n"
            "    name, dimension = 'flat', 4\n"
            "    def embed(self, texts):\n        return np.full((len(texts), 4), 0.5, dtype=np.float32)\n"
            "    def embed_query(self, text):\n        return self.embed([text])[0]\n"
            "memory = AgentMemory(SQLiteStore(':memory:'), Flat(), enricher=object())  # never called: no sessions\n"
            "report = memory.enrich('u', config=EnrichConfig(modes=('summary',)))\n"
            "assert type(report).__name__ == 'EnrichReport' and report.sessions == report.calls == 0, report\n")
    assert "cbmemory.ingest.enrich.enricher" in loaded_by(code)
