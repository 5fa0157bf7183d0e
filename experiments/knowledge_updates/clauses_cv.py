"""Issue 31: a user statement is on the question's matter also when one of its clauses is (a change told in
passing: "The drive was long, but the new flat in Valencia made it worth it").

Offline on ``scale_cv.py``'s features and ``claims_cv.py``'s claims (the stage as it ships: floors, margins, the
claims' bonuses). Each statement of two or more clauses (``clauses``) has every clause embedded alone; a clause is
on the slot by its own floor and margin (``cfloor``, ``cmargin``), and the statement is then on the slot with the
larger of its whole's and that clause's cosine as its score in the ``TOP`` ranking. Leave-one-conversation-out on
``train`` over ``GRID`` (objective, weights and folds as ``scale_cv.py``), then ``test`` once for the choice. The
rule: ``README.md``, "A statement whose clause is on the matter".

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/clauses_cv.py --features FEAT.pkl \
        --texts TEXTS.pkl --work x1=RUN1/work --work x10=RUN10/work --work x1+ask=RUNA1/work --work x10+ask=RUNA10/work
"""

import argparse
import collections
import pickle
import re
from pathlib import Path

import claims_cv as K
import numpy as np
import scale_cv as S

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

SPLIT = re.compile(r"\s*(?:[,;:!?.()\"]|\s[-–—]\s|\b(?:but|and|so|because|which|while|though|although|whereas)\b)"
                   r"\s*", re.I)
MIN_WORDS = 3
OFF = (False, None, None, C.TOP, 0.0)
GRID = [OFF] + [(True, f, m, t, 0.0) for f in (0.45, 0.4, 0.35, 0.3) for m in (0.05, 0, -0.1) for t in (15, 20)]
# the second variant (its rule written after the first's train result): the clause's cosine less δ in the ranking
# (inf: the whole's cosine alone), TOP as shipped
SECOND = [OFF] + [(True, f, m, C.TOP, d) for d in (np.inf, 0.2, 0.1, 0.0) for f in (0.45, 0.4, 0.35, 0.3)
                  for m in (0.05, 0, -0.1)]


def clauses(text: str) -> list[str]:
    """A statement's clauses of ``MIN_WORDS`` words or more, when it has two or more such; else none."""
    parts = [p for p in (q.strip() for q in SPLIT.split(text)) if len(p.split()) >= MIN_WORDS]
    return parts if len(parts) > 1 else []


def clause_features(kin: dict, emb, protos) -> dict:
    """Per label and (family, conversation): every clause's per-slot cosine (rows) and its statement's index."""
    unique = sorted({c for by in kin.values() for k in by.values() for t in k["text"] for c in clauses(t)})
    vec = dict(zip(unique, np.asarray(emb.embed(unique), np.float32), strict=True))
    out: dict = {}
    for label, by in kin.items():
        out[label] = {}
        for key, k in by.items():
            pieces = [(j, c) for j, t in enumerate(k["text"]) for c in clauses(t)]
            m = S.by_slot(np.stack([vec[c] for _, c in pieces]), protos) if pieces else np.zeros((0, len(protos[0])))
            out[label][key] = (m, np.array([j for j, _ in pieces], dtype=int))
    return out


def clause_score(cf, n: int, i: int, floor: float, margin: float) -> np.ndarray:
    """Per statement, its best on-slot clause's cosine to slot ``i`` (-inf: none)."""
    m, owner = cf
    best = np.full(n, -np.inf)
    if len(owner):
        s = m[:, i]
        ok = (s >= floor) & (s - np.max(np.delete(m, i, axis=1), axis=1) >= margin)
        np.maximum.at(best, owner[ok], s[ok])
    return best


def outcomes(d: dict, k: dict, cf, family: str, user: str, protos, params) -> list[dict]:
    """``claims_cv.stage_outcomes`` with the shipped claims setting, and clauses under ``params`` (on, cfloor,
    cmargin, top, δ)."""
    on_, cfloor, cmargin, top, less = params

    def select(i, found, s, margin, claim):
        cs = clause_score(cf, len(s), i, cfloor, cmargin) if on_ else np.full(len(s), -np.inf)
        on = [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]
              or cs[j] > -np.inf]
        on = sorted(on, key=lambda j: -(max(s[j], cs[j] - less) + C.CLAIMED * claim[j] + C.CHANGED * k["change"][j]))
        return sorted(on[:top])[-C.LATEST:]
    return K.stage_outcomes(d, k, family, user, protos, select)


