"""Unit layer (embedding, SPLADE's forward pass): a tiny random BERT built in memory, one layer of it computed
by hand in plain Python (math.erf, math.exp) and compared with the numpy forward pass, plus the invariants the
encoder relies on (padding and batching change nothing, max-pooling before log1p equals the textbook order,
weight naming variants and float16 storage load the same model). No model file, no torch."""

import math

import numpy as np
import pytest

from cbmemory.embedding.splade import (
    ModelFileError,
    SpladeEncoder,
    SpladeModel,
    dump_safetensors,
    erf,
    gelu,
    layer_norm,
    parse_safetensors,
)
from cbmemory.errors import InvalidInputError

EPS = 1e-12


def tiny_tensors(*, vocab=13, hidden=4, inter=6, positions=8, layers=1, seed=0, names="gamma") -> dict:
    """Random BertForMaskedLM weights in torch's layout ((out, in) matrices), named as the real file is."""
    rng = np.random.default_rng(seed)

    def r(*shape, scale=0.6):
        return (rng.normal(size=shape) * scale).astype(np.float32)

    g, b = ("gamma", "beta") if names == "gamma" else ("weight", "bias")
    t = {"bert.embeddings.word_embeddings.weight": r(vocab, hidden),
         "bert.embeddings.position_embeddings.weight": r(positions, hidden),
         "bert.embeddings.token_type_embeddings.weight": r(2, hidden),
         f"bert.embeddings.LayerNorm.{g}": 1 + r(hidden, scale=0.1), f"bert.embeddings.LayerNorm.{b}": r(hidden)}
    for i in range(layers):
        p = f"bert.encoder.layer.{i}."
        for part, (o, n) in {"attention.self.query": (hidden, hidden), "attention.self.key": (hidden, hidden),
                             "attention.self.value": (hidden, hidden), "attention.output.dense": (hidden, hidden),
                             "intermediate.dense": (inter, hidden), "output.dense": (hidden, inter)}.items():
            t[p + part + ".weight"], t[p + part + ".bias"] = r(o, n), r(o, scale=0.2)
        for part in ("attention.output", "output"):
            t[p + part + f".LayerNorm.{g}"], t[p + part + f".LayerNorm.{b}"] = 1 + r(hidden, scale=0.1), r(hidden)
    t["cls.predictions.transform.dense.weight"] = r(hidden, hidden)
    t["cls.predictions.transform.dense.bias"] = r(hidden, scale=0.2)
    t[f"cls.predictions.transform.LayerNorm.{g}"] = 1 + r(hidden, scale=0.1)
    t[f"cls.predictions.transform.LayerNorm.{b}"] = r(hidden)
    t["cls.predictions.bias"] = r(vocab, scale=0.5)
    return t


# ---------------------------------------------------------------------------------------- by hand, in Python


def py_linear(w, b, x):
    return [sum(float(w[o][i]) * x[i] for i in range(len(x))) + float(b[o]) for o in range(len(w))]


def py_norm(x, g, b):
    mu = sum(x) / len(x)
    var = sum((v - mu) ** 2 for v in x) / len(x)
    return [(v - mu) / math.sqrt(var + EPS) * float(g[i]) + float(b[i]) for i, v in enumerate(x)]


def py_gelu(x):
    return [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x]


