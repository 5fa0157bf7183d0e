"""Unit layer (embedding, SPLADE's pure parts): sparse vectors, their dot product, the per-user inverted
matrix that scores many documents at once, top-k truncation and the safetensors reader (on buffers built in
memory; no model file)."""

import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbmemory.embedding.sparse import SparseMatrix, SparseVector, sparse_dot
from cbmemory.embedding.splade import ModelFileError, dump_safetensors, parse_safetensors
from cbmemory.errors import InvalidInputError, InvalidVectorError


def vec(pairs: dict[int, float]) -> SparseVector:
    ids = sorted(pairs)
    return SparseVector(np.array(ids, dtype=np.int64), np.array([pairs[i] for i in ids]))


# --------------------------------------------------------------------------------------------- SparseVector


def test_a_vector_is_int32_float32_and_read_only():
    v = SparseVector(np.array([3, 7, 100]), np.array([0.5, 1.0, 2.0], dtype=np.float64))
    assert v.ids.dtype == np.int32 and v.weights.dtype == np.float32 and len(v) == 3
    with pytest.raises(ValueError):
        v.weights[0] = 9.0
    with pytest.raises(AttributeError):
        v.ids = np.array([1])  # type: ignore[misc]


def test_the_caller_array_is_copied_not_shared():
    ids, w = np.array([1, 2]), np.array([1.0, 2.0], dtype=np.float32)
    v = SparseVector(ids, w)
    w[0] = 42.0
    assert v.weights[0] == 1.0


def test_equality_compares_contents():
    assert vec({1: 0.5, 4: 2.0}) == vec({4: 2.0, 1: 0.5})
    assert vec({1: 0.5}) != vec({1: 0.25})
    assert vec({1: 0.5}) != vec({2: 0.5})
    assert SparseVector(np.array([], dtype=np.int32), np.array([], dtype=np.float32)) == vec({})


@pytest.mark.parametrize("ids, weights", [
    ([2, 1], [1.0, 1.0]),  # not increasing
    ([1, 1], [1.0, 1.0]),  # repeated
    ([-1, 2], [1.0, 1.0]),  # negative
    ([1, 2 ** 31], [1.0, 1.0]),  # beyond int32
    ([1, 2], [1.0]),  # lengths differ
    ([[1, 2]], [[1.0, 1.0]]),  # not 1-D
    ([1.5, 2.5], [1.0, 1.0]),  # not integers
    ([1, 2], [1.0, float("nan")]),
    ([1, 2], [float("inf"), 1.0]),
])
def test_malformed_vectors_are_refused(ids, weights):
    with pytest.raises(InvalidVectorError):
        SparseVector(np.array(ids), np.array(weights))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64, np.int16])
def test_unsigned_and_narrow_ids_are_checked_without_wrapping(dtype):
    assert SparseVector(np.array([1, 2], dtype=dtype), np.array([1.0, 1.0])).ids.tolist() == [1, 2]
    with pytest.raises(InvalidVectorError):  # decreasing: an unsigned difference would wrap to a large number
        SparseVector(np.array([2, 1], dtype=dtype), np.array([1.0, 1.0]))


def test_top_keeps_the_largest_weights_in_id_order():
    v = vec({5: 0.1, 9: 3.0, 20: 2.0, 40: 0.5, 41: 2.5})
    assert v.top(3) == vec({9: 3.0, 20: 2.0, 41: 2.5})
    assert v.top(1) == vec({9: 3.0})
    assert v.top(5) is v and v.top(50) is v


def test_top_breaks_ties_by_the_lower_id():
    v = vec({3: 1.0, 8: 1.0, 1: 1.0, 9: 0.5})
    assert v.top(2) == vec({1: 1.0, 3: 1.0})


@pytest.mark.parametrize("k", [0, -1, 1.5, True, None, "3"])
def test_top_refuses_a_bad_k(k):
    with pytest.raises(InvalidInputError):
        vec({1: 1.0, 2: 2.0}).top(k)


# ------------------------------------------------------------------------------------------------ the dot


def test_sparse_dot_by_hand():
    a = vec({1: 2.0, 5: 1.5, 9: 0.5})
    b = vec({0: 7.0, 5: 2.0, 9: 4.0, 12: 1.0})
    assert sparse_dot(a, b) == pytest.approx(1.5 * 2.0 + 0.5 * 4.0)
    assert sparse_dot(a, b) == pytest.approx(sparse_dot(b, a))
    assert sparse_dot(a, vec({2: 1.0, 3: 1.0})) == 0.0
    assert sparse_dot(a, vec({})) == 0.0


