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
    assert "[Monday, 8 May 2023] Caroline: I went to the LGBTQ support group yesterday [Sunday, 7 May 2023]." in out
    for comment in re.findall(r'# \.\.\. "(.*?)"$', code, re.M):  # the printed-output comments say what it prints
        assert comment in out
    assert (tmp_path / "memory.db").exists()
    exec(compile(code, "README quickstart", "exec"), {})  # run twice: nothing is stored twice
    from cbmemory import AgentMemory

    with AgentMemory.open(tmp_path / "memory.db") as memory:
        assert [r.text for r in memory.session_records("caroline")] == [
            "I went to the LGBTQ support group yesterday.", "That sounds powerful!", "It really was."]
