"""Integration layer (packaging): the four distributions build as wheels from one source tree and each
installs into a fresh virtual environment (packages/README.md); the core's wheel holds nothing of the study
(no evaluation, bench or datasets), and the study's, installed beside it, adds its commands and recipes to
the core's through entry points.

Offline: the wheels are built from a clean copy of the sources with this environment's setuptools (no build
isolation, no index), and installed with ``--no-deps --no-index``. Each fresh environment reaches the
third-party dependencies through a ``.pth`` line naming a view of this environment's site-packages without
our own distributions (neither their editable installs nor their metadata, whose entry points would
otherwise be found), after its own site-packages: what is imported from our packages comes from the wheel.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from importlib.metadata import version as installed_version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ADAPTERS = {"langchain-cbmemory": "langchain_cbmemory", "llama-index-memory-cbmemory": "llamaindex_cbmemory"}
STUDY = {"cbmemory-eval": "cbmemory_eval"}
OURS = ("cbmemory-", "cbmemory_eval-", "langchain_cbmemory-", "llama_index_memory_cbmemory-", "__editable__")
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
ENV = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "PYTHONNOUSERSITE": "1"}


def _run(args: list[str], cwd: Path, timeout: int = 180) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), **ENV}
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args[:4]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, Path]:
    """The four wheels, built in one pip command from a copy of what the repository tracks for them."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for folder in ("shared/cbmemory", *ADAPTERS.values(), *STUDY.values(), "packages"):
        shutil.copytree(ROOT / folder, src / folder, ignore=JUNK)
    out = tmp_path_factory.mktemp("wheels")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", str(out), str(src), *(str(src / "packages" / d) for d in (*ADAPTERS, *STUDY))], cwd=src)
    found = {w.name.split("-")[0].replace("_", "-"): w for w in out.glob("*.whl")}
    assert set(found) == {"cbmemory", *ADAPTERS, *STUDY}, sorted(found)
    return found


def _files(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        return z.namelist()


def _metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(z.read(name).decode())


@pytest.mark.packaging
def test_each_wheel_ships_its_own_packages_once(wheels):
    core = {f.split("/")[0] for f in _files(wheels["cbmemory"])}
    assert core == {"cbmemory", "cbmemory-0.1.0.dist-info"}  # the adapters and the study are not shipped twice
    assert not [f for f in _files(wheels["cbmemory"]) if f.split("/")[1:2] in (["eval"], ["bench"], ["datasets"])]
    assert "cbmemory/cli/__main__.py" in _files(wheels["cbmemory"])
    assert "cbmemory/data/demo_conversation.json" in _files(wheels["cbmemory"])  # `make demo`'s conversation
    assert "langchain_cbmemory/demo.py" in _files(wheels["langchain-cbmemory"])
    study = _files(wheels["cbmemory-eval"])
    assert {f.split("/")[0] for f in study} == {"cbmemory_eval", "cbmemory_eval-0.1.0.dist-info"}
    assert {"cbmemory_eval/py.typed", "cbmemory_eval/README.md", "cbmemory_eval/recipes.py",
            "cbmemory_eval/bench/worker.py", "cbmemory_eval/datasets/locomo.py"} <= set(study)
    with zipfile.ZipFile(wheels["cbmemory-eval"]) as z:
        points = z.read("cbmemory_eval-0.1.0.dist-info/entry_points.txt").decode()
    assert "[cbmemory.commands]" in points and "eval = cbmemory_eval.cli:register" in points
    assert "[cbmemory.recipes]" in points and "study = cbmemory_eval.recipes:STUDY_RECIPES" in points
    assert {"cbmemory/py.typed", "cbmemory/data/minilm_tokenizer.json", "cbmemory/data/NOTICE", "cbmemory/data/cities.txt"} \
        <= set(_files(wheels["cbmemory"]))
    lc = _files(wheels["langchain-cbmemory"])
    assert {f.split("/")[0] for f in lc} == {"langchain_cbmemory", "langchain_cbmemory-0.1.0.dist-info"}
    assert "langchain_cbmemory/py.typed" in lc and "langchain_cbmemory/middleware.py" in lc
    li = _files(wheels["llama-index-memory-cbmemory"])
    assert {f.split("/")[0] for f in li} == {"llamaindex_cbmemory", "llama_index",
                                             "llama_index_memory_cbmemory-0.1.0.dist-info"}
    # llama_index and llama_index.memory stay namespace packages, shared with llama-index-core
    assert [f for f in li if f.startswith("llama_index/")] == [
        "llama_index/memory/cbmemory/__init__.py", "llama_index/memory/cbmemory/py.typed"]
    # the same sources: each module in the wheel is the repository's file, byte for byte
    with zipfile.ZipFile(wheels["langchain-cbmemory"]) as z:
        for name in (f for f in lc if f.endswith(".py")):
            assert z.read(name) == (ROOT / name).read_bytes(), name


def test_versions_and_pins_agree(wheels):
    core = _metadata(wheels["cbmemory"])
    version = core["Version"]
    assert version == installed_version("cbmemory")  # the development install's, from pyproject.toml
    requires = core.get_all("Requires-Dist")
    assert f'langchain-cbmemory=={version}; extra == "langchain"' in requires
    assert f'llama-index-memory-cbmemory=={version}; extra == "llamaindex"' in requires
    assert f'cbmemory-eval=={version}; extra == "eval"' in requires
    assert not any(r.startswith(("matplotlib", "nltk")) for r in requires)  # the study's, not the core's
    assert any(r.startswith("tiktoken>=0.12") for r in requires)
    for dist in (*ADAPTERS, *STUDY):
        meta = _metadata(wheels[dist])
        assert meta["Version"] == version
        assert f"cbmemory[local]=={version}" in meta.get_all("Requires-Dist")
    assert "llama-index-core<0.15,>=0.14" in _metadata(wheels["llama-index-memory-cbmemory"]).get_all("Requires-Dist")


def _site(python: Path) -> Path:
    return python.parents[1] / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


@pytest.fixture(scope="module")
def deps(tmp_path_factory) -> list[Path]:
    """This environment's site-packages seen without our own distributions: a folder of links to the rest."""
    views = []
    for i, where in enumerate(sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})):
        view = tmp_path_factory.mktemp(f"deps{i}")
        for entry in Path(where).iterdir():
            if not entry.name.startswith(OURS):
                (view / entry.name).symlink_to(entry)
        views.append(view)
    return views


