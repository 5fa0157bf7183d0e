"""Issue 31: the read-time current-value stage (cbmemory.retrieval.current_value), its constants chosen by
leave-one-conversation-out CV on the ``train`` family, then scored on ``test``.

Per case it records, once: the default recipe's hits (turn ids shown), the question's slot scores, and the
user statements the slot's search finds with their own slot scores; the stage's outcome for any constants
is then computed offline (the question's slot and each statement's are the nearest description's, kept or
not by floor and margin: the search itself does not depend on the constants).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/current_cv.py \
        --data ../shared/data/locomo/locomo-dev.json --cache-dir /tmp/h31q/stores --out /tmp/h31q/cv
"""

import argparse
import itertools
import json
import shutil
from pathlib import Path

import numpy as np

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.models import SearchFilters, conversation_order
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.statements import own
from cbmemory.store.signals import Signal
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.scale import scaled_haystacks
from cbmemory_eval.updates.generate import appended, generate
from cbmemory_eval.updates.run import _units, base_store, ranked_turns


def scores(vec, protos):
    names, owner, rows = protos
    sims = rows @ C.unit(np.asarray(vec, np.float32))
    best = np.full(len(names), -1.0)
    np.maximum.at(best, owner, sims)
    o = np.argsort(-best)
    return names[int(o[0])], float(best[o[0]]), float(best[o[1]])


def slot_scores(vec, protos, slot):
    """(the score of ``slot``, the best score of any other slot)."""
    names, owner, rows = protos
    sims = rows @ C.unit(np.asarray(vec, np.float32))
    best = np.full(len(names), -1.0)
    np.maximum.at(best, owner, sims)
    i = names.index(slot)
    return float(best[i]), float(np.max(np.delete(best, i)))


def features(mem, user, case, protos):
    rec = mem.recall(case.question, user, today=case.question_date)
    shown = [sorted(s) for s in ranked_turns(list(rec.hits))]
    embed = lambda t: mem.embedder.embed_query(t, user_id=user)  # noqa: E731
    slot, best, second = scores(embed(case.question), protos)
    names, owner, rows = protos
    probe = C.unit(rows[owner == names.index(slot)].mean(axis=0))
    f = SearchFilters(kinds=("turn",), occurred_before=case.question_date.replace(hour=23, minute=59))
    found = mem.store.search(Signal.VECTOR, user, probe, 100, f)
    asked = C.people(case.question)
    own = [(i, h.record) for i, h in enumerate(found) if own(h.record, asked)]
    cands = []
    for rank, r in sorted(own, key=lambda x: conversation_order(x[1])):
        b, sec = slot_scores(embed(r.text), protos, slot)
        cands.append({"turns": sorted(_units(r)), "best": b, "second": sec, "rank": rank,
                      "order": [r.occurred_at.isoformat(), r.session_id, r.position]})
    shown_own = []
    for r in {r.record_id: r for h in rec.hits for r in (h.record, *h.context) if own(r, asked)}.values():
        b, sec = slot_scores(embed(r.text), protos, slot)
        shown_own.append({"turns": sorted(_units(r)), "best": b, "second": sec,
                          "order": [r.occurred_at.isoformat(), r.session_id, r.position]})
    return {"shown_own": shown_own, "case_id": case.case_id, "user": user, "variant": case.variant, "is_change": case.is_change,
            "current": list(case.current_turns), "stale": list(case.stale_turns), "shown": shown,
            "q_slot": slot, "q_best": best, "q_second": second, "cands": cands}


def collect(args):
    convs = load_locomo(args.data)
    hs = scaled_haystacks(convs, 1, others=convs, seed=0)
    emb = MiniLMEmbedder()
    out = []
    for fam in ("train", "test"):
        cases = generate(convs, fam, seed=0)
        plan = appended(cases)
        for user in hs:
            base = base_store(hs[user], Path(args.cache_dir), label="x1", embedder=emb,
                              memory_options={"recipe": "default"})
            path = Path(args.out) / f"{user}-{fam}.db"
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(base, path)
            dates = {s.session_id: s.date for s in hs[user].sessions}
            mem = AgentMemory.open(path, embedder=emb, recipe="default")
            try:
                for sid, msgs in sorted(plan[user], key=lambda p: (dates[p[0]], p[0])):
                    mem.add_messages(user, sid, msgs, date=dates[sid])
                protos = C.prototypes(lambda t, m=mem, u=user: m.embedder.embed_query(t, user_id=u))
                for c in cases:
                    if c.user_id == user:
                        out.append({"family": fam, **features(mem, user, c, protos)})
            finally:
                mem.close()
            path.unlink()
            print(fam, user, len(out), flush=True)
    return out


