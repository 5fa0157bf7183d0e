"""Integration layer (packaging, issue 23 item 5): the README's install line for a clone is run as written
in a fresh virtual environment — one pip command, the core and both adapters from the clone's paths — and
the result imports and remembers. Offline: pip runs with ``--no-index --no-build-isolation`` added (this
environment's setuptools builds the three projects), and the third-party dependencies are this
environment's, seen through a ``.pth`` view without our own distributions (as in ``test_wheels``)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

import pytest

from .test_wheels import ADAPTERS, JUNK, ROOT, _run, _site, deps  # noqa: F401 - deps is a fixture

README = ROOT / "README.md"
USE = """
import json, sys, tempfile
from pathlib import Path
from cbmemory import AgentMemory
import langchain_cbmemory, llamaindex_cbmemory
with AgentMemory.open(Path(tempfile.mkdtemp()) / "m.db") as memory:
    memory.add_session("alice", "s1", [{"role": "user", "content": "I moved to Lyon yesterday."}], date="2023-05-07")
    found = memory.recall("Where do I live?", "alice")
print(json.dumps({"text": found.text, "adapters": [langchain_cbmemory.__file__, llamaindex_cbmemory.__file__]}))
"""


def clone_line() -> str:
    """The README's install line for a clone: the pip command naming the clone's own paths."""
    [line] = re.findall(r"^pip install \. \./packages/.*$", README.read_text(), re.M)
    return line


@pytest.mark.packaging
def test_the_readme_line_installs_the_core_and_both_adapters_from_a_clone(tmp_path, deps):  # noqa: F811
    line = clone_line()
    args = shlex.split(line)
    assert args[:3] == ["pip", "install", "."] and {f"./packages/{d}" for d in ADAPTERS} == set(args[3:])
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, clone / name)
    for folder in ("shared/cbmemory", *ADAPTERS.values(), "packages"):
        shutil.copytree(ROOT / folder, clone / folder, ignore=JUNK)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    (_site(python) / "zz_deps.pth").write_text("\n".join(map(str, deps)) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(python), *args[1:], "--no-index", "--no-build-isolation",
          "-q"], cwd=clone, timeout=600)
    import json

    out = json.loads(_run([str(python), "-c", USE], cwd=tmp_path, timeout=300).strip().splitlines()[-1])
    assert "user: I moved to Lyon yesterday [Saturday, 6 May 2023]. [said Sunday, 7 May 2023]" in out["text"]
    assert all(path.startswith(str(_site(python))) for path in out["adapters"])  # installed, not the repo's
