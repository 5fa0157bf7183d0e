"""Unit layer: the slot head the current-value stage reads (``cbmemory.retrieval.slot_head``): the shipped file is for
the stage's kinds of fact, its probabilities are per kind with "none" left out, and it answers only to vectors of the
model it was trained on (no model here: the file's own vectors and random ones)."""

import numpy as np
import pytest

from cbmemory.retrieval import slot_head
from cbmemory.retrieval.slots import SLOTS


def test_the_shipped_head_is_for_the_stages_kinds_of_fact():
    head = slot_head.load()
    assert head.names == tuple(SLOTS)  # a change of the kinds needs the head trained again (head/train.py)
    assert head.weights.shape == (head.probe.shape[0], len(SLOTS) + 1)
    assert head.bias.shape == (len(SLOTS) + 1,)
    assert abs(float(np.linalg.norm(head.probe)) - 1.0) < 1e-4
    assert slot_head.load() is head  # read once


def test_its_probabilities_are_per_kind_with_none_left_out():
    head = slot_head.load()
    vecs = np.random.default_rng(0).normal(size=(5, head.probe.shape[0])).astype(np.float32)
    vecs[0] = 0.0  # a zero vector is read, not divided by zero
    p = head.probabilities(vecs)
    assert p.shape == (5, len(SLOTS))
    assert np.isfinite(p).all() and (p >= 0).all()
    assert (p.sum(axis=1) < 1.0).all()  # "none" takes the rest
    assert head.probabilities(np.empty((0, head.probe.shape[0]))).shape == (0, len(SLOTS))


def test_a_vector_scaled_reads_the_same():
    head = slot_head.load()
    v = np.random.default_rng(1).normal(size=(1, head.probe.shape[0])).astype(np.float32)
    assert np.allclose(head.probabilities(v), head.probabilities(3.0 * v), atol=1e-6)


def test_only_the_trained_on_models_vectors_get_the_head():
    head = slot_head.load()
    assert slot_head.matching(head.probe) is head
    other = np.random.default_rng(2).normal(size=head.probe.shape[0]).astype(np.float32)
    assert slot_head.matching(other / np.linalg.norm(other)) is None  # another model of the same dimension
    assert slot_head.matching(np.ones(768, dtype=np.float32) / np.sqrt(768)) is None  # another dimension


@pytest.mark.parametrize("dim", [1, 16])
def test_a_small_vector_is_another_model(dim):
    assert slot_head.matching(np.ones(dim, dtype=np.float32)) is None


def test_a_head_that_cannot_be_read_is_none_with_a_warning(monkeypatch):
    """A damaged install or kinds changed without training the head again: the stage reads as without it."""
    probe = slot_head.load().probe

    def broken(file=slot_head.HEAD_FILE):
        raise ValueError("slot_head.npz was trained for other kinds of fact")

    monkeypatch.setattr(slot_head, "load", broken)
    with pytest.warns(RuntimeWarning, match="slot head is not used"):
        assert slot_head.matching(probe) is None


def test_the_shipped_question_head_is_for_the_stages_kinds_too():
    head = slot_head.load(slot_head.QUESTION_FILE)
    assert head.names == tuple(SLOTS)
    assert head.weights.shape == (head.probe.shape[0], len(SLOTS) + 1)
    assert slot_head.load(slot_head.QUESTION_FILE) is head  # read once
    assert head is not slot_head.load()
    assert slot_head.matching(head.probe, slot_head.QUESTION_FILE) is head


def _two_kinds() -> slot_head.SlotHead:
    """A head of two kinds on 3-d vectors: each axis raises one column (the third "none")."""
    return slot_head.SlotHead(("a", "b"), np.eye(3, dtype=np.float32) * 4.0, np.zeros(3, dtype=np.float32),
                              np.array([1.0, 0.0, 0.0], dtype=np.float32))


def test_the_most_probable_kind_clears_the_floor_and_none():
    head = _two_kinds()
    a = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    p = head.probabilities(a[None, :])[0]
    assert p[0] > 0.9
    assert head.most_probable(a, 0.5) == "a"
    assert head.most_probable(a, float(p[0]) + 0.01) is None  # below the floor
    assert head.most_probable(np.array([0.0, 0.0, 1.0], dtype=np.float32), 0.0) is None  # "none" leads
    assert head.most_probable(np.array([0.0, 1.0, 0.2], dtype=np.float32), 0.0) == "b"
