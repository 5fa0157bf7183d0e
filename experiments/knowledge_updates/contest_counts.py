"""Issue 31: a knowledge-update run's counts split by whether the question's fact is contested in its haystack: the
user's own later talk claims the same kind again. Counts only, no sentence printed.

A haystack's turns are the user's too. In a LoCoMo conversation the user may talk about their job or their pet after
the injected statement, and at ×N every distractor session is another conversation's talk renamed to the user
(``cbmemory_eval.scale``): "I adopted a puppy last month" after the injected "I have a tortoise". To the memory that
is the user's later word on the matter, and the value the benchmark scores (the injected new value, or for a
non-change the user's own) is not then the only one the user's words say holds, or not the latest. A case is
contested when a user turn of the plain haystack, in a session after the one holding the case's current statement,
claims the case's kind by the product's write-time claim rules (``cbmemory.claims``) in a sentence that names no
one (``cbmemory.text.people``: "My sister works at ..." is hers) but a role that acts on that kind of fact ("my
manager" on a job) or, for the kinds about the people in one's life (a partner, a household, a child's school),
anyone. The rules are precise but far from complete, so a case read as clear may still be contested by talk they
do not read, and the label moves with them: it is kept here, not in the study (``cbmemory_eval`` reads only the
core's public API). The cases and haystacks are made again as the run made them (seed 0, plain phrasings).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/contest_counts.py DATA RUN FAMILY SCALE
"""

import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime

from cbmemory.claims import claims
from cbmemory.text import ROLES_OF, people
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.scale import scaled_haystacks
from cbmemory_eval.updates import generate

# The benchmark's kinds (``cbmemory_eval.updates.kinds.KINDS``) and the claim rule each is read by (``claims.SLOTS``).
CLAIM_KINDS: Mapping[str, str] = {
    "city": "home", "home_type": "home", "employer": "work", "job_title": "title", "weekly_class": "schedule",
    "phone": "phone", "email": "email", "favourite_dish": "favourite", "coffee": "coffee", "child_school": "school",
    "trip": "trip", "morning_habit": "habit", "partner": "partner", "laptop": "device", "household": "household",
    "doctor": "doctor", "language": "language", "car": "car", "sport": "sport", "diet": "diet", "pet": "pet",
    "commute": "commute", "wake_time": "wake",
}
PEOPLE_KINDS = frozenset({"partner", "household", "school"})  # claims of these name the people they are about

Order = tuple[datetime, str]  # a session's place: its date, then its id (the order a haystack stores them in)


def _own(sentence: str, kind: str) -> bool:
    """Whether a claim of ``kind`` in ``sentence`` is the user's own: it names no one but a role of the kind, or the
    kind is about people."""
    return kind in PEOPLE_KINDS or people(sentence) <= ROLES_OF.get(kind, frozenset())


def claimed_kinds(sessions: Sequence) -> list[tuple[Order, frozenset[str]]]:
    """Per user turn of ``sessions`` (a haystack's) that claims a kind as the user's own, its session's place and the
    kinds it claims."""
    out = []
    for s in sessions:
        for m in s.messages:
            if m.role == "user" and (kinds := frozenset(k for k, found in claims(m.content).items()
                                                        if any(_own(c.sentence, k) for c in found))):
                out.append(((s.date, s.session_id), kinds))
    return out


def contested(case, later: Sequence[tuple[Order, frozenset[str]]], dates: Mapping[str, datetime]) -> bool:
    """Whether a claim of ``later`` (``claimed_kinds`` of the case's haystack) of the case's kind lies in a session
    after the one holding the case's current statement (``dates``: the haystack's session dates by id)."""
    kind = CLAIM_KINDS[case.kind]
    said = max((dates[i.session_id], i.session_id) for i in case.injections
               if any(m.turn_id in case.current_turns for m in i.messages))
    return any(kind in kinds and at > said for at, kinds in later)


def main() -> None:
    data, run, family, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    conversations = load_locomo(data)
    hs = scaled_haystacks(conversations, scale, others=conversations, seed=0)
    cases = {c.case_id: c for c in generate(conversations, family, seed=0) if c.user_id in hs}
    later = {u: claimed_kinds(h.sessions) for u, h in hs.items()}
    dates = {u: {s.session_id: s.date for s in h.sessions} for u, h in hs.items()}
    tab: Counter = Counter()
    for line in open(f"{run}/cases-{family}-x{scale}.jsonl"):
        r = json.loads(line)
        c = cases[r["case_id"]]
        where = "contested" if contested(c, later[c.user_id], dates[c.user_id]) else "clear"
        what = "change" if r["is_change"] else "own"
        tab[where, what, "n"] += 1
        tab[where, what, "shown"] += r["new_shown"]
        tab[where, what, "stale_only"] += r["stale_only"] if r["is_change"] else 0
    for where in ("clear", "contested"):
        print(f"{family} x{scale} {where:9s} newest shown / stale only {tab[where, 'change', 'shown']} / "
              f"{tab[where, 'change', 'stale_only']} of {tab[where, 'change', 'n']}, own value "
              f"{tab[where, 'own', 'shown']} of {tab[where, 'own', 'n']}")


if __name__ == "__main__":
    main()
