"""The generator of fact changes: deterministic (seeded) cases injected into LoCoMo conversations.

One case per (conversation, kind of fact). Its variant rotates with the conversation, so over 6 or more
conversations every kind is told in every way:

- ``direct``: the user states a value, later states a new one plainly ("I moved to Porto last week");
- ``quiet``: the new value in words that repeat neither the old value nor the question's content words;
- ``passing``: the new value told in passing inside another topic;
- ``confirmed``: the new value told quietly, then repeated by the assistant ("Noted, so it's Porto now.");
- ``revert``: A, then B, then A again (A holds);
- ``other``: a non-change that looks like one: the user states A, later someone else's similar fact
  ("my cousin just moved to Glasgow"); A still holds.

Statements are user turns (the conversation's first speaker), each followed by an assistant turn (the second
speaker), appended at the end of a session (with ``asks_back``, each statement ends with a question back, as a
chat turn often does: "..., how have you been?"): the first statement in the first ~40 % of the sessions, the
change in the middle, a revert's return near the end. The question is asked after the last session.
Phrasings come from one family (``train``, ``dev``, ``test``, ``fresh``, ``blind`` or ``probe``), never two; so do the
values, for a family with values of its own (``family_values``).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from cbmemory import Message

from . import (
    phrasings_blind,
    phrasings_dev,
    phrasings_fresh,
    phrasings_probe,
    phrasings_test,
    phrasings_train,
)
from .kinds import FAMILIES, KINDS, Kind

VARIANTS = ("direct", "quiet", "passing", "confirmed", "revert", "other")
_FAMILY = {"train": phrasings_train, "dev": phrasings_dev, "test": phrasings_test, "fresh": phrasings_fresh,
           "blind": phrasings_blind, "probe": phrasings_probe}


@dataclass(frozen=True, slots=True)
class Injection:
    """Turns appended at the end of one session; ``step``: ``old``, ``new``, ``back`` or ``other``."""

    session_id: str
    step: str
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class UpdateCase:
    """One question about one fact of one user. ``current``: the value that holds when asked;
    ``current_turns``: the turns of its latest statement; ``stale``/``stale_turns``: the value that no
    longer holds and its turns (a change), or someone else's value and its turns (``is_change`` False)."""

    case_id: str
    user_id: str
    kind: str
    family: str
    variant: str
    question: str
    question_date: datetime
    current: str
    stale: str
    current_turns: tuple[str, ...]
    stale_turns: tuple[str, ...]
    injections: tuple[Injection, ...]

    @property
    def is_change(self) -> bool:
        return self.variant != "other"


def phrasing(family: str, kind: str, slot: str) -> str:
    if family not in _FAMILY:
        raise ValueError(f"unknown phrasing family {family!r}; known: {', '.join(FAMILIES)}")
    return _FAMILY[family].PHRASINGS[kind][slot]


def family_values(family: str, kind: Kind) -> tuple[str, ...]:
    """The values ``kind`` takes in ``family``: the family's own (a phrasings module's ``VALUES``), else the kind's."""
    own: dict[str, tuple[str, ...]] = getattr(_FAMILY[family], "VALUES", {})
    return own.get(kind.name, kind.values)


def _mentioned(values: Sequence[str], text: str) -> set[str]:
    return {v for v in values if re.search(r"\b" + re.escape(v.lower()) + r"\b", text)}


def _values(values: Sequence[str], rng: random.Random, text: str) -> tuple[str, str]:
    """Two distinct values, preferring ones the conversation does not already mention."""
    fresh = [v for v in values if v not in _mentioned(values, text)]
    pool = fresh if len(fresh) >= 2 else list(values)
    a, b = rng.sample(pool, 2)
    return a, b


def _slot(sessions: Sequence, lo: float, hi: float, i: int) -> str:
    n = len(sessions)
    start = min(int(n * lo), n - 1)
    width = max(1, min(int(n * hi), n) - start)
    return sessions[start + i % width].session_id


def _turn(role: str, speaker: str, text: str, turn_id: str) -> Message:
    return Message(role, text, speaker, turn_id)


class _Teller:
    """Makes the injected turns of one case."""

    def __init__(self, family: str, kind: Kind, conv, rng: random.Random, asks_back: bool = False):
        self.mod, self.family, self.kind, self.conv, self.rng = _FAMILY[family], family, kind, conv, rng
        self.asks_back = asks_back

    def say(self, session_id: str, step: str, slot: str, value: str, *, confirm: bool = False,
            who: str = "") -> Injection:
        base = f"upd|{self.kind.name}|{step}"
        text = phrasing(self.family, self.kind.name, slot).format(v=value, who=who)
        if self.asks_back:  # its own draw: the case's values and replies stay as without it
            text += " " + random.Random(f"{self.conv.sample_id}:{base}").choice(self.mod.ASKS)
        reply = (self.rng.choice(self.mod.CONFIRMS).format(v=value) if confirm
                 else self.rng.choice(self.mod.REPLIES))
        msgs = (_turn("user", self.conv.speaker_a, text, f"{base}|0"),
                _turn("assistant", self.conv.speaker_b, reply, f"{base}|1"))
        return Injection(session_id, step, msgs)


