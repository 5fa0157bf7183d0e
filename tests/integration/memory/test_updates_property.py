"""Integration layer (property, Hypothesis): random histories of changes of one fact, written with write-time
links (``IngestConfig(link_updates=True)``) to a real SQLite file with the real MiniLM embedder, and read
after the last session through ``AgentMemory.recall`` with the default recipe.

A history: one kind of slot (where the user lives, works, their phone number, doctor, next trip), a first
statement and 1 to 3 changes in phrasings the write-time rules link, each value drawn from a small pool
(a change differs from the value before it; reverts A -> B -> A allowed), sessions on increasing random
dates, random unrelated turns of the user around them and whole sessions of them in between. Property:

- the newest statement is shown, unmarked; every older statement of the history that is shown is marked
  ``[changed on ...: no longer current]`` (a revert's older line with the same value too);
- with ``current_only=True`` the newest is shown and no older statement is;
- ``as_of`` between the last two statements: the one before the last is shown unmarked, the last not at all.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cbmemory import AgentMemory, get_recipe
from cbmemory.dates import anchor_label

LINKING = dataclasses.replace(get_recipe("default").ingest, link_updates=True)
D0 = datetime(2023, 1, 9, 10, tzinfo=timezone.utc)
MARK = "no longer current]"

# slot: (question, first statement, change, pool of values): phrasings the write-time rules link
SLOTS = {
    "home": ("Which city do I live in?", "I live in {} and I love it.", "Big news: I moved to {}.",
             ["Porto", "Glasgow", "Tallinn", "Valencia", "Bergen"]),
    "work": ("Where do I work?", "I work at {}.", "I started a new job at {} this month.",
             ["Pinecrest Bank", "Lumen Health", "Harbor Labs", "Orion Foods"]),
    "phone": ("What is my phone number?", "You can reach me on {}.", "I changed my phone number, it's {} now.",
              ["0745 330 8172", "0752 119 3387", "0791 442 6610"]),
    "doctor": ("Who is my doctor?", "My doctor is Dr. {}, she's very thorough.",
               "I switched doctors, I see Dr. {} now.", ["Okafor", "Haddad", "Lindqvist", "Moreau"]),
    "trip": ("Where is my next big trip?", "My next big trip is to {}.",
             "Change of plans, my big trip is going to be {} instead.", ["Iceland", "Peru", "Japan", "Kenya"]),
}
FILLER = ["We watched a film about whales.", "The weather has been lovely for walks.",
          "I baked bread with my neighbour on Sunday.", "My book club picked a mystery novel.",
          "The garden needs watering again.", "I finally finished that long novel about sailors."]


@st.composite
def histories(draw):
    slot = draw(st.sampled_from(sorted(SLOTS)))
    pool = SLOTS[slot][3]
    values = [draw(st.sampled_from(pool))]
    for _ in range(draw(st.integers(1, 3))):
        values.append(draw(st.sampled_from([v for v in pool if v != values[-1]])))  # reverts allowed
    gaps = draw(st.lists(st.integers(1, 60), min_size=len(values), max_size=len(values)))
    before = draw(st.lists(st.lists(st.sampled_from(FILLER), max_size=2), min_size=len(values), max_size=len(values)))
    after = draw(st.lists(st.lists(st.sampled_from(FILLER), max_size=2), min_size=len(values), max_size=len(values)))
    between = draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))  # a filler-only session
    return slot, values, gaps, before, after, between


def _write(memory: AgentMemory, slot: str, values, gaps, before, after, between) -> list[tuple[datetime, str]]:
    """The sessions of the history; each statement of the fact with the date it was said."""
    _, first, change, _ = SLOTS[slot]
    said, day = [], D0
    for i, value in enumerate(values):
        day += timedelta(days=gaps[i])
        if between[i]:
            memory.add_session("ana", f"f{i}", [{"role": "user", "content": FILLER[i % len(FILLER)]}],
                               date=day - timedelta(hours=6))
        statement = (first if i == 0 else change).format(value)
        turns = [*before[i], statement, *after[i]]
        msgs = [m for t in turns for m in ({"role": "user", "content": t}, {"role": "assistant", "content": "I see."})]
        memory.add_session("ana", f"s{i}", msgs, date=day)
        said.append((day, statement))
    return said


def _lines(text: str, said: list[tuple[datetime, str]]) -> dict[int, list[str]]:
    """Per statement of the history (its index), the context lines that show it (its date and its text)."""
    out: dict[int, list[str]] = {}
    for line in text.splitlines():
        for i, (day, statement) in enumerate(said):
            said_on = anchor_label(day)
            stated = statement.rstrip('.')  # a resolved date may follow
            # its session date first, or, when it has a relative date (the default layout), after its text
            if (line.startswith(f"[{said_on}] user: {stated}")
                    or (line.startswith(f"user: {stated}") and f"[said {said_on}]" in line)):
                out.setdefault(i, []).append(line)
    return out


@pytest.mark.heavy
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# found by CI: the last change's nearest turns were all replies "I see." (indexed with the turn they answer), so
# its search for earlier statements never reached "I moved to Porto" (memory/updates.py now searches deeper)
@example(history=("home", ["Porto", "Glasgow", "Porto", "Glasgow"], [1, 1, 1, 1],
                  [[], ["We watched a film about whales.", "The weather has been lovely for walks."], [],
                   ["We watched a film about whales."]],
                  [[], [], ["The weather has been lovely for walks."], []], [False, False, False, False]))
@given(histories())
def test_after_random_histories_of_changes_the_newest_value_is_shown_and_every_older_one_marked(
        tmp_path_factory, minilm, history):
    slot, values, *rest = history
    with AgentMemory.open(tmp_path_factory.mktemp("h") / "m.db", embedder=minilm, ingest=LINKING) as memory:
        said = _write(memory, slot, values, *rest)
        question, last = SLOTS[slot][0], len(said) - 1
        today = said[-1][0] + timedelta(days=1)

        text = memory.recall(question, "ana", today=today).text
        shown = _lines(text, said)
        assert last in shown and not any(line.endswith(MARK) for line in shown[last]), text
        for i, lines in shown.items():
            if i != last:
                assert all(line.endswith(MARK) for line in lines), (i, text)

        current = _lines(memory.recall(question, "ana", today=today, current_only=True).text, said)
        assert set(current) == {last}, current

        then = said[-2][0] + (said[-1][0] - said[-2][0]) / 2  # between the last two statements
        before = _lines(memory.recall(question, "ana", as_of=then).text, said)
        assert last not in before and last - 1 in before, before
        assert not any(line.endswith(MARK) for line in before[last - 1]), before
