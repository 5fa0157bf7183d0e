"""The slot head's training sentences (README.md, "A slot head distilled from a local LLM's sentences"), written by
the local LLM (``../shared/tools/local-llm/serve.sh`` running on 127.0.0.1:8765):

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head_data.py kinds OUT.jsonl
    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head_data.py everyday OUT.jsonl

``kinds``: per kind of fact (``retrieval.slots.SLOTS``) three prompts that name only its first description (the fact
stated plainly, only indirectly, in passing); ``everyday``: chat on everyday topics that states no lasting fact (the
head's "none"). No benchmark sentence, value or question is shown to the model. ``head/kinds.jsonl`` and
``head/everyday.jsonl`` are the sentences this wrote on 4 December 2026, 22:39-23:02 and 23:10-23:17 UTC (temperature 0.9, seed 0).
"""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.request

from cbmemory.retrieval.slots import SLOTS

URL = "http://127.0.0.1:8765/v1/chat/completions"
ANGLES = {
    "plain": "Write 12 different short sentences a person might say about themselves to a friend in a chat, in the "
             "first person, about this topic: \"{d}\" (what it is, or that it changed). Make up specific names, "
             "places, brands or numbers.",
    "implicit": "Write 12 different short sentences a person might say about themselves in a chat, in the first "
                "person, that reveal only indirectly something new about this topic: \"{d}\", while talking about "
                "a detail, a feeling or a small event. Do not name the topic itself. Make up specific names, "
                "places, brands or numbers.",
    "passing": "Write 12 different chat messages of one or two sentences, in the first person, where a person "
               "mentions in passing, inside another topic, a change in this: \"{d}\". Make up specific names, "
               "places, brands or numbers.",
}
TOPICS = ("a film they just watched", "the weather today", "a funny thing that happened at lunch", "a book's plot",
          "a friend's birthday party", "a painting they are working on", "a concert last night",
          "a recipe they tried once", "a walk in the park", "feeling tired or happy today", "a news story",
          "a video game level", "a hike last weekend", "a photo they took", "advice for a friend",
          "a podcast episode", "a museum visit", "a garden's flowers", "a charity event", "a song they love",
          "a camping trip story", "a board game night", "a volunteering day", "a sunset they saw",
          "encouraging a friend", "a childhood memory", "a craft project", "a dance class last night",
          "thanks and compliments to a friend", "plans for this evening", "a conference talk", "a festival in town",
          "a rainy afternoon", "a road trip memory", "a poem they wrote", "a dream they had", "a shopping trip",
          "a family dinner last week", "a school memory", "a surprise gift")


def ask(prompt: str, seed: int = 0) -> str:
    body = {"model": "local-gguf", "messages": [{"role": "user", "content": prompt + " One per line, numbered."}],
            "temperature": 0.9, "seed": seed, "max_tokens": 450}
    req = urllib.request.Request(URL, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.load(r)["choices"][0]["message"]["content"]


def lines_of(answer: str) -> list[str]:
    lines = [re.sub(r"^\s*\d+[.)]\s*", "", line).strip().strip('"') for line in answer.splitlines()]
    return [line for line in lines if len(line) > 15]


def prompts_of(mode: str) -> list[tuple[dict[str, str], str]]:
    """The labelled prompts of a mode: ``kinds`` and ``everyday`` (the first batch, seed 0); ``kinds2`` and ``everyday2``
    (a second batch, asked at seed 1: the same three angles on each kind's second description, ``SLOTS``' other wording
    of it, and the same everyday topics)."""
    if mode in ("kinds", "kinds2"):
        n = 0 if mode == "kinds" else 1
        return [({"slot": s, "angle": a}, t.format(d=SLOTS[s][n])) for s in SLOTS for a, t in ANGLES.items()]
    return [({"topic": t}, f"Write 12 different short chat messages a person might send to a friend, in the "
                           f"first person, about {t}.") for t in TOPICS]


def main(mode: str, path: str) -> None:
    seed = 1 if mode.endswith("2") else 0
    prompts = prompts_of(mode)
    with open(path, "a") as out:
        for label, prompt in prompts:
            t0 = time.time()
            got = lines_of(ask(prompt, seed))
            for line in got:
                out.write(json.dumps({**label, "text": line}) + "\n")
            out.flush()
            print(label, len(got), f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
