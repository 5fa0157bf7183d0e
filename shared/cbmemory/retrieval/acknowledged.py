"""Read time, beside the current-value stage: the user's statements the assistant acknowledged (``acknowledged``).

An agent that takes note of a fact often says so in a few words that name it back: "Got a Fernhill Analytics hoodie
in my welcome pack" answered "Noted, Fernhill Analytics." Told by such a clue, a change is far from its
kind's descriptions and under the slot head's floor; the short reply naming a word of it says the statement told
something the agent registered. The stage (``acknowledged_places``) keeps a place for the newest such
statements it has not chosen, read by the head as of the matter's kind at a lower floor (``ACK_PLACES``,
``ACK_FLOOR``).

A reply acknowledges a statement when it is the next turn of the statement's session, the assistant's, of at most
``ACK_WORDS`` words, and names a word of what the statement states (``text.stated``) of at least ``ACK_LETTERS``
letters that is not one of ``PLAIN``'s function and chat words ("thanks", "great", "keep"). Nothing reads how the
reply is phrased: only that short echo. Cost, for a question the stage answers: one read of the next position of
each statement it has not chosen that is on the slot or clears that floor (``MemoryStore.neighbours``, radius 0: the
embedded store reads its columns in memory and its recent records' cache).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import datetime

import numpy as np

from ..models import MemoryRecord, SearchFilters, conversation_order
from ..store.base import MemoryStore

# The stage keeps a place for the newest ACK_PLACES statements not chosen that the assistant acknowledged by naming a
# word of them back in a short reply (``acknowledged_places``: "Noted, Fernhill Analytics."), on the slot or read by
# the head as of its kind from ACK_FLOOR. Chosen by leave-one-conversation-out on train and dev
# (experiments/knowledge_updates/head/ack_cv.py; 7 folds of 8); test, read a second time for this lever (its first version ranked them with the others
# and lost own value at x10): newest shown / stale only x1 132 / 11 -> 135 / 9 of 154, x10 107 / 14 -> 109 / 13, own
# value 25 and 17 of 30 as they were; about 20 (x1) and 60 (x10) more tokens a question.
ACK_PLACES = 2
ACK_FLOOR = 0.05

# A place of their own for the newest HEARD statements that only an acknowledging reply brought (``answered``), on the
# slot or read by the head from ACK_FLOOR: they take no place the others hold. Set before any run, the fewest that
# does anything (experiments/knowledge_updates/README.md, "The statements short replies acknowledge, with a place of
# their own").
HEARD = 1

ACK_WORDS = 15  # a reply of more words is talk, not an acknowledgement
ACK_LETTERS = 3  # the least length of a word named back
# words a short reply shares with any statement by chance: articles, pronouns, auxiliaries, conjunctions and
# prepositions, and the words of chat and of taking note ("thanks", "great", "noted", "keep", "now")
PLAIN = frozenset("""
a an the and or but nor so yet for to of in on at by from with as into onto about over under after before since
until than then too also just only very really quite all any some one ones more most much many such own same other
this that these those there here what which who whom whose how when where why whether if not no yes yeah yep ok okay
oh ah well right sure fine good great nice cool lovely glad happy wow thanks thank sounds sound noted note got get
gets keep kept mind now today still again ever never always lot lots bit thing things way
i me my mine myself we us our ours you your yours he him his she her hers it its they them their theirs
i'm i've i'd i'll you're you've you'll we're we've we'll it's that's there's he's she's they're let's
am is are was were be been being do does did done have has had will would shall should can could may might must
""".split())
_WORD = re.compile(r"[^\W_][\w'’-]*")


def _words(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD.findall(text.lower())]


def acknowledges(statement: str, reply: str) -> bool:
    """Whether ``reply`` (the assistant's next turn) is at most ``ACK_WORDS`` words and names a word of
    ``statement`` (what the user's turn states) of at least ``ACK_LETTERS`` letters not in ``PLAIN``."""
    said = _words(reply)
    if not said or len(said) > ACK_WORDS:
        return False
    named = {w for w in _words(statement) if len(w) >= ACK_LETTERS and w not in PLAIN}
    return any(w in named for w in said)


def acknowledged(store: MemoryStore, user_id: str, statements: Sequence[tuple[MemoryRecord, str]],
                 filters: SearchFilters, now: datetime | None) -> list[bool]:
    """Per statement (its record and what it states, ``statements``), whether the next turn of its session is the
    assistant's reply that ``acknowledges`` it; ``filters`` as the stage's search (a reply they leave out is none)."""
    if not statements:
        return []
    nexts = store.neighbours(user_id, [(r.session_id, r.kind, r.position + 1) for r, _ in statements], 0, filters,
                             now)
    replies = {(r.session_id, r.kind, r.position): r for r in nexts if r.role == "assistant"}
    out = []
    for r, said in statements:
        reply = replies.get((r.session_id, r.kind, r.position + 1))
        out.append(reply is not None and acknowledges(said, reply.text))
    return out


def acknowledged_places(store: MemoryStore, user_id: str, pool: Sequence[tuple[MemoryRecord, str]],
                        learned: np.ndarray, scores: Sequence[float | None], chosen: Collection[str],
                        filters: SearchFilters, now: datetime | None) -> list[MemoryRecord]:
    """Of ``pool`` (a statement's record and what it states; ``learned`` its ``head_reading``, ``scores`` its
    ``statement_scores``), the newest ``ACK_PLACES`` not ``chosen`` that the assistant acknowledged (``acknowledged``)
    and that are on the slot or that the head gives the slot's kind at least ``ACK_FLOOR``."""
    if ACK_PLACES <= 0 or not pool:
        return []
    left = _on_the_matter(pool, learned, scores, chosen)
    return [r for (r, _), yes in zip(left, acknowledged(store, user_id, left, filters, now), strict=True)
            if yes][:ACK_PLACES]


def _on_the_matter(statements: Sequence[tuple[MemoryRecord, str]], learned: np.ndarray,
                   scores: Sequence[float | None], chosen: Collection[str]) -> list[tuple[MemoryRecord, str]]:
    """Of ``statements`` (``learned`` their ``head_reading``, ``scores`` their ``statement_scores``), those not
    ``chosen`` that are on the slot or that the head gives the slot's kind at least ``ACK_FLOOR``, newest first."""
    return sorted(((r, said) for (r, said), s, p in zip(statements, scores, learned.tolist(), strict=True)
                   if r.record_id not in chosen and (s is not None or p >= ACK_FLOOR)),
                  key=lambda rs: conversation_order(rs[0]), reverse=True)


def answered(store: MemoryStore, user_id: str, records: Iterable[MemoryRecord], pooled: Collection[str],
             read: Callable[[MemoryRecord], str], filters: SearchFilters,
             now: datetime | None) -> list[tuple[MemoryRecord, str]]:
    """The user's statements that short replies among ``records`` (what the stage's searches read) acknowledge: for
    each assistant turn of ``user_id``'s of at most ``ACK_WORDS`` words, the turn one position before it in its
    session (one read for all, ``MemoryStore.neighbours``), when that is not in ``pooled`` (record ids), ``read`` (the
    stage's ``own``) gives a statement and the reply ``acknowledges`` it; each once, in the order of their replies. A
    change told quietly and confirmed ("Noted: Fenwick Analytics.") lies deep in the searches; the reply that names
    it back is near the kind."""
    replies = [r for r in records if r.user_id == user_id and r.kind == "turn" and r.role == "assistant"
               and r.position > 0 and 0 < len(_words(r.text)) <= ACK_WORDS]
    if not replies:
        return []
    before = store.neighbours(user_id, [(r.session_id, r.kind, r.position - 1) for r in replies], 0, filters, now)
    turns = {(r.session_id, r.kind, r.position): r for r in before}
    seen, out = set(pooled), []
    for reply in replies:
        r = turns.get((reply.session_id, reply.kind, reply.position - 1))
        if r is None or r.record_id in seen:
            continue
        said = read(r)
        if said and acknowledges(said, reply.text):
            out.append((r, said))
            seen.add(r.record_id)
    return out


def heard_places(heard: Sequence[tuple[MemoryRecord, str]], learned: np.ndarray, scores: Sequence[float | None],
                 chosen: Collection[str]) -> list[MemoryRecord]:
    """Of ``heard`` (the statements ``answered`` brought, acknowledged each; ``learned`` their ``head_reading``,
    ``scores`` their ``statement_scores``), the newest ``HEARD`` not ``chosen`` that are on the slot or that the head
    gives the slot's kind at least ``ACK_FLOOR``."""
    return [r for r, _ in _on_the_matter(heard, learned, scores, chosen)[:HEARD]]
