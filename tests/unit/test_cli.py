"""Unit layer (cli): ``cbmemory recipes`` lists the named recipes and prints one, or all, as JSON; a bad command
line, an empty query and a recipe missing its date end in one stderr line and exit 2 before any file is
opened; every option has a help text and shows its default; ``main`` turns each kind of failure into one line
and an exit code (2 usage, 1 other, 130 Ctrl-C, a quiet 1 on a closed pipe). No store, no files: mistakes
with real files are in tests/integration/cli/test_cli_mistakes.py."""

import argparse
import json
import sqlite3

import pytest

from cbmemory import cli
from cbmemory.cli import commands, main
from cbmemory.errors import (
    CorruptStoreError,
    InvalidInputError,
    MissingDependencyError,
    StoreNotFoundError,
    StoreUnavailableError,
    WriteConflictError,
)
from cbmemory.recipes import RECIPES, Recipe, all_recipes

NOWHERE = "/nonexistent-cbmemory-dir/memory.db"  # never opened: each mistake is found before


def test_recipes_lists_and_prints_json(capsys):
    assert main(["recipes"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in all_recipes()) and RECIPES["default"].description in listing
    assert main(["recipes", "hybrid_scaled"]) == 0
    assert Recipe.from_json(capsys.readouterr().out) == all_recipes()["hybrid_scaled"]
    assert main(["recipes", "--json"]) == 0
    everything = json.loads(capsys.readouterr().out)
    assert {n: Recipe.from_dict(d) for n, d in everything.items()} == dict(all_recipes())
    assert main(["recipes", "nope"]) == 2 and "unknown recipe 'nope'" in capsys.readouterr().err


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    return err


# argv, the exit code, what the one line says
BAD_COMMAND_LINES = {
    "search --k 0": (["search", "x", "--db", NOWHERE, "--user", "u", "--k", "0"], "--k: must be at least 1, got 0"),
    "search --k ten": (["search", "x", "--db", NOWHERE, "--user", "u", "--k", "ten"], "whole number"),
    "search --as-of nonsense": (["search", "x", "--db", NOWHERE, "--user", "u", "--as-of", "someday"],
                                "cannot parse date 'someday'"),
    "search without a query": (["search", "--db", NOWHERE, "--user", "u"], "required: query"),
    "eval --k 0": (["eval", "locomo", "--data", "d.json", "--out", "o", "--k", "0"], "--k: must be at least 1"),
    "eval --limit 0": (["eval", "locomo", "--data", "d.json", "--out", "o", "--limit", "0"], "--limit: must be at"),
    "eval --ks 0,5": (["eval", "locomo", "--data", "d.json", "--out", "o", "--ks", "0,5"], "--ks: expected comma"),
    "eval --workers 0": (["eval", "longmemeval", "--data", "d.json", "--out", "o", "--workers", "0"], "--workers"),
    "eval --conversations -1": (["eval", "locomo", "--data", "d", "--out", "o", "--conversations", "-1"],
                                "--conversations: must be at least 1"),
    "no command": ([], "required: command"),
    "unknown dataset": (["ingest-dataset", "lococo", "f.json", "--db", NOWHERE], "invalid choice: 'lococo'"),
}


@pytest.mark.parametrize("argv, says", BAD_COMMAND_LINES.values(), ids=BAD_COMMAND_LINES)
def test_a_bad_command_line_is_one_line_and_exit_2(argv, says, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    printed = capsys.readouterr()
    assert info.value.code == 2 and printed.out == ""
    err = one_line(printed.err)
    assert err.startswith("cbmemory") and ": error: " in err and says in err and "--help" in err


INPUT_MISTAKES = {
    "empty query": (["search", "", "--db", NOWHERE, "--user", "u"], "the query is empty"),
    "whitespace query": (["search", " \t ", "--db", NOWHERE, "--user", "u"], "the query is empty"),
    "future_filter without --as-of": (["search", "what", "--db", NOWHERE, "--user", "u", "--recipe", "future_filter"],
                                      "give that date with --as-of DATE"),
    "unknown recipe": (["search", "what", "--db", NOWHERE, "--user", "u", "--recipe", "nope"], "unknown recipe"),
    "missing store": (["stats", "--db", NOWHERE], "does not exist"),
    "bench of a sparse neighbour recipe": (["bench", "--out", NOWHERE, "--neighbour-recipes", "default,default_sparse"],
                                           "the tenant-neighbour row does not run recipes with the sparse signal "
                                           "(default_sparse)"),
}


@pytest.mark.parametrize("argv, says", INPUT_MISTAKES.values(), ids=INPUT_MISTAKES)
def test_an_input_mistake_is_one_line_and_exit_2(argv, says, capsys):
    assert main(argv) == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    err = one_line(printed.err)
    assert err.startswith("cbmemory: error: ") and says in err


def _parsers(parser: argparse.ArgumentParser, skip=("bench",)):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if name not in skip:  # bench: its own module's options (cbmemory_eval.bench.cli)
                    yield from _parsers(sub, skip)


def test_every_option_has_a_help_text_and_help_shows_defaults():
    parsers = list(_parsers(cli.build_parser()))
    assert len(parsers) >= 10  # cbmemory, ingest, search, stats, forget, recipes, eval (+3), demo
    for p in parsers:
        for action in p._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert action.help, f"{p.prog} {action.dest} has no help"
    helps = {p.prog: " ".join(p.format_help().split()) for p in parsers}  # wrapped lines joined
    assert "(default: default)" in helps["cbmemory search"] and "--as-of DATE" in helps["cbmemory search"]
    evaluate = helps["cbmemory eval locomo"]
    assert "(default: 10)" in evaluate and "(default: 1,3,5,10,20,30,50)" in evaluate
    assert all("(default: None)" not in h and "(default: False)" not in h and "(default: )" not in h
               for h in helps.values())
    assert "(default: out/demo)" in helps["cbmemory demo"]


FAILURES = {
    "input": (InvalidInputError("query must be a string"), 2, "query must be a string"),
    "no store": (StoreNotFoundError("x.db does not exist"), 2, "x.db does not exist"),
    "damaged": (CorruptStoreError("x.db is damaged"), 2, "damaged"),
    "server down": (StoreUnavailableError("no answer"), 1, "no answer"),
    "lost a race": (WriteConflictError("retry"), 1, "retry"),
    "an extra": (MissingDependencyError("pip install cbmemory[eval]"), 1, "pip install"),
    "missing file": (FileNotFoundError(2, "No such file or directory", "d.json"), 2,
                     "d.json: no such file or directory"),
    "a directory": (IsADirectoryError(21, "Is a directory", "data"), 2, "data is a directory; expected a file"),
    "no permission": (PermissionError(13, "Permission denied", "x.db"), 2, "x.db: permission denied"),
    "disk full": (OSError(28, "No space left on device", "x.db"), 1, "x.db: No space left on device"),
    "a file where a folder goes": (FileExistsError(17, "File exists", "out"), 2, "out exists and is not a folder"),
    "no file named": (OSError(5, "Input/output error"), 1, "Input/output error"),
    "not json": (json.JSONDecodeError("Expecting value", "oops", 0), 2, "not valid JSON (Expecting value"),
    "not text": (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), 2, "not UTF-8 text"),
    "sqlite": (sqlite3.OperationalError("disk I/O error"), 1, "SQLite error: disk I/O error"),
}


@pytest.mark.parametrize("exc, code, says", FAILURES.values(), ids=FAILURES)
def test_main_turns_each_failure_into_one_line_and_its_exit_code(exc, code, says, capsys, monkeypatch):
    def fails(args):
        raise exc

    monkeypatch.setattr(commands, "cmd_recipes", fails)
    assert main(["recipes"]) == code
    err = one_line(capsys.readouterr().err)
    assert err.startswith("cbmemory: error: ") and says in err


def test_ctrl_c_exits_130_saying_what_was_kept(capsys, monkeypatch):
    def interrupted(args):
        raise cli.Interrupted("2 of 8 conversations are stored")

    monkeypatch.setattr(commands, "cmd_recipes", interrupted)
    assert main(["recipes"]) == 130
    assert one_line(capsys.readouterr().err) == "cbmemory: interrupted; 2 of 8 conversations are stored\n"

    def plain(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "cmd_recipes", plain)
    assert main(["recipes"]) == 130
    assert "what was written stays" in one_line(capsys.readouterr().err)


def test_a_closed_pipe_ends_quietly(capsys, monkeypatch):
    def pipe_gone(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(commands, "cmd_recipes", pipe_gone)
    assert main(["recipes"]) == 1
    assert capsys.readouterr().err == ""


@pytest.fixture
def without_the_study(monkeypatch):
    """No package adds commands or recipes: the core installed alone."""
    import importlib.metadata

    from cbmemory.recipes import plugin_recipes

    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **kw: [] if str(kw.get("group", "")).startswith("cbmemory.") else real(**kw))
    plugin_recipes.cache_clear()
    yield
    plugin_recipes.cache_clear()


@pytest.mark.parametrize("command", ["eval", "bench", "demo", "ingest-dataset"])
def test_without_the_study_its_commands_say_where_they_come_from(without_the_study, capsys, command):
    assert main([command, "locomo", "--data", "d.json"]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and one_line(printed.err) == (
        f"cbmemory: error: `cbmemory {command}` comes with the evaluation package: pip install cbmemory-eval (in a "
        "clone, `make install-dev` installs it)\n")
    assert command not in " ".join(cli.build_parser().format_help().split())


def test_recipes_lists_which_come_from_the_study(capsys, without_the_study):
    assert main(["recipes"]) == 0
    alone = capsys.readouterr().out
    assert all(name in alone for name in RECIPES) and "hybrid_scaled" not in alone
    assert "pip install cbmemory-eval" in alone


def test_recipes_marks_the_study_s_rows(capsys):
    assert main(["recipes"]) == 0
    core, _, study = capsys.readouterr().out.partition("from cbmemory-eval (the study):")
    assert all(name in core for name in RECIPES) and "hybrid_scaled" in study and "vector_no_dates" in study
    assert "question_dates" not in core
