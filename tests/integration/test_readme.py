"""Integration layer: the README quickstart runs as written (offline, in a temporary folder)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_quickstart_runs(tmp_path, monkeypatch, capsys):
    text = README.read_text()
    quickstart = text.split("## Quickstart", 1)[1]
    code = re.search(r"```python\n(.*?)```", quickstart, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README quickstart", "exec"), {})
    out = capsys.readouterr().out
    assert "[Monday, 8 May 2023] Caroline: I went to the LGBTQ support group yesterday." in out
    assert (tmp_path / "memory.db").exists()
