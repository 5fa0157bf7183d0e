"""safetensors files read and written with numpy alone (the format: an 8-byte little-endian header length, a
JSON header, the tensors' bytes), for the bundled SPLADE-tiny weights (splade.py)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import numpy as np

from ..errors import CbMemoryError

_DTYPES: dict[str, np.dtype] = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "F64": np.dtype("<f8"),
           "I64": np.dtype("<i8"), "I32": np.dtype("<i4")}
_MAX_HEADER = 1 << 24


class ModelFileError(CbMemoryError, ValueError):
    """A model file that is not the pinned one, or not a well-formed safetensors file. Nothing was loaded."""


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


__all__ = ["ModelFileError", "dump_safetensors", "parse_safetensors"]
