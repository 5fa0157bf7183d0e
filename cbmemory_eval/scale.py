"""Haystack scaling: grow each LoCoMo conversation with distractor sessions from the other conversations.

At scale ×N a conversation's haystack holds about N times its own turns: its sessions plus sessions of
the other conversations, taken in a fixed shuffled order. So that names do not give the distractors away,
their speakers are renamed to this conversation's speakers (in the speaker field, in the text and in image
captions, whole words only), and their dates are mapped linearly into this conversation's date span
(keeping their order). When the other conversations run out (×N larger than the number of conversations),
they are used again with the two speakers swapped, which makes different texts. Distractor session and
turn ids start with ``x<pass>|``, so they can never be gold evidence. Deterministic for a given seed.
"""

from __future__ import annotations

import argparse
import random
import re
from collections.abc import Sequence
from datetime import datetime

from cbmemory import Message

from .datasets.locomo import LocomoSession
from .questions import Haystack


def _renamer(mapping: dict[str, str]):
    names = sorted(mapping, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")
    return lambda text: pattern.sub(lambda m: mapping[m[1]], text)


def _span(conv) -> tuple[datetime, float]:
    dates = [s.date for s in conv.sessions]
    return min(dates), (max(dates) - min(dates)).total_seconds()


def distractor_sessions(target, others: Sequence, factor: int, *, seed: int = 0) -> list[LocomoSession]:
    """Sessions to add to ``target`` (a ``LocomoConversation``) so its haystack is ~``factor`` times larger."""
    if factor < 1:
        raise ValueError("the haystack scale factor must be at least 1")
    need = (factor - 1) * sum(len(s.messages) for s in target.sessions)
    pool = [(o, s) for o in others if o.sample_id != target.sample_id for s in o.sessions]
    if need <= 0 or not pool:
        return []
    random.Random(f"{seed}:{target.sample_id}").shuffle(pool)
    t0, t_span = _span(target)
    spans = {o.sample_id: _span(o) for o in others}
    out: list[LocomoSession] = []
    added, rounds = 0, 0
    while added < need:
        swap = rounds % 2 == 1
        for other, session in pool:
            if added >= need:
                break
            a, b = (target.speaker_b, target.speaker_a) if swap else (target.speaker_a, target.speaker_b)
            rename = _renamer({other.speaker_a: a, other.speaker_b: b})
            o0, o_span = spans[other.sample_id]
            frac = (session.date - o0).total_seconds() / o_span if o_span else 0.0
            date = datetime.fromtimestamp(t0.timestamp() + frac * t_span, tz=t0.tzinfo)
            prefix = f"x{rounds}|{other.sample_id}"
            msgs = []
            for m in session.messages:
                speaker = rename(m.speaker) if m.speaker else m.speaker
                msgs.append(Message(
                    role="user" if speaker == target.speaker_a else "assistant", content=rename(m.content),
                    speaker=speaker, turn_id=f"{prefix}|{m.turn_id}",
                    annotations={k: rename(v) for k, v in m.annotations.items()},
                ))
            out.append(LocomoSession(f"{prefix}|{session.session_id}", date, tuple(msgs)))
            added += len(msgs)
        rounds += 1
    return out


def scaled_haystacks(conversations: Sequence, factor: int, *, others: Sequence | None = None,
                     seed: int = 0) -> dict[str, Haystack]:
    """Haystack per conversation at scale ×``factor`` (distractors drawn from ``others``, default: all of
    ``conversations``)."""
    pool = list(others) if others is not None else list(conversations)
    out = {}
    for conv in conversations:
        extra = distractor_sessions(conv, pool, factor, seed=seed) if factor > 1 else []
        sessions = sorted([*conv.sessions, *extra], key=lambda s: (s.date, s.session_id))
        out[conv.sample_id] = Haystack(conv.sample_id, tuple(sessions))
    return out


def scales_arg(text: str) -> list[int]:
    """``--scale`` on the command line: haystack scales as comma-separated integers from 1 to 50."""
    try:
        values = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        values = []
    if not values or any(v < 1 or v > 50 for v in values):
        raise argparse.ArgumentTypeError("scales are integers from 1 to 50, e.g. 1,10")
    return values
