"""What the ingest step says while it runs: readable names of ingest settings, one progress bar per setting
whose total is the turns of the data (not turns times settings), and a closing line per setting that says
how many records were new and how many were already stored (a re-ingest: "0 new, 4,805 unchanged").

Used by ``cbmemory ingest`` and by the evaluation (``cbmemory-eval``); tqdm is imported only when a bar is drawn.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..models import IngestResult
from .config import DEFAULT_INGEST, IngestConfig


def ingest_label(cfg: IngestConfig) -> str:
    """``dates on, previous turn on`` (and whatever else differs from the defaults): how records are made."""
    parts = [f"dates {'on' if cfg.anchor_dates else 'off'}", f"previous turn {'on' if cfg.with_previous_turn else 'off'}"]
    if cfg.unit != "turn":
        parts.append(f"one record per {cfg.unit}")
    if cfg.date_rules is not None:
        parts.append(f"relative dates resolved ({cfg.date_rules})")
    if cfg.index_annotation_keys != DEFAULT_INGEST.index_annotation_keys:
        parts.append(f"annotations indexed: {', '.join(cfg.index_annotation_keys) or 'none'}")
    if cfg.enrich is not None:
        parts.append(f"LLM {'+'.join(cfg.enrich.modes)}")
    if cfg.sparse is not None:
        parts.append(f"sparse vectors ({cfg.sparse})")
    return ", ".join(parts)


@dataclass
class IngestTally:
    """Records written by a run of ingests, summed over their ``IngestResult`` s."""

    inserted: int = 0
    replaced: int = 0
    unchanged: int = 0

    def add(self, result: IngestResult | None) -> None:
        if result is not None:
            self.inserted += result.inserted
            self.replaced += result.replaced
            self.unchanged += result.unchanged

    @property
    def embedded(self) -> int:
        """Records that were (re-)embedded: new ones and replaced ones."""
        return self.inserted + self.replaced

    def __str__(self) -> str:
        replaced = f", {self.replaced:,} replaced" if self.replaced else ""
        return f"{self.inserted:,} new{replaced}, {self.unchanged:,} unchanged"


def embed_rate(tally: IngestTally, seconds: float, unit: str) -> str:
    """``, 120 turns/s`` over the records embedded, or nothing when none was (a re-ingest embeds nothing)."""
    return f", {tally.embedded / seconds:,.0f} {unit}s/s embedded" if tally.embedded and seconds > 0 else ""


def ingest_with_bar(users: Iterable[tuple[str, int]], ingest_one: Callable[[str], IngestResult | None], *,
                    label: str, unit: str = "turn", enabled: bool = True, mininterval: float = 0.2) -> IngestTally:
    """Run ``ingest_one(user)`` for each ``(user, turns)`` under one bar of the users' total turns, described
    ``embedding <user>: <label>`` while that user is written; returns what was written."""
    from tqdm import tqdm

    todo = list(users)
    tally = IngestTally()
    fmt = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} " + unit + "s [{elapsed}<{remaining}{postfix}]"
    first = f"embedding {todo[0][0]}: {label}" if todo else label
    with tqdm(total=sum(t for _, t in todo), desc=first, file=sys.stderr, disable=not enabled or not todo,
              bar_format=fmt, mininterval=mininterval) as bar:
        for user, turns in todo:
            bar.set_description_str(f"embedding {user}: {label}", refresh=False)
            tally.add(ingest_one(user))
            bar.set_postfix_str(str(tally), refresh=False)
            bar.update(turns)
    return tally


__all__ = ["IngestTally", "embed_rate", "ingest_label", "ingest_with_bar"]