def make_case(conv, kind: Kind, variant: str, family: str, seed: int, index: int,
              sessions: Sequence | None = None, question_date: datetime | None = None,
              asks_back: bool = False) -> UpdateCase:
    """The case of ``kind`` told as ``variant`` in conversation ``conv`` (a ``LocomoConversation``);
    ``sessions``: the haystack's sessions (default the conversation's), ``index`` spreads kinds over them;
    ``asks_back``: each statement ends with a question back."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    ordered = sorted(sessions if sessions is not None else conv.sessions, key=lambda s: (s.date, s.session_id))
    own = sorted(conv.sessions, key=lambda s: (s.date, s.session_id))  # statements go into the user's own talk
    rng = random.Random(f"{seed}:{family}:{conv.sample_id}:{kind.name}")
    text = " ".join(m.content.lower() for s in conv.sessions for m in s.messages)
    a, b = _values(family_values(family, kind), rng, text)
    t = _Teller(family, kind, conv, rng, asks_back)
    old_s, new_s, back_s = _slot(own, 0.1, 0.4, index), _slot(own, 0.5, 0.8, index), _slot(own, 0.85, 1.0, index)
    first = t.say(old_s, "old", "state", a)
    injections: tuple[Injection, ...]
    if variant == "other":
        other = t.say(new_s, "other", "other", b, who=rng.choice(t.mod.WHO))
        injections, current, stale, cur, old = (first, other), a, b, first, other
    elif variant == "revert":
        mid = t.say(new_s, "new", "change", b)
        back = t.say(back_s, "back", "quiet", a)
        injections, current, stale, cur, old = (first, mid, back), a, b, back, mid
    else:
        slot = {"direct": "change", "quiet": "quiet", "passing": "passing", "confirmed": "quiet"}[variant]
        new = t.say(new_s, "new", slot, b, confirm=variant == "confirmed")
        injections, current, stale, cur, old = (first, new), b, a, new, first
    cur_ids = tuple(m.turn_id for m in cur.messages if m.turn_id and (m.role == "user" or variant == "confirmed"))
    old_ids = tuple(m.turn_id for m in old.messages if m.turn_id and m.role == "user")
    when = question_date if question_date is not None else max(s.date for s in ordered)
    return UpdateCase(f"{conv.sample_id}:{kind.name}", conv.sample_id, kind.name, family, variant,
                      kind.questions[family], when, current, stale, cur_ids, old_ids, injections)


# A question as an agent's tool asks it, about "the user" (``as_agent``): the first person put in the third, by the
# pronouns alone (in order: a verb before "I" first).
_AS_AGENT = tuple((re.compile(a), b) for a, b in (
    (r"\bdo I\b", "does the user"), (r"\bam I\b", "is the user"), (r"\bhave I\b", "has the user"),
    (r"\bwas I\b", "was the user"), (r"\bI['’]m\b", "the user is"), (r"\bI['’]ve\b", "the user has"),
    (r"\bI\b", "the user"), (r"\b[Mm]y\b", "the user's"), (r"\bme\b", "the user"), (r"\bmine\b", "the user's"),
    (r"\bmyself\b", "themselves"), (r"\bdo we\b", "does the user"), (r"\b[Ww]e\b", "the user"),
    (r"\b[Oo]ur\b", "the user's"), (r"\bof us\b", "in the user's household"), (r"\bus\b", "the user")))


ASK_AS = ("user", "agent", "name")  # who asks: the user, an agent about "the user", or by the user's name


def as_agent(question: str, user: str = "the user") -> str:
    """``question`` as an agent's tool would ask it: "Which city do I live in?" -> "Which city does the user live
    in?", "my phone number" -> "the user's phone number" (first letter kept in capitals); ``user``: how it names
    the user ("Which city does John live in?")."""
    for pattern, words in _AS_AGENT:
        question = pattern.sub(words.replace("the user", user).replace("\\", "\\\\"), question)
    return question[:1].upper() + question[1:]


def generate(conversations: Sequence, family: str = "train", *, seed: int = 0,
             haystacks: dict | None = None, kinds: Sequence[Kind] = KINDS, asks_back: bool = False,
             ask_as: str = "user") -> list[UpdateCase]:
    """Every case for ``conversations`` in one phrasing ``family``: one per (conversation, kind), the
    variant rotating with the conversation's index. ``haystacks``: scaled haystacks by user (their last
    date is when the question is asked); ``asks_back``: each statement ends with a question back; ``ask_as``:
    ``user`` (the question in the first person), ``agent`` (about "the user": ``as_agent``) or ``name`` (about the
    user by the name their turns carry, as an agent that knows it or an app for two people asks)."""
    if ask_as not in ASK_AS:
        raise ValueError(f"unknown ask_as {ask_as!r}; known: {', '.join(ASK_AS)}")
    if family not in FAMILIES:
        raise ValueError(f"unknown phrasing family {family!r}; known: {', '.join(FAMILIES)}")
    out = []
    for ci, conv in enumerate(conversations):
        hs = haystacks.get(conv.sample_id) if haystacks else None
        when = max(s.date for s in hs.sessions) if hs is not None else conv.last_date
        for ki, kind in enumerate(kinds):
            variant = VARIANTS[(ki + ci) % len(VARIANTS)]
            case = make_case(conv, kind, variant, family, seed, ki, question_date=when, asks_back=asks_back)
            if ask_as != "user":
                case = dataclasses.replace(case, question=as_agent(
                    case.question, conv.speaker_a if ask_as == "name" else "the user"))
            out.append(case)
    return out


def appended(cases: Sequence[UpdateCase]) -> dict[str, list[tuple[str, list[Message]]]]:
    """Per user, the turns to append, grouped by session in the order the cases inject them."""
    out: dict[str, dict[str, list[Message]]] = {}
    for c in cases:
        for inj in c.injections:
            out.setdefault(c.user_id, {}).setdefault(inj.session_id, []).extend(inj.messages)
    return {u: list(by.items()) for u, by in out.items()}
