"""Read time, beside the current-value stage: a change told in passing (``told_in_passing``). "Work was hectic, but the
view from our new flat in Bilbao makes up for it" is off the matter of the question ("Which city do I live in?") by its
whole sentence; one of its clauses is on it. Of the stage's statements not chosen, the newest ``RESERVED`` that one of
their first ``CLAUSES_READ`` clauses (``text.clauses``) puts on the slot (``CLAUSE_FLOOR``, ``CLAUSE_MARGIN``, as
``slot_match.clear_rows`` reads them) join what the stage shows (``current_value.latest_statements``). Cost: the
clauses of the statements, newest first, embedded until ``RESERVED`` are found (cached by the embedder).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..models import MemoryRecord, conversation_order
from ..text import clauses
from .slot_match import EmbedMany, Protos, by_slots, clear_rows
from .statements import CACHED_CHARS

# A place is kept for the newest ``RESERVED`` statements the slot's search found that the stage did not choose and
# one of whose clauses (``text.clauses``) puts on the slot (``CLAUSE_FLOOR``, ``CLAUSE_MARGIN``): a change told in
# passing ("Work was hectic, but the view from our new flat in Bilbao makes up for it") is off the slot by its whole
# sentence, and in the stage's ranking its clause would crowd out what is shown. Chosen by leave-one-conversation-out
# on the train phrasings, as the stage's other constants (experiments/knowledge_updates/reserve_cv.py; 7 folds of 8,
# the 8th (1, 0.5, -0.1)): held-out train x1 newest shown 0.870 -> 0.909, stale only
# 0.104 -> 0.071, x10 as it was; test once: x1 0.740 -> 0.760, x10 0.487 -> 0.500, stale only and own value not worse.
RESERVED = 2
CLAUSE_FLOOR = 0.45
CLAUSE_MARGIN = -0.1
CLAUSE_BATCH = 32  # statements whose clauses are embedded first (newest first; then twice as many a call)
# The first clauses of a statement read for a change told in passing: LoCoMo's user turns have at most 12; a pasted
# document of 64 KiB has thousands, which a first question embedded (one such turn: 4.1-4.6 s on 2 cores). The model
# reads only a text's first 256 tokens, so the whole statement's slot is of its beginning too.
CLAUSES_READ = 32


def _clauses(said: str) -> tuple[str, ...]:
    """A statement's first ``CLAUSES_READ`` clauses (``text.clauses``), which ``told_in_passing`` embeds."""
    return _cached_clauses(said) if len(said) <= CACHED_CHARS else _read_clauses(said)


def _read_clauses(said: str) -> tuple[str, ...]:
    return tuple(clauses(said)[:CLAUSES_READ])


_cached_clauses = lru_cache(maxsize=4096)(_read_clauses)


def told_in_passing(pool: Sequence[tuple[MemoryRecord, str]], protos: Protos, slot: str,
                    embed_many: EmbedMany) -> list[MemoryRecord]:
    """Of ``pool`` (a statement's record and what it states), the newest ``RESERVED`` that one of their clauses puts
    on ``slot`` (``CLAUSE_FLOOR``, ``CLAUSE_MARGIN``; the first ``CLAUSES_READ`` of each), newest first. The clauses
    are embedded from the newest statement on, ``CLAUSE_BATCH`` statements' in the first call of ``embed_many`` and
    twice as many in each next one, so the search stops soon when the newest qualify, and a model that embeds many
    texts in one request is called a few times at most (3 for 200 statements). ``latest_statements`` passes each
    statement as it is embedded, without the names it addresses (``statements.unaddressed``)."""
    if RESERVED <= 0:
        return []
    i = protos[0].index(slot)
    left = sorted(pool, key=lambda rs: conversation_order(rs[0]), reverse=True)
    found: dict[str, MemoryRecord] = {}
    start, size = 0, CLAUSE_BATCH
    while start < len(left):
        pieces = [(r, c) for r, said in left[start:start + size] for c in _clauses(said)]
        start, size = start + size, 2 * size
        if not pieces:
            continue
        on = clear_rows(by_slots(embed_many([c for _, c in pieces]), protos), i, CLAUSE_FLOOR, CLAUSE_MARGIN)
        for (r, _), yes in zip(pieces, on, strict=True):
            if yes and r.record_id not in found:
                found[r.record_id] = r
                if len(found) == RESERVED:
                    return list(found.values())
    return list(found.values())
