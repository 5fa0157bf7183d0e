"""Trains the slot head the stage reads (``cbmemory/data/slot_head.npz``, ``cbmemory.retrieval.slot_head``) from the
local LLM's sentences (``head_data.py``: ``kinds.jsonl``, each kind's sentences, and ``everyday.jsonl``, "none") and
the kinds' own descriptions (``retrieval.slots.SLOTS``), embedded by the offline MiniLM: a softmax over the kinds
and "none" on the sentences' unit vectors, the two sides weighted alike, full-batch gradient descent (500 steps of
20, L2 1e-4). Deterministic for the same files and model.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/train.py shared/cbmemory/data/slot_head.npz [--mixed|--two-batches|--clues|--clues2|--clues3]

``--mixed``: also trained on mixed messages; ``--two-batches``: on both batches of sentences (``training_set``);
``--clues``: on the first batch and the clues written by hand (``clues.jsonl``); ``--clues2``: and the second batch
of clues (``clues2.jsonl``); ``--clues3``: the first batch, the first clues and a third batch written by helper
agents blind to every family (``clues3.jsonl``), against the everyday chat and everyday talk near the kinds
(``everyday3.jsonl``).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval.slots import SLOTS

HERE = Path(__file__).parent


def unit(m: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(n > 0, n, 1)


def fit(x: np.ndarray, y: np.ndarray, classes: int, weights: np.ndarray, *, l2: float = 1e-4, steps: int = 500,
        rate: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    x = unit(np.asarray(x, dtype=np.float64))
    w_, b = np.zeros((x.shape[1], classes)), np.zeros(classes)
    target = np.eye(classes)[y]
    share = weights / weights.sum()
    for _ in range(steps):
        z = x @ w_ + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - target) * share[:, None]
        w_ -= rate * (x.T @ g + l2 * w_)
        b -= rate * g.sum(axis=0)
    return w_, b


BATCHES = (("kinds.jsonl",), ("everyday.jsonl",))  # the first batch (head_data.py kinds, everyday)
TWO_BATCHES = (("kinds.jsonl", "kinds2.jsonl"), ("everyday.jsonl", "everyday2.jsonl"))  # and the second
CLUES = (("kinds.jsonl", "clues.jsonl"), ("everyday.jsonl",))  # the first batch and the clues written by hand
CLUES2 = (("kinds.jsonl", "clues.jsonl", "clues2.jsonl"), ("everyday.jsonl",))  # and the second batch of clues
# the first batch, the first clues and a third batch written blind to every family, with everyday talk near the kinds
CLUES3 = (("kinds.jsonl", "clues.jsonl", "clues3.jsonl"), ("everyday.jsonl", "everyday3.jsonl"))


def _read(files: tuple[str, ...]) -> list[dict]:
    return [json.loads(line) for f in files for line in (HERE / f).read_text().splitlines()]


def training_set(emb: MiniLMEmbedder, mixed: bool = False,
                 batches: tuple[tuple[str, ...], tuple[str, ...]] = BATCHES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sentences' vectors, their labels (a kind's index in ``SLOTS`` order; "none" the last) and weights (the kinds'
    side and the "none" side weighted alike). ``mixed``: also each kind sentence joined to an everyday message, once in
    each order, as the kind, and as many pairs of everyday messages as "none" (README.md, "The slot head trained on
    mixed messages too"; drawn with ``random.Random(0)``). ``batches``: the files of the kinds' sentences and of the
    everyday chat (``BATCHES``, ``TWO_BATCHES``)."""
    names = tuple(SLOTS)
    made = _read(batches[0])
    said = [d for s in names for d in SLOTS[s]] + [m["text"] for m in made]
    kind = [names.index(s) for s in names for _ in SLOTS[s]] + [names.index(m["slot"]) for m in made]
    none = [m["text"] for m in _read(batches[1])]
    if mixed:
        rng = random.Random(0)
        pairs = [(m["text"], names.index(m["slot"])) for m in made]
        joined = [(f"{rng.choice(none)} {t}", k) for t, k in pairs] + [(f"{t} {rng.choice(none)}", k) for t, k in pairs]
        said += [t for t, _ in joined]
        kind += [k for _, k in joined]
        none = none + [f"{a} {b}" for a, b in (rng.sample(none, 2) for _ in joined)]
    x = np.concatenate([emb.embed(said), emb.embed(none)])
    y = np.array(kind + [len(names)] * len(none))
    weights = np.concatenate([np.ones(len(said)), np.full(len(none), len(said) / len(none))])
    return x, y, weights


def main(out: str, variant: str = "") -> None:
    names = tuple(SLOTS)
    emb = MiniLMEmbedder()
    batches = {"--two-batches": TWO_BATCHES, "--clues": CLUES, "--clues2": CLUES2, "--clues3": CLUES3}.get(variant, BATCHES)
    x, y, weights = training_set(emb, mixed=variant == "--mixed", batches=batches)
    w_, b = fit(x, y, len(names) + 1, weights)
    probe = unit(np.asarray(emb.embed_query(SLOTS[names[0]][0]), dtype=np.float64)[None, :])[0]
    np.savez(out, weights=w_.astype(np.float32), bias=b.astype(np.float32), names=np.array(names),
             probe=probe.astype(np.float32))


if __name__ == "__main__":
    main(*sys.argv[1:3])
