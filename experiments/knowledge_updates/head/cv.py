"""The slot head's setting chosen by leave-one-conversation-out on the `train` and `dev` phrasings together
(README.md, "A slot head distilled from a local LLM's sentences"): the stage's choice replayed from ``features.py``'s
records with the head's floor τ and weight β (off included), objective newest shown − stale only − 0.01 × lines the
stage adds, summed over both families at ×1 and ×10; a tie to off, then the higher τ, the smaller β.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/cv.py FEATURES_DIR [llm|locomo] [first|edge]

``FEATURES_DIR`` holds ``feat2-{train,dev}-{x1,x10}.pkl``. ``llm``: the head as ``train.py`` makes it (the everyday
chat as "none"); ``locomo``: LoCoMo's plain user turns as "none" instead (a look only: nothing made from LoCoMo's
text may ship), read from ``FEATURES_DIR/negs.pkl`` ({conversation: (texts, vectors)}). With the head off the replay
gives the product's figures exactly (checked on all four records). ``edge``: the grid past the first one's edge
(``EDGE``), a tie to the shipped setting.
"""

from __future__ import annotations

import json
import pickle
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from train import fit, training_set

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.slot_head import SlotHead
from cbmemory.retrieval.slots import SLOTS

GRID = [(9.0, 0.0)] + [(t, b) for t in (0.7, 0.5, 0.3, 0.2) for b in (0.0, 0.1, 0.2)]
OFF = GRID[0]
# the stage's selection when the records were made and these experiments ran (``current_value``'s TOP and LATEST
# until 9efec7d, which select_cv.py re-chose): the replays keep it, so their figures stay as the README gives them
TOP, LATEST = 15, 8
# past the first grid's edge (τ 0.2 was its lowest): the shipped setting first, so a tie keeps it
EDGE = [(0.2, 0.2)] + [(t, b) for t in (0.2, 0.15, 0.1, 0.05) for b in (0.1, 0.2, 0.3) if (t, b) != (0.2, 0.2)]


def records(where: str, prefix: str = "feat") -> dict[tuple[str, str], tuple[list, dict]]:
    """``features.py``'s records in ``where`` (``{prefix}-{family}-{scale}.pkl``), by (family, scale): `train` and `dev`,
    ×1 and ×10."""
    out = {}
    for family in ("train", "dev"):
        for scale in ("x1", "x10"):
            with open(f"{where}/{prefix}-{family}-{scale}.pkl", "rb") as fh:
                out[family, scale] = pickle.load(fh)
    return out


def conversations(feats: list) -> list[str]:
    """The conversations of the records' questions, sorted."""
    return sorted({f["case_id"].split(":")[0] for f in feats})


def ids(f: dict) -> tuple[str, str]:
    """The turn ids of a question's current and stale statements (the benchmark's injections)."""
    kind, variant = f["case_id"].split(":")[1], f["var"]
    if variant == "other":
        return f"upd|{kind}|old|0", f"upd|{kind}|other|0"
    if variant == "revert":
        return f"upd|{kind}|back|0", f"upd|{kind}|new|0"
    return f"upd|{kind}|new|0", f"upd|{kind}|old|0"


class Replay:
    """The stage's ranking of one family's questions, its scores by the rules computed once."""

    def __init__(self, feats, vec, protos, head):
        self.feats, self.protos, self.head, self.ranked = feats, protos, head, {}
        for n, f in enumerate(feats):
            if not f["pool"]:
                continue
            saids = [s for _, s, _ in f["pool"]]
            v = np.stack([vec[s] for s in saids])
            i = protos[0].index(f["slot"])
            rules = _rules(v, saids, protos, f["slot"])
            p = head(v)[:, i] if head is not None else np.zeros(len(saids))
            self.ranked[n] = (rules, C.by_slots(v, protos)[:, i], p)

    def scored(self, n: int, tau: float, beta: float) -> list[tuple[str, int, float]]:
        """The statements the stage ranks for question ``n`` with the head at floor ``tau`` and weight ``beta``: turn id,
        place in the conversation, score; best first."""
        if n not in self.ranked:
            return []
        rules, cos, p = self.ranked[n]
        scored = []
        for (tid, _, place), r, c, pp in zip(self.feats[n]["pool"], rules, cos, p, strict=True):
            if r is not None:
                scored.append((tid, place, r + beta * pp))
            elif pp >= tau:
                scored.append((tid, place, c + beta * pp))
        return sorted(scored, key=lambda x: -x[2])

    def pick(self, n: int, tau: float, beta: float, top: int = TOP, latest: int = LATEST) -> list[str]:
        """The turn ids the stage's ranking picks for question ``n`` with the head at floor ``tau`` and weight ``beta``:
        the newest ``latest`` of the ``top`` nearest the slot."""
        kept = self.scored(n, tau, beta)[:top]
        return [t for t, _, _ in sorted(kept, key=lambda x: x[1])][-latest:]

    def outcome(self, tau: float, beta: float, convs: set[str]) -> tuple[int, int, int, int, int, float]:
        """Newest shown, stale only, change questions, own value shown, other questions, lines added a question."""
        return outcome(self.feats, lambda n: self.pick(n, *OFF), lambda n: self.pick(n, tau, beta), convs)


