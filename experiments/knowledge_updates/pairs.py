"""Issue 31: the write-time rules (``cbmemory.ingest.updates.changes``) on statement pairs, offline (no store):
the generated changes of a phrasing family (train only while developing) and each plain LoCoMo dev user
statement against its K nearest earlier user statements (embeddings of the statements' own words, so the
candidate set is close to, not equal to, the product's: the product searches stored vectors).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/pairs.py --family train --k 16 [-v]

Prints per conversation: the plain links (each one with ``-v``) and the train changes found / other-variant
false links, so a constant can be chosen leaving one conversation out (``--only`` / ``--skip``).
"""

from __future__ import annotations

import argparse
import functools
import os
import pickle
from collections import Counter, defaultdict

import numpy as np

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.ingest import updates as U
from cbmemory.text import stated
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate

CACHE = "/tmp/cbmemory_pairs_emb.pkl"


class Vectors:
    def __init__(self) -> None:
        self.emb = MiniLMEmbedder()
        self.E: dict[str, np.ndarray] = pickle.load(open(CACHE, "rb")) if os.path.exists(CACHE) else {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        miss = [t for t in dict.fromkeys(texts) if t not in self.E]
        if miss:
            for t, v in zip(miss, self.emb.embed(miss), strict=True):
                self.E[t] = np.asarray(v, np.float32)
        return np.stack([self.E[t] for t in texts])

    def save(self) -> None:
        pickle.dump(self.E, open(CACHE, "wb"))


def family_pairs(convs, family: str):
    """(conversation, kind, variant, is_change, new, old) per generated pair."""
    for c in generate(convs, family):
        inj = {i.step: i.messages[0].content for i in c.injections}
        if c.variant == "other":
            yield c.user_id, c.kind, c.variant, False, inj["other"], inj["old"]
        elif c.variant == "revert":
            yield c.user_id, c.kind, c.variant, True, inj["new"], inj["old"]
            yield c.user_id, c.kind, c.variant, True, inj["back"], inj["new"]
        else:
            yield c.user_id, c.kind, c.variant, True, inj["new"], inj["old"]


def plain_links(convs, vec: Vectors, k: int, role: str = "user"):
    """(conversation, similarity, new, old) per link the rules make on the plain conversations, the turns of
    ``role`` taken as the user's (``assistant``: LoCoMo's other speaker, more ordinary chat to test on)."""
    for conv in convs:
        turns = sorted((s.date, s.session_id, i, m.content) for s in conv.sessions
                       for i, m in enumerate(s.messages) if m.role == role)
        texts = [t[3] for t in turns]
        S = vec(texts) @ vec(texts).T
        for j, new in enumerate(texts):
            if not stated(new):
                continue
            for e in np.argsort(-S[j, :j], kind="stable")[:k].tolist():
                if stated(texts[e]) and U.changes(new, texts[e], float(S[j, e])):
                    yield conv.sample_id, float(S[j, e]), new, texts[e]


def loco(rows, links, floors) -> None:
    """Leave one conversation out: on the other seven, the floor with the most changes found less 5 per
    someone-else's fact linked and 5 per plain link (each plain link is presumed false); report it on the one."""
    convs = sorted({r[0] for r in rows})

    def score(floor, keep):
        found = sum(1 for c, ch, s, hit in rows if c in keep and ch and hit and s >= floor)
        false = sum(1 for c, ch, s, hit in rows if c in keep and not ch and hit and s >= floor)
        plain = sum(1 for c in keep for x in links.get(c, []) if x[0] >= floor)
        return found - 5 * false - 5 * plain, found, false, plain

    for held in convs:
        keep = [c for c in convs if c != held]
        best = max(floors, key=lambda f: (score(f, keep)[0], f))  # a tie: the higher floor
        _, found, false, plain = score(best, [held])
        total = sum(1 for c, ch, _, _ in rows if c == held and ch)
        print(f"LOCO held out {held}: floor {best} (train folds {[score(f, keep)[0] for f in floors]}); held-out "
              f"found {found}/{total}, other false {false}, plain links {plain}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data/locomo/locomo-dev.json")
    ap.add_argument("--family", default="train")
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--speaker", choices=("user", "assistant"), default="user",
                    help="whose turns are the user's on plain LoCoMo (assistant: the other speaker)")
    ap.add_argument("--grid", help="similarity floors to choose from leaving one conversation out, e.g. 0,0.1,0.2")
    args = ap.parse_args()
    U.claims = functools.lru_cache(maxsize=None)(U.claims)  # the harness asks each text many times
    convs = load_locomo(args.data)
    vec = Vectors()
    found, total, false, others = Counter(), Counter(), Counter(), Counter()
    missed = []
    grid_rows = []  # (conversation, is change, similarity, linked with no floor)
    for conv, kind, variant, change, new, old in family_pairs(convs, args.family):
        v = vec([new, old])
        hit = U.changes(new, old, float(v[0] @ v[1]))
        if args.grid:
            grid_rows.append((conv, change, float(v[0] @ v[1]), U.changes(new, old, 1.0)))
        if change:
            total[conv] += 1
            found[conv] += hit
            if not hit:
                missed.append((variant, kind, new, old))
        else:
            others[conv] += 1
            false[conv] += hit
            if hit:
                print("FALSE", kind, "|", new, "||", old)
    links = defaultdict(list)
    floor = U.SIMILARITY
    if args.grid:
        U.SIMILARITY = -1.0  # every link, with its similarity; the floors are applied below
    for conv, s, new, old in plain_links(convs, vec, args.k, args.speaker):
        links[conv].append((s, new, old))
    if args.grid:
        loco(grid_rows, links, [float(x) for x in args.grid.split(",")])
        U.SIMILARITY = floor
        links = defaultdict(list, {c: [x for x in ls if x[0] >= floor] for c, ls in links.items()})
    vec.save()
    for conv in sorted(total):
        print(f"{conv}: {args.family} found {found[conv]}/{total[conv]}, other false {false[conv]}/{others[conv]}, "
              f"plain links {len(links[conv])}")
    print(f"all: {args.family} found {sum(found.values())}/{sum(total.values())}, other false "
          f"{sum(false.values())}/{sum(others.values())}, plain links {sum(map(len, links.values()))}")
    print("missed by variant", dict(Counter(m[0] for m in missed)), "by kind", dict(Counter(m[1] for m in missed)))
    if args.v:
        for conv in sorted(links):
            for s, new, old in links[conv]:
                print(f"LINK {conv} {s:.2f} | {new[:160]} || {old[:160]}")
        for m in missed:
            print("MISSED", m[0], m[1], "|", m[2], "||", m[3])


if __name__ == "__main__":
    main()
