"""Unit layer: which kind of fact a vector is about (``cbmemory.retrieval.slot_match``): a text's slot by its nearest
description (floor and margin, each slot lifted by another reading), whether a text is clearly on a given slot, each
slot's nearest description in one product, and the descriptions embedded once per model. Stand-in vectors: the model
is not under test."""

import numpy as np

from cbmemory.retrieval.slot_match import by_slot, by_slots, clear_rows, prototypes, slot_of
from cbmemory.retrieval.slots import SLOTS


def protos():
    """Three slots in 4 dimensions: a has two descriptions (axes 0 and 1), b one (axis 2), c one (axis 3)."""
    rows = np.eye(4, dtype=np.float32)
    return ("a", "b", "c"), np.array([0, 0, 1, 2]), rows


def random_protos(rng: np.random.Generator, dim: int = 16):
    """The stage's real slots, each description a random unit vector of ``dim`` dimensions."""
    names = tuple(SLOTS)
    owner = np.array([i for i, n in enumerate(names) for _ in SLOTS[n]])
    rows = rng.standard_normal((len(owner), dim)).astype(np.float32)
    return names, owner, rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_a_slot_is_the_nearest_descriptions_when_near_and_clear_enough():
    p = protos()
    assert slot_of(np.array([0.0, 1.0, 0.2, 0.0]), p, 0.5, 0.1) == "a"  # its second description
    assert slot_of(np.array([0.1, 0.0, 1.0, 0.0]), p, 0.5, 0.1) == "b"
    assert slot_of(np.array([0.7, 0.0, 0.7, 0.0]), p, 0.5, 0.1) is None  # as near to a as to b
    assert slot_of(np.array([0.3, 0.0, 0.0, 0.1]), p, 0.99, 0.0) is None  # near nothing


def test_a_lift_is_added_to_each_slots_cosine_before_floor_and_margin():
    p, vec = protos(), np.array([0.6, 0.0, 0.55, 0.0])  # cosine 0.6 to a, 0.55 to b
    assert slot_of(vec, p, 0.5, 0.0) == "a"
    assert slot_of(vec, p, 0.5, 0.0, np.array([0.0, 0.1, 0.0])) == "b"  # another reading puts b first
    assert slot_of(vec, p, 0.5, 0.05, np.array([0.0, 0.06, 0.0])) is None  # ahead of a, by less than the margin
    assert slot_of(np.array([0.45, 0.0, 0.0, 0.0]), p, 0.5, 0.0, np.array([0.1, 0.0, 0.0])) == "a"  # to the floor


def test_a_vector_is_clearly_on_a_slot_against_every_other_one():
    p = protos()
    best = by_slots(np.array([[0.6, 0.0, 0.8, 0.0]]), p)  # cosine 0.6 to a, 0.8 to b

    def on(slot: str, floor: float, margin: float) -> bool:
        return bool(clear_rows(best, p[0].index(slot), floor, margin)[0])

    assert not on("a", 0.5, 0.0)
    assert on("a", 0.5, -0.25)  # a negative margin: near a, if nearer to b
    assert on("b", 0.5, 0.15) and not on("b", 0.9, 0.0)


def test_the_descriptions_are_embedded_once_per_model():
    """A new user's first question does not embed every description again: the prototypes are kept per model,
    told apart by the model's vector of the first description (a counting stand-in embedder: the vectors are not
    under test)."""
    calls: list[str] = []

    def model(seed: int):
        def embed(text: str) -> np.ndarray:
            calls.append(text)
            rng = np.random.default_rng(abs(hash((seed, text))) % 2**32)
            return rng.standard_normal(8).astype(np.float32)
        return embed

    every = sum(len(d) for d in SLOTS.values())
    first = prototypes(model(1))
    assert len(calls) == 1 + every  # the key, then each description
    calls.clear()
    again = prototypes(model(1))
    assert len(calls) == 1 and again[2] is first[2]  # only the key
    calls.clear()
    other = prototypes(model(2))  # another model: its own vectors
    assert len(calls) == 1 + every and not np.allclose(other[2], first[2])


def test_each_slots_nearest_description_in_one_product_as_a_per_slot_loop_gives_it():
    """``by_slots`` (and ``by_slot``, its one-row case): each slot's nearest description's cosine, for random vectors
    over the stage's real slots (random descriptions); a zero vector is near nothing."""
    rng = np.random.default_rng(7)
    p = random_protos(rng)
    names, owner = p[0], p[1]
    vecs = rng.standard_normal((60, 16)).astype(np.float32)
    vecs[59] = 0
    unit = vecs[:59] / np.linalg.norm(vecs[:59], axis=1, keepdims=True)
    nearest_each = np.stack([(unit @ p[2][owner == j].T).max(axis=1) for j in range(len(names))], axis=1)
    assert np.allclose(by_slots(vecs[:59], p), nearest_each, atol=1e-6)
    assert np.allclose(by_slot(vecs[3], p), nearest_each[3], atol=1e-6)
    assert np.all(by_slots(vecs[59:], p) == 0)
    assert by_slots(np.empty((0, 16), dtype=np.float32), p).shape == (0, len(names))