def outcome(row, qf, qm, sf, sm, latest, depth):
    """new_shown, stale_only, turns added, marked (None: no stale turn shown) with these constants."""
    shown = {t for s in row["shown"] for t in s}
    added, marked_ids = [], set()
    if row["q_best"] >= qf and row["q_best"] - row["q_second"] >= qm:
        def ok(c):
            return c["best"] >= sf and c["best"] - c["second"] >= sm
        same = [c for c in row["cands"] if c["rank"] < depth and ok(c)]
        if same:
            last = same[-latest:]
            added = [t for c in last for t in c["turns"] if t not in shown]
            pool = {tuple(c["turns"]): c for c in same + [c for c in row["shown_own"] if ok(c)]}
            first = min(tuple(c["order"]) for c in last)
            marked_ids = {t for c in pool.values() if tuple(c["order"]) < first and c["order"][0] < first[0]
                          for t in c["turns"] if t in shown}
    allshown = shown | set(added)
    cur, old = set(row["current"]), set(row["stale"])
    new = bool(cur & allshown)
    marked = None if not old & allshown else (old & allshown <= marked_ids and not cur & marked_ids)
    return new, bool(old & allshown) and not new, len(added), marked


GRID = list(itertools.product((0.4, 0.5, 0.6), (0.0,), (0.2, 0.25, 0.3, 0.35), (-0.2, -0.15, -0.1, -0.05, 0.0),
                              (2, 3, 4, 5), (20, 40, 100)))


def score(rows, p):
    ch = [outcome(r, *p) for r in rows if r["is_change"]]
    no = [outcome(r, *p) for r in rows if not r["is_change"]]
    n = len(ch)
    ns, so = sum(x[0] for x in ch) / n, sum(x[1] for x in ch) / n
    added = sum(x[2] for x in ch + no) / (len(ch) + len(no))
    mk = [x[3] for x in ch if x[3] is not None]
    return (ns - so - 0.01 * added, ns, so, added, sum(x[0] for x in no) / max(1, len(no)),
            sum(mk) / max(1, len(mk)))


def key(rows, p):  # best objective; ties: fewer statements shown, a shallower search
    return (round(score(rows, p)[0], 6), -p[4], -p[5], p[0], p[2])


def cv(rows):
    train = [r for r in rows if r["family"] == "train"]
    users = sorted({r["user"] for r in train})
    picks, held = [], []
    for u in users:
        fit = [r for r in train if r["user"] != u]
        best = max(GRID, key=lambda p: key(fit, p))
        picks.append(best)
        held += [(r, best) for r in train if r["user"] == u]
    ch = [outcome(r, *p) for r, p in held if r["is_change"]]
    print("LOCO picks (qfloor, qmargin, sfloor, smargin, latest, depth):", picks)
    print(f"LOCO held-out train: new_shown {sum(x[0] for x in ch) / len(ch):.3f} "
          f"stale_only {sum(x[1] for x in ch) / len(ch):.3f}")
    return max(GRID, key=lambda p: key(train, p))


def line(tag, sc):
    return f"{tag}: obj {sc[0]:.3f} new_shown {sc[1]:.3f} stale_only {sc[2]:.3f} added {sc[3]:.2f} own {sc[4]:.3f} marked {sc[5]:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    feat = Path(args.out) / "features.jsonl"
    if feat.exists():
        rows = [json.loads(x) for x in feat.read_text().splitlines()]
    else:
        rows = collect(args)
        feat.write_text("".join(json.dumps(r) + "\n" for r in rows))
    off = (9, 0, 9, 0, 1, 1)
    for fam in ("train", "test"):
        print(line(f"{fam} stage off", score([r for r in rows if r["family"] == fam], off)))
    final = cv(rows)
    print("chosen on all train (the constants shipped):", final)
    for fam in ("train", "test"):
        print(line(f"{fam} stage on", score([r for r in rows if r["family"] == fam], final)))


if __name__ == "__main__":
    main()
