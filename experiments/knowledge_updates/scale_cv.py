"""Issue 31: how the current-value stage picks the statements it shows, chosen at x1 and x10 together by
leave-one-conversation-out CV on the ``train`` phrasings, offline; then ``test`` once with the choice.

(Re-run after ``text.stated``, with the stage's statements as the product reads them, ``ABOUT_PEOPLE`` applied,
and runs with ``--asks-back`` too: ``--work x1+ask=DIR``; the grid then was narrowed to the costs shipped before
and widened in ``TOP`` and ``LATEST``.)

Per conversation of two ``cbmemory eval locomo-updates`` runs' ``work`` folders (``<conv>-x1-<family>.db`` and
``<conv>-x10-<family>.db``, the injected turns in them) it reads once (cached in ``--features``): every turn's
stored vector, the own words of each user statement embedded alone, and per question its vector and the turns
the default recipe shows with the stage off. The stage's outcome for any ``DEPTH`` (turns the slot's search
reads), ``EMBEDDED`` (of the user's statements among them, the first looked at), ``TOP`` (of those on the slot,
the nearest kept) and ``LATEST`` (of those, the newest shown) is then computed without a store. The floors and
margins are the module's (chosen at x1 by ``current_cv.py``). With (100, all, all, 5), the stage before this
script, the figures equal the benchmark's (x1 train 0.81 / 0.16; x10 train 0.45 / 0.32).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/scale_cv.py \
        --data ../shared/data/locomo/locomo-dev.json --work x1=RUN1/work --work x10=RUN10/work \
        --features /tmp/ku/scale-features.pkl
"""

import argparse
import collections
import itertools
import pickle
from pathlib import Path

import numpy as np

from cbmemory import AgentMemory, get_recipe
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.models import SearchFilters, conversation_order
from cbmemory.retrieval import current_value as C
from cbmemory.text import people, stated
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate
from cbmemory_eval.updates.run import ranked_turns

GRID = {"depth": (400, 800), "embedded": (100, 200), "top": (8, 10, 12, 15, 20), "latest": (5, 6, 8)}
BEFORE = (100, None, None, 5)  # the stage before: the newest 5 of every statement on the slot among 100 turns
# A --work label ending in ASKS (e.g. x1+ask) is a run with --asks-back; with such labels each scale's objective
# weighs them ASKING and the plain runs 1 - ASKING: LoCoMo dev's own share of turns that ask back after a
# sentence (1,132 of 4,805).
ASKS, ASKING = "+ask", 1132 / 4805


def unit(m):
    m = np.asarray(m, np.float32)
    return m / np.linalg.norm(m, axis=-1, keepdims=True)


def collect(work: Path, label: str, data: str, emb, families: tuple[str, ...] = ("train", "test")) -> dict:
    """Per (family, conversation): what the stage's outcome needs, read once from the run's store (the turns the
    default recipe shows are read with the stage off: the stage's additions are computed offline)."""
    off = get_recipe("default").with_(current_value=False)
    out = {}
    for family in families:
        by = collections.defaultdict(list)
        for c in generate(load_locomo(data), family, seed=0):
            by[c.user_id].append(c)
        for user, cases in by.items():
            mem = AgentMemory.open(work / f"{user}-{label}-{family}.db", embedder=emb)
            recs = sorted(mem.store.list_records(user, SearchFilters(kinds=("turn",))), key=conversation_order)
            vecs = mem.store.lookup_vectors(user, [r.content_hash for r in recs])
            said = [stated(r.text) if r.role == "user" else "" for r in recs]  # what the product's stage reads
            own = [i for i, t in enumerate(said) if t]
            out[(family, user)] = {
                "V": unit(np.stack([vecs[r.content_hash] for r in recs])), "own": own,
                "O": np.asarray(emb.embed([said[i] for i in own]), np.float32),
                "tid": [r.turn_id for r in recs], "people": [people(t) for t in said],
                "cases": [{"variant": c.variant, "q": np.asarray(emb.embed_query(c.question), np.float32),
                           "first_person": C.about_the_user(c.question),
                           "qpeople": people(c.question), "cur": set(c.current_turns), "stale": set(c.stale_turns),
                           "shown": set().union(*ranked_turns(list(mem.recall(
                               c.question, user, today=c.question_date, recipe=off).hits)))} for c in cases]}
            mem.close()
    return out


def by_slot(m, protos):
    names, owner, rows = protos
    s = unit(m) @ rows.T
    return np.stack([s[:, owner == j].max(axis=1) for j in range(len(names))], axis=1)