def _fresh_env(path: Path, wheels: list[Path], deps: list[Path]) -> Path:
    """A new virtual environment holding ``wheels``; this environment's site-packages (less our own
    distributions) come after its own."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    python = path / "bin" / "python"
    site = _site(python)
    assert site.is_dir(), site
    (site / "zz_deps.pth").write_text("\n".join(map(str, deps)) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
          *map(str, wheels)], cwd=path)
    return python


PROBE = """
import importlib.util, json, sys
print(json.dumps({name: getattr(importlib.util.find_spec(name), "origin", None) for name in sys.argv[1:]}))
"""


def _where(python: Path, cwd: Path, *modules: str) -> dict[str, str | None]:
    """Where each module would be imported from in that environment (found, not imported: importing the
    frameworks costs seconds, and the adapters' imports are the rest of the suite's business)."""
    return json.loads(_run([str(python), "-c", PROBE, *modules], cwd=cwd))


@pytest.mark.packaging
def test_core_wheel_alone_installs_with_its_command(wheels, tmp_path, deps):
    venv = tmp_path / "core"
    python = _fresh_env(venv, [wheels["cbmemory"]], deps)
    found = _where(python, tmp_path, "cbmemory", "langchain_cbmemory", "llamaindex_cbmemory", "cbmemory_eval")
    assert found == {"cbmemory": str(_site(python) / "cbmemory" / "__init__.py"),
                     "langchain_cbmemory": None, "llamaindex_cbmemory": None, "cbmemory_eval": None}
    listing = _run([str(venv / "bin" / "cbmemory"), "recipes"], cwd=tmp_path)  # the entry point
    assert "default" in listing and "hybrid_scaled" not in listing and "pip install cbmemory-eval" in listing
    done = subprocess.run([str(venv / "bin" / "cbmemory"), "eval", "locomo"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **ENV})
    assert done.returncode == 2 and "pip install cbmemory-eval" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.packaging
def test_study_wheel_adds_its_commands_and_recipes_to_the_core_s(wheels, tmp_path, deps):
    venv = tmp_path / "study"
    python = _fresh_env(venv, [wheels["cbmemory"], wheels["cbmemory-eval"]], deps)
    found = _where(python, tmp_path, "cbmemory", "cbmemory_eval")
    assert found == {m: str(_site(python) / m / "__init__.py") for m in ("cbmemory", "cbmemory_eval")}
    cbmemory = str(venv / "bin" / "cbmemory")
    listing = _run([cbmemory, "recipes"], cwd=tmp_path)
    assert "from cbmemory-eval (the study):" in listing and "hybrid_scaled" in listing
    assert "--baselines" in _run([cbmemory, "eval", "locomo", "--help"], cwd=tmp_path)
    assert "--db" in _run([cbmemory, "ingest-dataset", "--help"], cwd=tmp_path)


@pytest.mark.packaging
@pytest.mark.parametrize("dist", sorted(ADAPTERS))
def test_adapter_wheel_installs_beside_the_core(wheels, tmp_path, dist, deps):
    python = _fresh_env(tmp_path / dist, [wheels["cbmemory"], wheels[dist]], deps)
    site = _site(python)
    ours = {"cbmemory": "cbmemory", ADAPTERS[dist]: ADAPTERS[dist]}
    if dist.startswith("llama"):
        ours["llama_index.memory.cbmemory"] = "llama_index/memory/cbmemory"
    found = _where(python, tmp_path, *ours, "llama_index.core" if dist.startswith("llama") else "langchain_core")
    for module, folder in ours.items():
        assert found[module] == str(site / folder / "__init__.py"), (module, found[module])
    # the framework still comes from its own distribution (llama_index stays a namespace package)
    assert all(v is not None and not v.startswith(str(site)) for k, v in found.items() if k not in ours)
