"""Draw the turns of the relative-date sample from the LoCoMo dev split (kept to show how it was drawn).

Every turn whose text matches one of ``CUES`` (a broad net of temporal cue words, case-insensitive, whole
words) is a candidate; the candidates of each conversation are shuffled with
``random.Random(f"{SEED}:{sample_id}")`` and printed in that order with their session date. The labeller
reads them in order and labels every time-locating expression built on a cue word in a turn, conversation
by conversation, until the conversation has ``PER_CONVERSATION`` labelled expressions (finishing the turn
it is on). Turns with a cue but no such expression are passed over (README.md gives the counts).

    .venv/bin/python tests/data/relative_dates/draw_sample.py ../shared/data/locomo/locomo-dev.json
"""

from __future__ import annotations

import json
import random
import re
import sys

SEED = 15
PER_CONVERSATION = 20
CUES = (
    "ago", "last", "next", "this", "past", "yesterday", "tomorrow", "tonight", "today", "week", "weekend",
    "weeks", "weekends", "month", "months", "year", "years", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december", "recently", "lately", "the other day",
    "few", "couple", "since", "before", "earlier", "later", "soon", "spring", "summer", "autumn", "fall",
    "winter", "morning", "evening", "night",
)
CUE_PATTERN = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in CUES) + r")\b", re.IGNORECASE)


def candidates(data: list[dict]) -> dict[str, list[tuple[str, str, str]]]:
    """Per conversation: (dia_id, session date as written, text) of every turn with a cue, shuffled."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for obj in data:
        conv = obj["conversation"]
        rows = []
        for key in sorted((k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k[8:])):
            for turn in conv[key]:
                text = str(turn.get("text", ""))
                if CUE_PATTERN.search(text):
                    rows.append((turn["dia_id"], conv[f"{key}_date_time"], text))
        random.Random(f"{SEED}:{obj['sample_id']}").shuffle(rows)
        out[obj["sample_id"]] = rows
    return out


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    for sample_id, rows in candidates(data).items():
        print(f"## {sample_id}: {len(rows)} candidate turns")
        for dia_id, when, text in rows:
            print(f"{sample_id}\t{dia_id}\t{when}\t{text}")


if __name__ == "__main__":
    main(sys.argv[1])
