"""The parser and the one place a command ends: commands join it through ``register(subparsers)`` (the
core's own, then those of installed packages through the entry-point group ``cbmemory.commands``), and
:func:`main` turns typed errors (``CbMemoryError``), files that cannot be read (``OSError``), files that
are not JSON, Ctrl-C and a closed output pipe into one stderr line and an exit code (``USAGE`` 2 for a bad
command line or bad input, ``FAILURE`` 1 for anything else, ``INTERRUPTED`` 130)."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from ..errors import CbMemoryError, MissingDependencyError, StoreUnavailableError, WriteConflictError
from . import commands, ingest, serve, transfer
from .common import FAILURE, INTERRUPTED, USAGE, say

# Commands of other packages: each entry point of this group names a ``register(subparsers)`` function.
ENTRY_POINTS = "cbmemory.commands"
# The study's commands (``cbmemory-eval``): named when it is not installed, so a user learns where they went.
STUDY_COMMANDS = ("eval", "bench", "demo", "ingest-dataset")
STUDY_NOTE = ("`cbmemory {command}` comes with the evaluation package: pip install cbmemory-eval (in a clone, "
              "`make install-dev` installs it)")
# Typed errors that are not the user's mistake: a server that does not answer, a write that lost a race, an
# extra that is not installed.
NOT_USAGE: tuple[type[CbMemoryError], ...] = (StoreUnavailableError, WriteConflictError, MissingDependencyError)


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default after its help, unless there is none to show (``None``, ``""``, a flag's
    ``False``) or the help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default is None or action.default is False or action.default in ("", argparse.SUPPRESS) \
                or "default" in text.lower() or action.required:
            return text
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse with defaults in the help and a mistake said in one line (argparse's exit code, 2)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: error: {' '.join(message.split())} (see `{self.prog} --help`)\n")


def _plugins():
    """The ``register`` functions of installed packages' commands, with where each comes from."""
    from importlib.metadata import entry_points

    found = sorted(entry_points(group=ENTRY_POINTS), key=lambda e: (e.dist.name if e.dist else "", e.name))
    return [(ep, f"{ep.dist.name if ep.dist else ep.value} ({ep.name})") for ep in found]


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="cbmemory", description="Agent memory with date-anchored recall.")
    sub = p.add_subparsers(dest="command", required=True)
    ingest.register(sub)
    commands.register(sub)
    transfer.register(sub)
    serve.register(sub)
    for ep, source in _plugins():
        try:
            ep.load()(sub)
        except Exception as exc:  # noqa: BLE001 - a broken package must not take the core's commands with it
            say("warning", f"the commands of {source} could not load: {type(exc).__name__}: {exc}")
    return p


def _os_error(exc: OSError) -> tuple[int, str]:
    if exc.filename is None:
        return FAILURE, str(exc.strerror or exc)
    name = exc.filename
    if isinstance(exc, FileNotFoundError):
        return USAGE, f"{name}: no such file or directory"
    if isinstance(exc, IsADirectoryError):
        return USAGE, f"{name} is a directory; expected a file"
    if isinstance(exc, FileExistsError):
        return USAGE, f"{name} exists and is not a folder"
    if isinstance(exc, NotADirectoryError):
        return USAGE, f"{name}: a part of the path is not a directory"
    if isinstance(exc, PermissionError):
        return USAGE, f"{name}: permission denied"
    return FAILURE, f"{name}: {exc.strerror or exc}"


# What ``main`` turns into one line: typed errors, unreadable files, files that are not JSON or not text, and
# as a last resort SQLite's own errors.
ENDS = (CbMemoryError, OSError, json.JSONDecodeError, UnicodeDecodeError, sqlite3.Error)


def failure(exc: BaseException, args: argparse.Namespace | None = None) -> tuple[int, str]:
    """The exit code and the one-line message for an exception of ``ENDS``."""
    if isinstance(exc, CbMemoryError):
        return (FAILURE if isinstance(exc, NOT_USAGE) else USAGE), str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        return _os_error(exc)
    if isinstance(exc, json.JSONDecodeError):
        return USAGE, f"a file is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, UnicodeDecodeError):
        return USAGE, f"a file is not UTF-8 text ({exc.reason} at byte {exc.start})"
    return FAILURE, f"{getattr(args, 'db', 'the store')}: SQLite error: {exc}"  # the store types those it knows


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that Python's own flush at exit does not fail again (the reader of the
    pipe has gone: ``cbmemory recipes | head``)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (e.g. captured by a test)
        pass


def _absent(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """The study command ``argv`` asks for when no installed package provides it."""
    if not argv or argv[0] not in STUDY_COMMANDS:
        return None
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return None if argv[0] in sub.choices else argv[0]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code. A bad command line exits (``SystemExit`` 2) from argparse."""
    args: argparse.Namespace | None = None
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        absent = _absent(parser, argv)
        if absent is not None:
            say("error", STUDY_NOTE.format(command=absent))
            return USAGE
        args = parser.parse_args(argv)
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return FAILURE
    except KeyboardInterrupt as exc:  # an ``Interrupted`` says what its command kept
        print(f"cbmemory: interrupted; {str(exc) or 'every write is one transaction: what was written stays'}",
              file=sys.stderr)
        return INTERRUPTED
    except ENDS as exc:
        code, message = failure(exc, args)
        say("error", message)
        return code


__all__ = ["ENDS", "ENTRY_POINTS", "STUDY_COMMANDS", "HelpFormatter", "Parser", "build_parser", "failure", "main"]
