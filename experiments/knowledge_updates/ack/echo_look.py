"""A look (`train`, `dev`; README, "The assistant's acknowledgement of a value"): how often a user turn's next turn
is a short reply naming a word of it, in plain LoCoMo and for the injected `confirmed` changes, and the slot head's
probability of the asked kind for those (the product's reading is ``cbmemory.retrieval.acknowledged``; this look
came first, with its own word list).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/ack/echo_look.py
"""

import re

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import slot_head
from cbmemory.text import stated
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate

DATA = "../shared/data/locomo/locomo-dev.json"
STOP = set("""a an the and or but so to of in on at for from with by as is are was were be been being am i i'm i've
i'd me my mine we our us you your yours he she it its they them their this that these those there here what which who
how when where why not no yes do does did done have has had will would can could should just really very too also all
any some one more most much now then right okay ok oh well yeah thanks thank good great nice lot get got go going
gone keep mind from now on up out about it's that's im ive""".split())
WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")


def echoes(statement: str, reply: str, most: int = 15) -> bool:
    said = WORD.findall(reply.lower())
    if len(said) > most:
        return False
    named = set(WORD.findall(statement.lower())) - STOP
    return any(w in named for w in said if w not in STOP and len(w) >= 3)


def main() -> None:
    convs = load_locomo(DATA)
    turns, echoed = 0, []
    for c in convs:
        msgs = [m for s in sorted(c.sessions, key=lambda s: s.date) for m in s.messages]
        for a, b in zip(msgs, msgs[1:], strict=False):
            if a.speaker == c.speaker_a and b.speaker == c.speaker_b:
                turns += 1
                if echoes(a.content, b.content):
                    echoed.append((a.content[:90], b.content[:90]))
    print(f"plain LoCoMo: {len(echoed)}/{turns} user turns with a short echoing reply")
    for e in echoed[:12]:
        print("   ", e)
    emb, head = MiniLMEmbedder(), slot_head.load()
    for fam in ("train", "dev"):
        rows = []
        for case in generate(convs, fam):
            for inj in case.injections:
                if inj.step in ("new", "back") and case.variant == "confirmed":
                    user, reply = inj.messages
                    p = head.probabilities(emb.embed([stated(user.content)]))[0]
                    k = head.names.index(case.kind) if case.kind in head.names else None
                    rows.append((echoes(user.content, reply.content), None if k is None else round(float(p[k]), 3),
                                 None if k is None else int((p[:-1] > p[k]).sum()), case.kind, user.content[:70]))
        print(fam, "confirmed new statements echoed:", sum(r[0] for r in rows), "/", len(rows))
        for r in rows:
            print("   ", r)


if __name__ == "__main__":
    main()
