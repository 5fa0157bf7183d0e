"""Two users' five-turn sessions, both named ``s1``, for the adapters' window tests: a question matches the
middle turn of each, so the default recipe shows it between turns 1 and 3."""

from __future__ import annotations

DAY = "Sunday, 7 May 2023"
ALICE = [("user", "I spent last week hiking in the Alps with my brother."),
         ("assistant", "How was the weather up there?"),
         ("user", "We saw a golden eagle circling above the Aletsch glacier."),
         ("assistant", "That must have been unforgettable."),
         ("user", "Next month I start pottery classes downtown.")]
BOB = [("user", "I repaired the roof of my cabin on Saturday."),
       ("assistant", "Was it a big job?"),
       ("user", "My neighbour lent me a ladder and we replaced forty tiles."),
       ("assistant", "Good neighbours are worth a lot."),
       ("user", "Tomorrow I am baking sourdough bread for the first time.")]
ALICE_Q = "Which bird did I see above the glacier?"
BOB_Q = "Who lent me a ladder?"


def line(turns: list[tuple[str, str]], i: int) -> str:
    """Turn ``i`` as the context stage renders it (dated, no relative date in it)."""
    role, text = turns[i]
    return f"[{DAY}] {role}: {text}"


BEFORE, HIT, AFTER = (line(ALICE, i) for i in (1, 2, 3))
