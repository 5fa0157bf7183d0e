"""Issue 29 item 5: one oversized hit (a 1,400-character emoji message, a 1,700-character Chinese one)
ranked first, and whether `fit` still keeps the other hit within the default's budget.

    PYTHONPATH=shared:. .venv/bin/python experiments/long_memories/fit_check.py
"""

from datetime import datetime, timezone

from cbmemory.context import fit, format_context, line_tokens
from cbmemory.models import Hit, MemoryRecord
from cbmemory.recipes import RECIPES

DAY = datetime(2024, 4, 1, tzinfo=timezone.utc)


def hit(text, pos):
    return Hit(
        MemoryRecord(
            f"r{pos}",
            "u",
            "s1",
            "turn",
            pos,
            "user",
            text,
            text,
            DAY,
            DAY,
            "h",
            turn_id=f"t{pos}",
            speaker="Ana",
        ),
        1.0,
    )


B = RECIPES["default"].context.token_budget
for name, big in (
    ("emoji 1400", "😀🎉🐍🌍🚀" * 280),
    ("chinese 1700", "我的妹妹住在里昂她喜欢画画和弹钢琴" * 100),
):
    hits = [hit(big, 0), hit("My sister lives in Lyon.", 1)]
    print(
        name,
        "budget",
        B,
        "line tokens",
        line_tokens(hits[0]),
        "kept",
        len(fit(hits, B)),
        "lyon shown",
        "Lyon." in format_context(hits, budget=B).text,
    )