def run(feats: dict, kin: dict, cfs: dict, protos, params, family: str, outcomes=outcomes) -> dict[str, list[dict]]:
    return {label: [r for (fam, user), d in by.items() if fam == family
                    for r in outcomes(d, kin[label][(fam, user)], cfs[label][(fam, user)], fam, user, protos, params)]
            for label, by in feats.items()}


def arguments(doc: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--features", required=True, help="scale_cv.py's cache")
    p.add_argument("--texts", required=True, help="cache of the statements' texts and claims (made when missing)")
    p.add_argument("--work", action="append", default=[], help="LABEL=DIR, the runs the features were read from")
    p.add_argument("--test", action="store_true", help="also run the folds' choice on test (once, by the rule)")
    p.add_argument("--dev", action="store_true", help="choose on train and dev together (the features must hold dev's)")
    return p


def load(args) -> tuple[dict, dict, dict, tuple]:
    """The features, the statements' texts and claims (read from the runs' stores when not cached), the clauses'
    slot scores and the prototypes."""
    feats = pickle.loads(Path(args.features).read_bytes())
    cache = Path(args.texts)
    if not cache.exists():
        work = {label: Path(d) for label, d in (w.split("=", 1) for w in args.work)}
        cache.write_bytes(pickle.dumps(K.texts(feats, work)))
    kin = pickle.loads(cache.read_bytes())
    emb = MiniLMEmbedder()
    protos = C.prototypes(lambda t: emb.embed_query(t))
    return feats, kin, clause_features(kin, emb, protos), protos


def cross_validate(feats: dict, kin: dict, cfs: dict, protos, grid: list, off, tie, test: bool, outcomes=outcomes,
                   families: tuple[str, ...] = ("train",)):
    """Leave one conversation out on ``families`` (``train``, or ``train`` and ``dev`` together: a fold holds out
    one conversation in both) over ``grid`` (objective and weights as ``scale_cv.py``; among equal objectives the
    largest ``tie(g)``), printing every setting, each fold's choice and the held-out figures; with ``test``, the
    setting most folds chose and ``off`` on ``test``."""
    rows: dict = {}
    for g in grid:
        by_family = [run(feats, kin, cfs, protos, g, family, outcomes) for family in families]
        rows[g] = {label: [r for rs in by_family for r in rs[label]] for label in feats}
    weight = {label: S.ASKING if label.endswith(S.ASKS) else 1 - S.ASKING for label in feats}

    def part(g, label, without=None, only=None, family=None):
        return [r for r in rows[g][label] if r["user"] != without and (only is None or r["user"] == only)
                and (family is None or r["family"] == family)]

    for g in grid:
        print(g, {f"{family}@{label}": S.summary(part(g, label, family=family)) for family in families
                  for label in feats}, flush=True)
    users = sorted({r["user"] for r in rows[grid[0]]["x1"]})
    held: dict[str, list[dict]] = {label: [] for label in feats}
    chosen: collections.Counter = collections.Counter()
    for u in users:
        best = max(grid, key=lambda g: (round(sum(weight[label] * S.objective(part(g, label, without=u))
                                                  for label in feats), 6), *tie(g)))
        print(u, "chose", best)
        chosen[best] += 1
        for label in feats:
            held[label] += part(best, label, only=u)
    for family in families:
        for label in feats:
            mine = [r for r in held[label] if r["family"] == family]
            print(f"held-out {family}", label, S.summary(mine), "off:", S.summary(part(off, label, family=family)))
    print("folds", chosen.most_common())
    if test:
        choice = chosen.most_common(1)[0][0]
        for name, g in (("off", off), ("chosen", choice)):
            print("test", name, g, {label: S.summary(r)
                                    for label, r in run(feats, kin, cfs, protos, g, "test", outcomes).items()})


def main() -> None:
    p = arguments(__doc__)
    p.add_argument("--second", action="store_true", help="the second variant's grid (SECOND)")
    args = p.parse_args()
    feats, kin, cfs, protos = load(args)
    # a tie: off first, then the larger δ, the higher floor and margin, the smaller TOP
    cross_validate(feats, kin, cfs, protos, SECOND if args.second else GRID, OFF,
                   lambda g: (g == OFF, g[4], g[1] or 0, g[2] or 0, -g[3]), args.test)


if __name__ == "__main__":
    main()