def py_forward(t: dict, ids: list[int], heads: int) -> tuple[list[list[float]], dict[int, float]]:
    """The last hidden states of a one-layer model and its SPLADE vector, token by token, as BERT defines them."""
    word, pos, typ = t["bert.embeddings.word_embeddings.weight"], t["bert.embeddings.position_embeddings.weight"], \
        t["bert.embeddings.token_type_embeddings.weight"]
    hidden = word.shape[1]
    d = hidden // heads
    x = [py_norm([float(word[i][j] + pos[p][j] + typ[0][j]) for j in range(hidden)],
                 t["bert.embeddings.LayerNorm.gamma"], t["bert.embeddings.LayerNorm.beta"])
         for p, i in enumerate(ids)]
    p = "bert.encoder.layer.0."
    lin = {n: (t[p + n + ".weight"], t[p + n + ".bias"]) for n in
           ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
            "intermediate.dense", "output.dense")}
    q = [py_linear(*lin["attention.self.query"], v) for v in x]
    k = [py_linear(*lin["attention.self.key"], v) for v in x]
    v_ = [py_linear(*lin["attention.self.value"], v) for v in x]
    out = []
    for a in range(len(ids)):
        ctx = []
        for h in range(heads):
            sl = slice(h * d, (h + 1) * d)
            s = [sum(qa * kb for qa, kb in zip(q[a][sl], k[b][sl], strict=True)) / math.sqrt(d) for b in range(len(ids))]
            e = [math.exp(z - max(s)) for z in s]
            w = [z / sum(e) for z in e]
            ctx += [sum(w[b] * v_[b][sl][j] for b in range(len(ids))) for j in range(d)]
        att = py_norm([o + r for o, r in zip(py_linear(*lin["attention.output.dense"], ctx), x[a], strict=True)],
                      t[p + "attention.output.LayerNorm.gamma"], t[p + "attention.output.LayerNorm.beta"])
        ffn = py_linear(*lin["output.dense"], py_gelu(py_linear(*lin["intermediate.dense"], att)))
        out.append(py_norm([f + r for f, r in zip(ffn, att, strict=True)],
                           t[p + "output.LayerNorm.gamma"], t[p + "output.LayerNorm.beta"]))
    pooled: dict[int, float] = {}
    for h in out:
        z = py_norm(py_gelu(py_linear(t["cls.predictions.transform.dense.weight"],
                                      t["cls.predictions.transform.dense.bias"], h)),
                    t["cls.predictions.transform.LayerNorm.gamma"], t["cls.predictions.transform.LayerNorm.beta"])
        for term in range(word.shape[0]):
            logit = sum(float(word[term][j]) * z[j] for j in range(hidden)) + float(t["cls.predictions.bias"][term])
            pooled[term] = max(pooled.get(term, -math.inf), math.log1p(max(logit, 0.0)))
    return out, {term: w for term, w in pooled.items() if w > 0}


def test_one_layer_matches_the_hand_computation():
    t = tiny_tensors()
    model = SpladeModel(t, heads=2, eps=EPS)
    seq = [2, 5, 7, 1, 12]
    hand_hidden, hand_vec = py_forward(t, seq, heads=2)
    ids = np.array([seq + [0, 0], [3, 4, 6, 8, 9, 10, 11]])  # the first padded, beside a longer text
    mask = np.array([[True] * 5 + [False] * 2, [True] * 7])
    ours = model.hidden_states(ids, mask)
    assert np.allclose(ours[0, :5], hand_hidden, atol=2e-5)
    vec = model.encode_ids([seq])[0]
    assert vec.ids.tolist() == sorted(hand_vec)
    assert np.allclose(vec.weights, [hand_vec[i] for i in sorted(hand_vec)], atol=2e-5)
    assert 0 < len(vec) < 13  # the random model lights some terms, not all: the relu is exercised


# ---------------------------------------------------------------------------------------------- invariants


@pytest.fixture(scope="module")
def model2() -> SpladeModel:
    return SpladeModel(tiny_tensors(vocab=40, hidden=16, inter=24, positions=32, layers=2, seed=3), heads=4)


SEQS = [[1, 5, 9, 2], [1, 30, 2], [1, 7, 7, 7, 11, 13, 17, 19, 23, 2], [1, 2], [1, 39, 38, 2]]


def dense(vecs, vocab=40) -> np.ndarray:
    out = np.zeros((len(vecs), vocab), dtype=np.float32)
    for row, v in enumerate(vecs):
        out[row, v.ids] = v.weights
    return out


def test_batching_and_padding_change_nothing(model2):
    alone = dense([model2.encode_ids([s])[0] for s in SEQS])
    assert np.allclose(dense(model2.encode_ids(SEQS, batch_tokens=10_000)), alone, atol=1e-5)
    assert np.allclose(dense(model2.encode_ids(SEQS, batch_tokens=1)), alone, atol=1e-5)
    assert np.allclose(dense(model2.encode_ids(SEQS[::-1]))[::-1], alone, atol=1e-5)


def test_the_same_input_gives_the_same_output(model2):
    assert model2.encode_ids(SEQS) == model2.encode_ids(SEQS)


def test_max_pooling_before_log1p_equals_the_textbook_order(model2):
    for s in SEQS:
        ids, mask = np.array([s]), np.ones((1, len(s)), dtype=bool)
        h = model2.hidden_states(ids, mask)[0]
        z = layer_norm(gelu(h @ model2.transform[0] + model2.transform[1]), *model2.transform_norm, EPS)
        per_token = np.log1p(np.maximum(z @ model2.word.T + model2.decoder_bias, 0))  # (tokens, vocab)
        assert np.allclose(dense(model2.encode_ids([s]))[0], per_token.max(axis=0), atol=1e-5)


