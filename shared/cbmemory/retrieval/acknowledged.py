"""Read time, beside the current-value stage: the user's statements the assistant acknowledged (``acknowledged``).

An agent that takes note of a fact often says so in a few words that name it back: "Got a Fernhill Analytics hoodie
in my welcome pack" answered "Noted, Fernhill Analytics." Told by such a clue, a change is far from its
kind's descriptions and under the slot head's floor; the short reply naming a word of it says the statement told
something the agent registered. The stage (``current_value.acknowledged_places``) keeps a place for the newest such
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
from collections.abc import Sequence
from datetime import datetime

from ..models import MemoryRecord, SearchFilters
from ..store.base import MemoryStore

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
