"""The ``cbmemory`` command line: ``ingest`` (your chat logs), ``search``, ``stats``, ``forget`` and
``recipes``; installed packages add theirs through the entry-point group ``cbmemory.commands`` (the
evaluation, ``cbmemory-eval``, adds ``eval``, ``demo``, ``bench`` and ``ingest-dataset``).

Every mistake of the user ends the command with one line on stderr and a non-zero exit, never a traceback
(``main``: ``USAGE`` 2 for a bad command line or bad input, ``FAILURE`` 1 for anything else,
``INTERRUPTED`` 130 for Ctrl-C).
"""

from .app import ENTRY_POINTS, build_parser, failure, main
from .common import FAILURE, INTERRUPTED, USAGE, Interrupted, UnknownSessionError, UnknownUserError
from .ingest import ChatLogError, read_chat_log

__all__ = [
    "ENTRY_POINTS", "FAILURE", "INTERRUPTED", "USAGE", "ChatLogError", "Interrupted", "UnknownSessionError",
    "UnknownUserError", "build_parser", "failure", "main", "read_chat_log",
]
