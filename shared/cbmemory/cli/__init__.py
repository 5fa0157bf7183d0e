"""The ``cbmemory`` command line: ``ingest`` (your chat logs), ``search``, ``stats``, ``forget`` and
``recipes``; installed packages add theirs through the entry-point group ``cbmemory.commands`` (the
evaluation, ``cbmemory-eval``, adds ``eval``, ``demo``, ``bench`` and ``ingest-dataset``).

Every mistake of the user ends the command with one line on stderr and a non-zero exit, never a traceback
(``main``: ``USAGE`` 2 for a bad command line or bad input, ``FAILURE`` 1 for anything else,
``INTERRUPTED`` 130 for Ctrl-C).

A package adding commands (``register(subparsers)`` under ``cbmemory.commands``) uses the same argparse
types and options from here: ``positive``, ``csv``, ``as_of``, ``recipe_arg``, ``add_ingest_options``,
``open_memory``, ``say`` and ``Interrupted``.
"""

from .app import ENTRY_POINTS, build_parser, failure, main
from .common import (
    FAILURE,
    INTERRUPTED,
    USAGE,
    Interrupted,
    UnknownSessionError,
    UnknownUserError,
    add_ingest_options,
    as_of,
    csv,
    open_memory,
    positive,
    recipe_arg,
    say,
)
from .ingest import ChatLogError, read_chat_log

__all__ = [
    "ENTRY_POINTS", "FAILURE", "INTERRUPTED", "USAGE", "ChatLogError", "Interrupted", "UnknownSessionError",
    "UnknownUserError", "add_ingest_options", "as_of", "build_parser", "csv", "failure", "main", "open_memory",
    "positive", "read_chat_log", "recipe_arg", "say",
]
