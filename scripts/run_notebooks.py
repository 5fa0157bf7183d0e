"""Execute the notebooks in place, offline, and keep their outputs (what is committed is what an offline run
shows). Run from the repository root with the dev install: ``python scripts/run_notebooks.py [name ...]``.

Each notebook runs in a fresh kernel in notebooks/ (as Jupyter runs it) with the scripted model
(``CBMEMORY_LLM=scripted``; no API key, no base URL). ``evaluate_memory.ipynb`` reads the LoCoMo file that
``CBMEMORY_LOCOMO`` names (default ../shared/data/locomo/locomo-dev.json) and is skipped without one.
Execution timestamps are not kept, so a rerun changes a notebook only where its outputs change.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "notebooks"
NOTEBOOKS = ("langchain_agent.ipynb", "llamaindex_agent.ipynb", "evaluate_memory.ipynb")
LOCOMO = Path(os.environ.get("CBMEMORY_LOCOMO", ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"))


def clean(nb) -> None:
    """Drop what changes from run to run without the outputs changing: execution timestamps."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.metadata.pop("execution", None)


def run(name: str) -> None:
    nb = nbformat.read(FOLDER / name, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(FOLDER)}}).execute()
    clean(nb)
    nbformat.write(nb, FOLDER / name)
    print(f"{name}: executed, outputs kept")


def main(names: list[str]) -> int:
    os.environ["CBMEMORY_LLM"] = "scripted"
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CBMEMORY_LLM_BASE_URL"):
        os.environ.pop(key, None)
    for name in names or NOTEBOOKS:
        if name == "evaluate_memory.ipynb":
            if not LOCOMO.exists():
                print(f"{name}: skipped, no LoCoMo file at {LOCOMO} (set CBMEMORY_LOCOMO)")
                continue
            os.environ["CBMEMORY_LOCOMO"] = str(LOCOMO)
        run(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
