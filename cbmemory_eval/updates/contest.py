"""Whether a question's fact is contested in its haystack: the user's own later talk claims the same kind again.

A haystack's turns are the user's too. In a LoCoMo conversation the user may talk about their job or their pet
after the injected statement, and at ×N every distractor session is another conversation's talk renamed to the
user (``cbmemory_eval.scale``): "I adopted a puppy last month" after the injected "I have a tortoise". To the
memory that is the user's later word on the matter, and the value the benchmark scores (the injected new value, or
for a non-change the user's own) is not then the only one the user's words say holds, or not the latest. A case
is ``contested`` when a user turn of the haystack, in a session after the one holding the case's current statement,
claims the case's kind by the write-time claim rules (``cbmemory.claims``). The rules are precise but far from
complete (they read plain first-person claims in words they know), so a case read as clear may still be
contested by talk they do not read; and the label moves with them. It splits the counts; it does not change any.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from cbmemory.claims import claims
from cbmemory.text import ROLES_OF, people

from .generate import UpdateCase

# The benchmark's kinds (``kinds.KINDS``) and the claim rule each is read by (``cbmemory.claims.SLOTS``).
CLAIM_KINDS: Mapping[str, str] = {
    "city": "home", "home_type": "home", "employer": "work", "job_title": "title", "weekly_class": "schedule",
    "phone": "phone", "email": "email", "favourite_dish": "favourite", "coffee": "coffee", "child_school": "school",
    "trip": "trip", "morning_habit": "habit", "partner": "partner", "laptop": "device", "household": "household",
    "doctor": "doctor", "language": "language", "car": "car", "sport": "sport", "diet": "diet", "pet": "pet",
    "commute": "commute", "wake_time": "wake",
}

PEOPLE_KINDS = frozenset({"partner", "household", "school"})  # claims of these name the people they are about

Order = tuple[datetime, str]  # a session's place: its date, then its id (the order a haystack stores them in)


def claimed_kinds(sessions: Sequence) -> list[tuple[Order, frozenset[str]]]:
    """Per user turn of ``sessions`` (a haystack's: ``session_id``, ``date``, ``messages``) that claims a kind, its
    session's place and the kinds it claims: read once per haystack."""
    out = []
    for s in sessions:
        for m in s.messages:
            if m.role == "user" and (kinds := frozenset(k for k, found in claims(m.content).items()
                                                        if any(_own(c.sentence, k) for c in found))):
                out.append(((s.date, s.session_id), kinds))
    return out


def _own(sentence: str, kind: str) -> bool:
    """Whether a claim of ``kind`` in ``sentence`` is the user's own: it names no one but a role of the kind, or the
    kind is about people."""
    return kind in PEOPLE_KINDS or people(sentence) <= ROLES_OF.get(kind, frozenset())


def contested(case: UpdateCase, later: Sequence[tuple[Order, frozenset[str]]],
              dates: Mapping[str, datetime]) -> bool:
    """Whether a claim of ``later`` (``claimed_kinds`` of the case's haystack) of the case's kind lies in a session
    after the one holding the case's current statement (``dates``: the haystack's session dates by id)."""
    kind = CLAIM_KINDS[case.kind]
    said = max((dates[i.session_id], i.session_id) for i in case.injections
               if any(m.turn_id in case.current_turns for m in i.messages))
    return any(kind in kinds and at > said for at, kinds in later)
