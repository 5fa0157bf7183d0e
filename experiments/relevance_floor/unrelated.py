"""Issue 30: what a small memory shows for questions it knows nothing about, and for those it does, with and
without a relevance floor.

The memories: the conversation of ``experiments/date_layout/demo_questions.json`` (a puppy, pottery, a move,
a hike; 12 turns) and a second one of our own below (houseplants and a trip; 8 turns), each stored by the
real ``AgentMemory`` (SQLite file in a temporary folder, MiniLM). The questions: ``UNRELATED`` (nothing in
either memory answers them: general knowledge, coding, another topic of life), asked of both memories, and the
8 demo questions (related: their evidence turn should stay shown). Reported per recipe: for each unrelated
question the turns shown (hits with their windows), and for the related ones whether the evidence is among
the hits. Written before any floor was chosen; run again for each candidate.

    PYTHONPATH=shared:. .venv/bin/python -m experiments.relevance_floor.unrelated --recipes default,default_no_floor
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import datetime
from pathlib import Path

from cbmemory import AgentMemory
from cbmemory.context import shown_records
from cbmemory.recipes import get_recipe

DEMO = Path(__file__).resolve().parents[1] / "date_layout" / "demo_questions.json"
PLANTS = [
    ("2025-01-10T09:00:00+00:00", [
        ("user", "I repotted my monstera and the fiddle-leaf fig this morning."),
        ("assistant", "How are they doing?"),
        ("user", "The fig dropped two leaves, I think it needs more light."),
        ("user", "I water the succulents every two weeks and the ferns twice a week."),
    ]),
    ("2025-02-03T19:00:00+00:00", [
        ("user", "We booked a trip to Lisbon for April, four nights near the Alfama."),
        ("assistant", "Lovely, anything you want to see?"),
        ("user", "The tram 28 and the tile museum, and I want to eat pasteis de nata every day."),
        ("user", "My neighbour will water the plants while we are away."),
    ]),
]
UNRELATED = [
    "What is the capital of France?",
    "How do I reverse a list in Python?",
    "What is the boiling point of water at sea level?",
    "Who wrote Pride and Prejudice?",
    "Can you recommend a good laptop for video editing?",
    "How many moons does Jupiter have?",
    "What's the best way to learn Spanish?",
    "Explain how a transformer neural network works.",
    "What time zone is Tokyo in?",
    "How do I change a flat tyre on a bicycle?",
]


def memories(folder: Path, recipe: str) -> AgentMemory:
    memory = AgentMemory.open(str(folder / f"{recipe}.db"), recipe=recipe)
    demo = json.loads(DEMO.read_text())
    for s in demo["sessions"]:
        memory.add_session("demo", s["session_id"], [{"role": r, "content": t} for r, t in s["turns"]],
                           date=s["date"])
    for i, (date, turns) in enumerate(PLANTS):
        memory.add_session("plants", f"p{i + 1}", [{"role": r, "content": t} for r, t in turns], date=date)
    return memory


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--recipes", default="default")
    args = p.parse_args()
    demo = json.loads(DEMO.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.recipes.split(","):
            memory = memories(Path(tmp), name)
            recipe = get_recipe(name)
            shown: dict[str, dict[str, int]] = {}
            top: dict[str, dict[str, float]] = {}
            for user in ("demo", "plants"):
                for q in UNRELATED:
                    hits = memory.search(q, user_id=user)
                    shown.setdefault(q, {})[user] = len(shown_records(hits))
                    nofloor = memory.search(q, user_id=user, recipe=recipe.with_(floor=None))
                    top.setdefault(q, {})[user] = round(max((h.signals.get("vector", -1) for h in nofloor),
                                                            default=-1), 3)
            kept = 0
            for q in demo["questions"]:
                session, at = q["evidence"]
                hits = memory.search(q["question"], user_id="demo",
                                     reference_date=datetime.fromisoformat("2025-05-20T00:00:00+00:00"))
                kept += any(h.record.session_id == session and h.record.position == at for h in hits)
            total = sum(sum(v.values()) for v in shown.values())
            print(f"## {name} (floor {recipe.retrieval.filters.floor})")
            print(f"unrelated: {total} turns shown over {2 * len(UNRELATED)} questions; related: evidence among the "
                  f"hits for {kept} of {len(demo['questions'])}")
            for q in UNRELATED:
                print(f"  {q!r}: shown {shown[q]}, best cosine {top[q]}")
            memory.close()


if __name__ == "__main__":
    main()
