"""Reading a dataset file and saying, when it is not the dataset asked for, what it is instead.

Both loaders read through :func:`read_json`, which turns a file that is not JSON (or not UTF-8 text) into a
``DatasetFormatError`` naming the file and what was expected, and :func:`refuse_other` recognises the other
dataset's file so the message can name the command that reads it. Missing files and directories are left
to ``open`` (``FileNotFoundError``, ``IsADirectoryError``): the command line reports those itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cbmemory import InvalidInputError

LOCOMO = "locomo"
LONGMEMEVAL = "longmemeval"
EXPECTED = {
    LOCOMO: "a JSON list of LoCoMo conversations (objects with sample_id, conversation and qa)",
    LONGMEMEVAL: "a JSON list of LongMemEval questions (objects with question_id, question and haystack_sessions)",
}
NAMES = {LOCOMO: "LoCoMo", LONGMEMEVAL: "LongMemEval"}


class DatasetFormatError(InvalidInputError):
    """A dataset file that is not in the format of the dataset it was given as (or not JSON at all).
    The message names the file, what it holds and what was expected."""


def read_json(path: str | Path, dataset: str) -> Any:
    """The parsed JSON of ``path``; a file that does not parse is a ``DatasetFormatError``."""
    with open(path, encoding="utf-8") as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as exc:
            raise DatasetFormatError(f"{path} is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
                                     f"expected {EXPECTED[dataset]}") from None
        except UnicodeDecodeError:
            raise DatasetFormatError(f"{path} is not UTF-8 text; expected {EXPECTED[dataset]}") from None


def looks_like(item: object) -> str | None:
    """Which dataset one item of a file belongs to, judged by its keys (``None``: neither)."""
    if not isinstance(item, Mapping):
        return None
    if "conversation" in item and "qa" in item:
        return LOCOMO
    if "question_id" in item and "haystack_sessions" in item:
        return LONGMEMEVAL
    return None


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "a JSON object"
    return f"the JSON value {repr(value)[:60]}"


def check_items(data: object, path: str | Path, dataset: str) -> list[Any]:
    """``data`` as the list of items of ``dataset``; anything else is a ``DatasetFormatError`` saying what the
    file holds (the other dataset's file: which command reads it)."""
    items = data if isinstance(data, list) else [data]
    for item in items[:1]:
        other = looks_like(item)
        if other is not None and other != dataset:
            raise DatasetFormatError(f"{path} looks like a {NAMES[other]} file, not {NAMES[dataset]}; read it with "
                                     f"the {other} command (e.g. `cbmemory ingest {other} {path} --db ...`)")
    if not isinstance(data, list):
        raise DatasetFormatError(f"{path} holds {_kind(data)}; expected {EXPECTED[dataset]}")
    return data


def missing_key(path: str | Path, index: int, key: object, dataset: str) -> DatasetFormatError:
    """The error for item ``index`` of ``path`` lacking ``key``."""
    return DatasetFormatError(f"{path}: item {index} has no {key!r}; expected {EXPECTED[dataset]}")


__all__ = ["EXPECTED", "LOCOMO", "LONGMEMEVAL", "DatasetFormatError", "check_items", "looks_like", "missing_key",
           "read_json"]