def outcome(feats, shipped: Callable[[int], list[str]], pick: Callable[[int], list[str]],
            convs: set[str]) -> tuple[int, int, int, int, int, float]:
    """Newest shown, stale only, change questions, own value shown, other questions and lines added a question, of
    ``convs``' questions, when the stage's ranking picks ``pick(n)`` for question ``n``: the lines the product added
    besides its ranking (told in passing, named again) are those of the records' runs less ``shipped(n)``, the
    ranking's picks in those runs."""
    new_n = stale_n = changes = own = others = lines = 0
    for n, f in enumerate(feats):
        if f["case_id"].split(":")[0] not in convs:
            continue
        cur, stale = ids(f)
        stage = set(f["stage"])
        chosen = set(pick(n)) | (stage - set(shipped(n)))
        new = (f["new_shown"] and cur not in stage) or cur in chosen
        old = (f["stale_shown"] and stale not in stage) or stale in chosen
        lines += len(chosen)
        if f["is_change"]:
            changes, new_n, stale_n = changes + 1, new_n + new, stale_n + (old and not new)
        else:
            others, own = others + 1, own + new
    return new_n, stale_n, changes, own, others, lines / max(1, changes + others)


def run_counts(path: str, lines: bool = True) -> dict[str, tuple[int, int, int, int, int, float]]:
    """Per conversation of a product run's questions (``eval locomo-updates --keep-text``'s ``cases-*.jsonl`` at
    ``path``), as ``outcome`` gives them: newest shown, stale only, changes, own value shown, other questions, and
    the lines of context a question (0 with ``lines`` off: ``objective`` is then newest shown − stale only)."""
    rows: dict[str, list[dict]] = {}
    for line in open(path):
        r = json.loads(line)
        rows.setdefault(r["user_id"], []).append(r)
    out = {}
    for conv, rs in rows.items():
        ch, ot = [r for r in rs if r["is_change"]], [r for r in rs if not r["is_change"]]
        shown = sum(r["text"].count("\n") + 1 for r in rs) / len(rs) if lines else 0.0
        out[conv] = (sum(r["new_shown"] for r in ch), sum(r["stale_only"] for r in ch), len(ch),
                     sum(r["new_shown"] for r in ot), len(ot), shown)
    return out


RECORDS = [(f, s) for f in ("train", "dev") for s in ("x1", "x10")]  # the records the folds sum over


def grid_counts(settings: list, path: Callable[[Any, str, str], str]) -> tuple[dict, list[str]]:
    """``run_counts`` of each setting's product run on each of ``RECORDS`` (``path(setting, family, scale)``: its
    ``cases-*.jsonl``), as ``choose`` reads them, and the conversations."""
    got = {}
    for g in settings:
        for f, s in RECORDS:
            for conv, row in run_counts(path(g, f, s)).items():
                got[g, (f, s), conv] = row
    return got, sorted({c for _, _, c in got})


def objective(got: dict, keys, g, among: list[str]) -> float:
    """The rule's objective of setting ``g`` on the conversations ``among``, summed over the records ``keys`` (family,
    scale): newest shown − stale only over the changes, less 0.01 × lines added a question (``got``: ``choose``'s)."""
    total = 0.0
    for k in keys:
        rows = [got[g, k, c] for c in among]
        asked = sum(r[2] + r[4] for r in rows)
        total += sum(r[0] - r[1] for r in rows) / sum(r[2] for r in rows)
        total -= 0.01 * sum(r[5] * (r[2] + r[4]) for r in rows) / asked
    return total