def test_matrix_scores_by_hand():
    docs = [vec({1: 1.0, 2: 2.0}), vec({}), vec({2: 0.5, 7: 3.0}), vec({9: 1.0})]
    m = SparseMatrix.from_vectors(docs)
    assert m.n_docs == 4 and m.nnz == 5
    assert list(m.terms) == [1, 2, 7, 9] and list(m.indptr) == [0, 1, 3, 4, 5]
    assert list(m.rows) == [0, 0, 2, 2, 3]  # term 2's postings: documents 0 then 2
    q = vec({2: 2.0, 7: 1.0, 100: 5.0})  # term 100 is in no document
    assert np.allclose(m.scores(q), [4.0, 0.0, 1.0 + 3.0, 0.0])
    best, scores = m.top(q, 10)
    assert list(best) == [0, 2] and np.allclose(scores, [4.0, 4.0])  # a tie: the earlier document first


def test_matrix_top_orders_by_score_then_position_and_skips_zero_scores():
    docs = [vec({1: 1.0}), vec({1: 3.0}), vec({2: 1.0}), vec({1: 1.0}), vec({1: 2.0})]
    m = SparseMatrix.from_vectors(docs)
    best, scores = m.top(vec({1: 1.0}), 10)
    assert list(best) == [1, 4, 0, 3]  # document 2 shares no term: not a hit
    assert list(scores) == [3.0, 2.0, 1.0, 1.0]
    best, _ = m.top(vec({1: 1.0}), 2)
    assert list(best) == [1, 4]
    assert m.top(vec({50: 1.0}), 3)[0].size == 0


def test_an_empty_matrix_scores_zero():
    for docs in ([], [vec({}), vec({})]):
        m = SparseMatrix.from_vectors(docs)
        assert m.scores(vec({1: 1.0})).shape == (len(docs),) and not m.scores(vec({1: 1.0})).any()
        assert m.top(vec({1: 1.0}), 5)[0].size == 0


def test_matrix_top_refuses_a_bad_k():
    with pytest.raises(InvalidInputError):
        SparseMatrix.from_vectors([vec({1: 1.0})]).top(vec({1: 1.0}), 0)


sparse_vectors = st.dictionaries(st.integers(0, 60), st.floats(0.125, 4.0, width=32), max_size=12).map(vec)


@settings(max_examples=60, deadline=None)
@given(st.lists(sparse_vectors, max_size=8), sparse_vectors)
def test_matrix_scores_equal_the_pairwise_dot(docs, query):
    scores = SparseMatrix.from_vectors(docs).scores(query)
    assert np.allclose(scores, [sparse_dot(query, d) for d in docs], rtol=1e-6, atol=1e-9)


# ------------------------------------------------------------------------------------------------ safetensors


def handmade_buffer() -> bytes:
    """A safetensors file written byte by byte: a 2x3 float32 matrix, a float16 vector and metadata."""
    mat = struct.pack("<6f", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    half = np.array([0.5, -2.0], dtype="<f2").tobytes()
    header = {"__metadata__": {"format": "pt"},
              "m": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "h": {"dtype": "F16", "shape": [2], "data_offsets": [24, 28]}}
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + mat + half


def test_parse_reads_a_handmade_buffer():
    t = parse_safetensors(handmade_buffer())
    assert set(t) == {"m", "h"}
    assert t["m"].dtype == np.float32 and t["m"].tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert t["h"].dtype == np.float16 and t["h"].tolist() == [0.5, -2.0]
    assert not t["m"].flags.writeable  # a view into the bytes, not a copy


def test_dump_then_parse_round_trips():
    rng = np.random.default_rng(0)
    tensors = {"a": rng.normal(size=(3, 5)).astype(np.float32), "b": np.arange(4, dtype=np.int64),
               "c": rng.normal(size=7).astype(np.float16), "empty": np.zeros((0, 4), dtype=np.float32)}
    raw = dump_safetensors(tensors)
    assert (8 + int.from_bytes(raw[:8], "little")) % 8 == 0  # the header is padded to 8 bytes
    back = parse_safetensors(raw)
    assert list(back) == list(tensors)
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and np.array_equal(back[k], v)


def _with_header(header: object, data: bytes = b"\0" * 24) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


@pytest.mark.parametrize("raw", [
    b"",
    b"\x01\x02",
    struct.pack("<Q", 10_000) + b"{}",  # header longer than the file
    struct.pack("<Q", 4) + b"\xff\xfe\x00\x01",  # not UTF-8
    struct.pack("<Q", 5) + b"{nope",  # not JSON
    _with_header([1, 2, 3]),  # not an object
    _with_header({"x": {"dtype": "Q99", "shape": [1], "data_offsets": [0, 4]}}),  # unknown dtype
    _with_header({"x": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 20]}}),  # size mismatch
    _with_header({"x": {"dtype": "F32", "shape": [8], "data_offsets": [0, 32]}}),  # beyond the data
    _with_header({"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}),  # negative dimension
    _with_header({"x": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}}),  # backwards range
    _with_header({"x": {"dtype": "F32"}}),  # fields missing
    _with_header({"x": "F32"}),  # an entry that is not an object
])
def test_malformed_buffers_are_refused_with_a_typed_error(raw):
    with pytest.raises(ModelFileError):
        parse_safetensors(raw)