def outcomes(feats: dict, protos, params) -> list[dict]:
    """Per question: its conversation, family, whether a change, and whether the current / stale turns are shown
    with the stage's additions under ``params`` (depth, embedded, top, latest), and how many turns it added."""
    depth, embedded, top, latest = params
    names, owner, rows = protos
    res = []
    for (family, user), d in feats.items():
        own_slot = d.setdefault("_own_slot", by_slot(d["O"], protos))
        pos = {k: j for j, k in enumerate(d["own"])}
        for c in d["cases"]:
            qs = by_slot(c["q"][None, :], protos)[0]
            added: set[str] = set()
            order = np.argsort(-qs)
            if c.get("first_person", True) and qs[order[0]] >= C.QUESTION_FLOOR \
                    and qs[order[0]] - qs[order[1]] >= C.QUESTION_MARGIN:  # the product's gates (claims_cv.py)
                i = int(order[0])
                ranked = d.setdefault(("_rank", i), np.argsort(-(d["V"] @ unit(rows[owner == i].mean(axis=0)))))
                matter = C.ABOUT_PEOPLE.get(names[i], frozenset())
                found = [pos[k] for k in ranked[:depth].tolist()
                         if k in pos and (matter is None or d["people"][k] - matter <= c["qpeople"])]
                found = found[:embedded] if embedded is not None else found
                s = own_slot[:, i]
                margin = s - np.max(np.delete(own_slot, i, axis=1), axis=1)
                on = [j for j in found if s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN]
                on = sorted(on, key=lambda j: -s[j])[:top] if top is not None else on
                added = {d["tid"][d["own"][j]] for j in sorted(on)[-latest:]}
            shown = c["shown"] | added
            res.append({"user": user, "family": family, "change": c["variant"] != "other",
                        "new": bool(c["cur"] & shown), "stale_only": bool(c["stale"] & shown) and not c["cur"] & shown,
                        "added": len(added - c["shown"])})
    return res


def reach(feats: dict, protos, depths=(100, 400, 800)) -> dict[str, int]:
    """Over the ``train`` changes whose current statement is a user statement: how many the slot's search reaches
    within each depth, by the stored vectors (what the stage searches: the text with its date and the turn it
    answers) and by the statement's own words (its rank among the user's statements)."""
    names, owner, rows = protos
    out: dict[str, int] = collections.Counter()
    for (family, _), d in feats.items():
        if family != "train":
            continue
        pos = {k: j for j, k in enumerate(d["own"])}
        turn = {t: k for k, t in enumerate(d["tid"])}
        for c in d["cases"]:
            cur = [turn[t] for t in c["cur"] if t in turn and turn[t] in pos]
            if c["variant"] == "other" or not cur:
                continue
            i = int(np.argmax(by_slot(c["q"][None, :], protos)[0]))
            probe = unit(rows[owner == i].mean(axis=0))
            stored = int(np.sum(d["V"] @ probe > d["V"][cur[0]] @ probe))
            own = int(np.sum(unit(d["O"]) @ probe > unit(d["O"][pos[cur[0]]]) @ probe))
            out["changes"] += 1
            for n in depths:
                out[f"stored<{n}"] += stored < n
                out[f"own<{n}"] += own < n
    return dict(out)


def summary(rows: list[dict]) -> dict[str, float]:
    ch, other = [r for r in rows if r["change"]], [r for r in rows if not r["change"]]
    return {"new": round(float(np.mean([r["new"] for r in ch])), 3),
            "stale_only": round(float(np.mean([r["stale_only"] for r in ch])), 3),
            "own": round(float(np.mean([r["new"] for r in other])), 3),
            "added": round(float(np.mean([r["added"] for r in rows])), 2)}


def objective(rows: list[dict]) -> float:
    s = summary(rows)
    return s["new"] - s["stale_only"] - 0.01 * s["added"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--work", action="append", required=True, help="LABEL=DIR, e.g. x1=RUN/work (x1 and x10)")
    p.add_argument("--features", required=True, help="cache of what is read from the stores")
    args = p.parse_args()
    path = Path(args.features)
    if path.exists():
        feats = pickle.loads(path.read_bytes())
    else:
        emb = MiniLMEmbedder()
        feats = {label: collect(Path(d), label.split("+")[0], args.data, emb)
                 for label, d in (w.split("=", 1) for w in args.work)}
        path.write_bytes(pickle.dumps(feats))
    emb = MiniLMEmbedder()
    protos = C.prototypes(lambda t: emb.embed_query(t))
    grid = list(itertools.product(*GRID.values()))
    rows = {g: {label: outcomes(f, protos, g) for label, f in feats.items()} for g in grid}

    def part(g, label, family, without=None, only=None):
        return [r for r in rows[g][label] if r["family"] == family and r["user"] != without
                and (only is None or r["user"] == only)]

    for g in grid:
        print(dict(zip(GRID, g, strict=True)), {label: summary(part(g, label, "train")) for label in feats})
    asking = any(label.endswith(ASKS) for label in feats)
    weight = {label: (ASKING if label.endswith(ASKS) else 1 - ASKING) if asking else 1.0 for label in feats}
    users = sorted({r["user"] for r in rows[grid[0]]["x1"]})
    held: dict[str, list[dict]] = {label: [] for label in feats}
    for u in users:
        best = max(grid, key=lambda g: sum(weight[label] * objective(part(g, label, "train", without=u))
                                           for label in feats))
        print(u, "chose", dict(zip(GRID, best, strict=True)))
        for label in feats:
            held[label] += part(best, label, "train", only=u)
    for label in feats:
        print("held-out train", label, summary(held[label]))
    for label, f in feats.items():
        print("reach of the slot search", label, reach(f, protos))
    shipped = (C.DEPTH, C.EMBEDDED, C.TOP, C.LATEST)
    for name, g in (("before", BEFORE), ("shipped", shipped)):
        if g in rows:
            print("test", name, dict(zip(GRID, g, strict=True)), {label: summary(part(g, label, "test")) for label in feats})


if __name__ == "__main__":
    main()