def test_weights_are_non_negative_and_only_real_terms(model2):
    for v in model2.encode_ids(SEQS):
        assert (v.weights > 0).all() and v.ids.max() < 40


def test_naming_variants_and_float16_storage_load_the_same_model(model2):
    base = tiny_tensors(vocab=40, hidden=16, inter=24, positions=32, layers=2, seed=3)
    want = dense(model2.encode_ids(SEQS))
    plain = {k.removeprefix("bert."): v for k, v in
             tiny_tensors(vocab=40, hidden=16, inter=24, positions=32, layers=2, seed=3, names="weight").items()}
    untied = {**base, "cls.predictions.decoder.weight": base["bert.embeddings.word_embeddings.weight"]}
    for tensors in (plain, untied, parse_safetensors(dump_safetensors(base))):
        assert np.array_equal(dense(SpladeModel(tensors, heads=4).encode_ids(SEQS)), want)
    half = parse_safetensors(dump_safetensors({k: v.astype(np.float16) for k, v in base.items()}))
    assert np.allclose(dense(SpladeModel(half, heads=4).encode_ids(SEQS)), want, atol=0.02)


def test_bad_token_sequences_are_refused(model2):
    for seqs in ([[1, 40, 2]], [[-1, 2]], [[]], [list(range(33))]):
        with pytest.raises(InvalidInputError):
            model2.encode_ids(seqs)
    assert model2.encode_ids([]) == []


def test_incomplete_or_inconsistent_weights_are_refused():
    t = tiny_tensors()
    with pytest.raises(ModelFileError, match="intermediate"):
        SpladeModel({k: v for k, v in t.items() if "intermediate.dense.weight" not in k})
    with pytest.raises(ModelFileError, match="no encoder layers"):
        SpladeModel({k: v for k, v in t.items() if "encoder.layer" not in k})
    with pytest.raises(ModelFileError, match="multiple"):
        SpladeModel(t, heads=3)
    with pytest.raises(ModelFileError, match="output layer"):
        SpladeModel({**t, "cls.predictions.bias": np.zeros(5, dtype=np.float32)})


# ----------------------------------------------------------------------------------------- the maths helpers


def test_erf_is_within_2e_7_of_math_erf():
    x = np.linspace(-6, 6, 4001)
    want = np.array([math.erf(v) for v in x])
    assert np.abs(erf(x) - want).max() < 2e-7
    assert np.abs(erf(x.astype(np.float32)) - want).max() < 5e-7  # float32 stays float32 and close
    assert erf(x.astype(np.float32)).dtype == np.float32


def test_gelu_is_the_erf_form_not_the_tanh_one():
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0])
    assert np.allclose(gelu(x), [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x], atol=5e-7)  # erf error x |x| / 2
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    assert np.abs(gelu(x) - tanh_form).max() > 1e-5  # the two differ at this precision


def test_float32_stays_float32_through_the_forward_pass(model2):
    ids, mask = np.array([SEQS[0]]), np.ones((1, 4), dtype=bool)
    assert model2.hidden_states(ids, mask).dtype == np.float32
    assert model2.max_logits([SEQS[0]]).dtype == np.float32


# --------------------------------------------------------------------------------------------- the encoder


def test_the_encoder_loads_nothing_until_used():
    enc = SpladeEncoder(weights="/nowhere/at/all.safetensors")  # not opened at construction
    assert enc.name == "splade-tiny-f16" and enc._loaded is None
    assert enc.encode_documents([]) == []  # nothing to encode: still nothing loaded
    assert enc._loaded is None
    assert SpladeEncoder(max_terms=128).name == "splade-tiny-f16-top128"


@pytest.mark.parametrize("kwargs", [{"max_terms": 0}, {"max_terms": 2.5}, {"max_terms": True},
                                    {"batch_tokens": 0}, {"batch_tokens": "9"}])
def test_the_encoder_refuses_bad_settings(kwargs):
    with pytest.raises(InvalidInputError):
        SpladeEncoder(**kwargs)


def test_the_encoder_refuses_bad_input_before_loading():
    enc = SpladeEncoder(weights="/nowhere/at/all.safetensors")
    for bad in ("a single string", ["ok", 3]):
        with pytest.raises(InvalidInputError):
            enc.encode_documents(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        enc.encode_query(["not", "a", "string"])  # type: ignore[arg-type]
    assert enc._loaded is None
