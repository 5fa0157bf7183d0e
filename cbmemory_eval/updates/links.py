"""False supersession on plain LoCoMo: a labelled sample of the links the product made.

``sample_links`` reads the supersession links (``MemoryRecord.supersedes``: the newer record names the
older ones) in stores of plain conversations (no injected changes; the benchmark's base stores are such),
draws ``n`` of them with a seed and writes one JSON line per link for a person to label: both texts, both
dates, both speakers, and ``"label": null`` to be set to ``"update"`` (the newer statement changes the
older one on the same matter) or ``"not"`` (anything else). ``score_labels`` reads the file back: precision
= update / labelled, with its Wilson 95 % interval; unlabelled lines are counted, not scored.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cbmemory import AgentMemory, InvalidInputError

LABELS = ("update", "not")


def store_links(path: Path, user_id: str) -> list[dict[str, Any]]:
    """Every link in one user's store, newer and older record side by side."""
    mem = AgentMemory.open(path, create=False, read_only=True)
    try:
        recs = mem.session_records(user_id, kinds=None)
    finally:
        mem.close()
    by_id = {r.record_id: r for r in recs}
    out = []
    for r in recs:
        for old_id in getattr(r, "supersedes", ()):
            old = by_id.get(old_id)
            if old is None:
                continue
            out.append({"user_id": user_id, "newer_id": r.record_id, "older_id": old_id,
                        "newer_date": r.occurred_at.date().isoformat(), "older_date": old.occurred_at.date().isoformat(),
                        "newer": f"{r.speaker or r.role}: {r.text}", "older": f"{old.speaker or old.role}: {old.text}",
                        "label": None})
    return out


def sample_links(stores: Sequence[tuple[Path, str]], n: int, seed: int = 0) -> tuple[list[dict[str, Any]], int]:
    """``n`` links drawn with ``seed`` from the stores (path, user), and how many links there were."""
    every = [link for path, user in stores for link in store_links(path, user)]
    every.sort(key=lambda x: (x["user_id"], x["newer_id"], x["older_id"]))
    return random.Random(f"links:{seed}").sample(every, min(n, len(every))), len(every)


def write_sample(links: Sequence[dict[str, Any]], path: Path) -> None:
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in links), encoding="utf-8")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval of k successes in n."""
    if n == 0:
        return None
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def score_labels(path: Path) -> dict[str, Any]:
    """Precision of a labelled sample (see the module docstring); a label other than ``update``, ``not`` or
    null is an ``InvalidInputError`` naming its line."""
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    bad = [i + 1 for i, r in enumerate(rows) if r.get("label") not in (*LABELS, None)]
    if bad:
        raise InvalidInputError(f"{path}: lines {bad[:10]} have a label other than {LABELS} or null")
    labelled = [r for r in rows if r.get("label") is not None]
    k = sum(r["label"] == "update" for r in labelled)
    return {"links": len(rows), "labelled": len(labelled), "unlabelled": len(rows) - len(labelled),
            "update": k, "precision": k / len(labelled) if labelled else None,
            "wilson95": wilson(k, len(labelled))}
