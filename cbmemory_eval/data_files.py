"""The benchmark files a study command reads: where each is, or one line saying where to get it. Shared by
the commands (``cli``, ``loop_cli``); light, like them: nothing heavy is imported here."""

from __future__ import annotations

import sys
from pathlib import Path

GET_LOCOMO = (
    "LoCoMo is not at {path}; get the official file (10 conversations, CC BY-NC 4.0, sha256-checked) with "
    "`python -c \"from cbmemory_eval.datasets.locomo import download_official; download_official('locomo10.json')\"` "
    "and pass --data locomo10.json"
)
GET_LONGMEMEVAL = (
    "LongMemEval is not at {path}; download longmemeval_oracle.json, longmemeval_s_cleaned.json or "
    "longmemeval_m_cleaned.json from the official LongMemEval release (xiaowu0162/longmemeval-cleaned) and pass --data"
)


def check_data(path: str | None, dataset: str) -> Path | None:
    """The data file, or ``None`` after one line on stderr saying where to get it."""
    if path and Path(path).exists():
        return Path(path)
    text = (GET_LOCOMO if dataset == "locomo" else GET_LONGMEMEVAL).format(path=path)
    print(f"cbmemory: error: {text}", file=sys.stderr)
    return None


__all__ = ["GET_LOCOMO", "GET_LONGMEMEVAL", "check_data"]
