"""A learned reading of which kind of personal fact a statement tells (the slot head), for the current-value stage.

The stage finds a statement's kind by its nearest hand-written description (``cbmemory.retrieval.slots``); a change
told in other words ("the guidebook for Iceland is already full of sticky notes") is near none. The head is a softmax
over the kinds and "none" on the offline MiniLM's unit vector of what a statement states, trained on sentences a local
LLM wrote for each kind (plainly, indirectly, in passing), on clues written by hand (a value told only by what goes
with it: "Got my first payslip from Halcyon Insurance today") and on everyday chat the LLM wrote as "none", with the
kinds' descriptions (``experiments/knowledge_updates/head``: the sentences, the prompts and ``train.py --clues``,
which writes ``cbmemory/data/slot_head.npz``). It reads MiniLM's vectors only: a memory with another embedding model
has no head (``matching``), and the stage reads as before. Its direction for a kind (``SlotHead.direction``) is also
the query of the stage's second search for the user's statements of that kind.

The question head (``QUESTION_FILE``, the same format) reads a question's kind the same way, trained on questions
(``experiments/knowledge_updates/question_head.py``: question sets written by hand, first-person questions about no
such fact as "none", and the descriptions): a question is worded otherwise than the statements the slot head learned.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from .slots import SLOTS

HEAD_FILE = "slot_head.npz"
QUESTION_FILE = "question_head.npz"
SAME_MODEL = 0.999  # least cosine of a model's vector of the first description to the head's: the same model


@dataclass(frozen=True, eq=False)
class SlotHead:
    """``names``: the kinds, in ``SLOTS`` order; ``weights`` (dimension × kinds + 1) and ``bias`` (kinds + 1, the last
    "none"); ``probe``: the trained-on model's unit vector of the first kind's first description."""

    names: tuple[str, ...]
    weights: np.ndarray
    bias: np.ndarray
    probe: np.ndarray

    def probabilities(self, vecs: np.ndarray) -> np.ndarray:
        """Per row of ``vecs`` (statements' vectors), the probability of each kind (columns in ``names`` order; the
        "none" column left out, so a row sums to at most 1)."""
        m = np.asarray(vecs, dtype=np.float32)
        if not len(m):
            return np.empty((0, len(self.names)), dtype=np.float32)
        norms = np.linalg.norm(m, axis=1, keepdims=True)
        z = (m / np.where(norms > 0, norms, 1)) @ self.weights + self.bias
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return (p / p.sum(axis=1, keepdims=True))[:, :-1]

    def most_probable(self, vec: np.ndarray, floor: float) -> str | None:
        """The kind ``vec`` (one vector) is read as: the most probable, when at least as probable as "none" and at
        least ``floor``; else ``None``."""
        p = self.probabilities(np.asarray(vec)[None, :])[0]
        i = int(np.argmax(p))
        return self.names[i] if p[i] >= floor and p[i] >= 1.0 - float(p.sum()) else None

    def direction(self, kind: str) -> np.ndarray:
        """The unit vector along which the head's odds of ``kind`` over "none" grow (its weight column less the "none"
        column): a vector search's query for the statements the head would read as of ``kind``."""
        v = self.weights[:, self.names.index(kind)] - self.weights[:, -1]
        return v / max(float(np.linalg.norm(v)), 1e-12)


def load(file: str = HEAD_FILE) -> SlotHead:
    """A shipped head (``HEAD_FILE`` or ``QUESTION_FILE``; each read once per process). Raises ``ValueError`` when it
    was trained for other kinds than ``SLOTS`` holds (retrain it with ``experiments/knowledge_updates/head/train.py``
    or ``question_head.py`` after changing the kinds)."""
    return _load(file)


@lru_cache(maxsize=2)
def _load(file: str) -> SlotHead:
    with (resources.files("cbmemory") / "data" / file).open("rb") as f, np.load(f) as data:
        head = SlotHead(tuple(str(n) for n in data["names"]), data["weights"].astype(np.float32),
                        data["bias"].astype(np.float32), data["probe"].astype(np.float32))
    if head.names != tuple(SLOTS):
        raise ValueError(f"{file} was trained for other kinds of fact than retrieval.slots.SLOTS; retrain it")
    return head


def matching(first: np.ndarray, file: str = HEAD_FILE) -> SlotHead | None:
    """The head in ``file`` when ``first`` (a unit vector of the first kind's first description,
    ``slot_match.prototypes``' first row) is the trained-on model's (its dimension, and cosine at least
    ``SAME_MODEL``); else ``None``. A head that cannot be read (a damaged install, kinds changed without training it
    again) is none, with a warning: the stage then reads as without it, and the question is still answered."""
    try:
        head = load(file)
    except (OSError, ValueError, KeyError) as e:
        warnings.warn(f"cbmemory: the {'question' if file == QUESTION_FILE else 'slot'} head is not used ({e})",
                      RuntimeWarning, stacklevel=2)
        return None
    v = np.asarray(first, dtype=np.float32)
    if v.shape != head.probe.shape:
        return None
    return head if float(v @ head.probe) >= SAME_MODEL else None
