"""Which kind of fact a text is about, by its vector (``current_value``'s geometry): each kind's generic descriptions
(``slots.SLOTS``) embedded once per model and process (``prototypes``), a vector's cosine to each kind's nearest
description (``by_slots``), and whether it is clearly on one kind (``slot_of``, ``clear_rows``: at least a floor,
and a margin above every other kind's). Pure functions of vectors; the only state is the cache of prototypes per
model."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .slots import SLOTS

Embed = Callable[[str], np.ndarray]
EmbedMany = Callable[[Sequence[str]], np.ndarray]
# slot names, each description's slot (ascending: a slot's descriptions together, as ``by_slots`` reads them), and
# the descriptions' unit vectors
Protos = tuple[tuple[str, ...], np.ndarray, np.ndarray]


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


_MADE: dict[bytes, Protos] = {}  # prototypes by the embedder's vector of the first description (one per model)
_MADE_MAX = 8


def prototypes(embed: Embed, embed_many: EmbedMany | None = None) -> Protos:
    """The slot names, each description's slot index and the descriptions' unit vectors (rows). Made once per
    embedding model and process: the model is told by its vector of the first description (one embedding per
    call, which the caller's cache answers after the first), so a new user's first question does not embed the
    descriptions again. ``embed_many``: the same query embedder for many texts at once (the descriptions are
    then embedded in one call, not one call each: a hosted model's round trip paid once)."""
    names = tuple(SLOTS)
    first = np.asarray(embed(SLOTS[names[0]][0]), dtype=np.float32)
    key = first.tobytes()
    made = _MADE.get(key)
    if made is None:
        owner = np.array([i for i, n in enumerate(names) for _ in SLOTS[n]])
        texts = [t for n in names for t in SLOTS[n]]
        vecs = embed_many(texts) if embed_many is not None else [embed(t) for t in texts]
        rows = np.stack([unit(np.asarray(v, dtype=np.float32)) for v in vecs])
        made = names, owner, rows
        if len(_MADE) >= _MADE_MAX:
            _MADE.pop(next(iter(_MADE)))
        _MADE[key] = made
    return made


def by_slot(vec: np.ndarray, protos: Protos) -> np.ndarray:
    """Per slot, the cosine of ``vec`` to its nearest description (``by_slots`` of one vector)."""
    return by_slots(np.asarray(vec)[None, :], protos)[0]


def slot_of(vec: np.ndarray, protos: Protos, floor: float, margin: float, lift: np.ndarray | None = None) -> str | None:
    """The slot of a text's vector: its nearest description's, when at least ``floor`` and ``margin`` above
    the nearest description of any other slot; else ``None``. ``lift``: per slot (in ``protos``' order), an amount
    added to its cosine before they are compared (another reading of the same text)."""
    best = by_slot(vec, protos) + (0.0 if lift is None else lift)
    order = np.argsort(-best)
    first = float(best[order[0]])
    second = float(best[order[1]]) if len(order) > 1 else -1.0
    return protos[0][int(order[0])] if first >= floor and first - second >= margin else None


def by_slots(vecs: np.ndarray, protos: Protos) -> np.ndarray:
    """``by_slot`` of each row of ``vecs`` (rows), in one product with the descriptions, each slot's maximum over
    its own run of columns (``prototypes`` lists every slot's descriptions together, in slot order)."""
    names, owner, rows = protos
    m = np.asarray(vecs, dtype=np.float32)
    if not len(m):
        return np.empty((0, len(names)), dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    cos = (m / np.where(norms > 0, norms, 1)) @ rows.T  # a zero vector is near nothing (as ``unit`` leaves it)
    return np.maximum.reduceat(cos, np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]), axis=1)


def clear_rows(best: np.ndarray, i: int, floor: float, margin: float) -> np.ndarray:
    """Per row of ``best`` (rows of per-slot cosines, ``by_slots``), whether slot ``i``'s is at least ``floor`` and
    ``margin`` above every other slot's."""
    return (best[:, i] >= floor) & (best[:, i] - np.delete(best, i, axis=1).max(axis=1) >= margin)


__all__ = ["Embed", "EmbedMany", "Protos", "by_slot", "by_slots", "clear_rows", "prototypes", "slot_of", "unit"]