def choose(got: dict, keys, convs: list[str], settings: list, prefer: Callable[[tuple], tuple]) -> None:
    """Leave one conversation out: per fold the setting of best ``objective`` on the others (a tie by ``prefer``),
    scored on the one held out; prints the folds' choices, the held-out sums and every setting over all folds.
    ``got[g, k, c]``: ``outcome`` of setting ``g`` on records ``k``, conversation ``c``."""
    held = {k: [0, 0, 0] for k in keys}
    chosen = []
    for c in convs:
        rest = [x for x in convs if x != c]
        best = max(settings, key=lambda g: (round(objective(got, keys, g, rest), 9), *prefer(g)))
        chosen.append(best)
        for k in keys:
            r = got[best, k, c]
            held[k] = [held[k][0] + r[0], held[k][1] + r[1], held[k][2] + r[3]]
    print("folds chose:", chosen)
    print("held out (newest shown, stale only, own value):", held)
    for g in settings:
        print(g, {f"{k[0]} {k[1]}": tuple(sum(got[g, k, c][i] for c in convs) for i in (0, 1, 3)) for k in keys},
              round(objective(got, keys, g, convs), 4))


def first_head(emb: MiniLMEmbedder) -> Callable[[np.ndarray], np.ndarray]:
    """The head shipped from 4 December until the clues were added (b513a09), as the records' runs read it:
    ``train.py`` on the first batch of sentences, in the product's float32 arithmetic (``SlotHead``; equal to the file
    it wrote then). The replays of those records read this one, so their figures stay as the README gives them."""
    names = tuple(SLOTS)
    x, y, weights = training_set(emb)
    w, b = fit(x, y, len(names) + 1, weights)
    return SlotHead(names, w.astype(np.float32), b.astype(np.float32), np.zeros(1, np.float32)).probabilities


def first_head_replays(where: str) -> tuple[dict[tuple[str, str], Replay], list[str]]:
    """The replays of the records in ``where`` (``records``) with ``first_head``, and their conversations."""
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query, emb.embed_queries)
    head = first_head(emb)
    replays = {k: Replay(feats, vec, protos, head) for k, (feats, vec) in records(where).items()}
    return replays, conversations(replays["train", "x1"].feats)


def softmax(w: np.ndarray, b: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """A head's probabilities per kind ("none" left out) from ``train.fit``'s weights, in float64 (``SlotHead``'s
    arithmetic, unrounded)."""

    def probabilities(v: np.ndarray) -> np.ndarray:
        m = np.asarray(v, dtype=np.float64)
        z = (m / np.linalg.norm(m, axis=1, keepdims=True)) @ w + b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        return (p / p.sum(axis=1, keepdims=True))[:, :-1]

    return probabilities


def _rules(v, saids, protos, slot):
    """``statement_scores`` as it was before the head (the claim and change marks, the floor and margin)."""
    floor, weight = C.HEAD_FLOOR, C.HEAD_WEIGHT
    C.HEAD_FLOOR, C.HEAD_WEIGHT = 9.0, 0.0
    try:
        return C.statement_scores(v, saids, protos, slot)
    finally:
        C.HEAD_FLOOR, C.HEAD_WEIGHT = floor, weight


def main(where: str, negatives: str = "llm", grid: str = "first") -> None:
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query, emb.embed_queries)
    if negatives == "llm":
        x, y, weights = training_set(emb)
    else:  # LoCoMo's plain user turns as "none": the kinds' side as training_set gives it
        said, kinds, _ = training_set(emb)
        said, kinds = said[kinds < len(protos[0])], kinds[kinds < len(protos[0])]
        with open(f"{where}/negs.pkl", "rb") as fh:
            none = np.concatenate([v for _, v in pickle.load(fh).values()])
        x, y = np.concatenate([said, none]), np.concatenate([kinds, np.full(len(none), len(protos[0]))])
        weights = np.concatenate([np.ones(len(said)), np.full(len(none), len(said) / len(none))])
    head = softmax(*fit(x, y, len(protos[0]) + 1, weights))

    replays = {k: Replay(feats, vec, protos, head) for k, (feats, vec) in records(where, "feat2").items()}
    convs = conversations(replays["train", "x1"].feats)
    settings = GRID if grid == "first" else EDGE
    first = settings[0]
    got = {(g, k, c): r.outcome(*g, {c}) for g in settings for k, r in replays.items() for c in convs}
    choose(got, list(replays), convs, settings, lambda g: (g == first, g[0], -g[1]))


if __name__ == "__main__":
    main(*sys.argv[1:4])
