"""``EnrichConfig``: which LLM-made records a store gets (data only; imported by the core's ``IngestConfig``,
so it depends on nothing but the errors)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidInputError

PROMPT_VERSION = "enrich-v1"
MODES = ("summary", "events", "facts")


@dataclass(frozen=True, slots=True)
class EnrichConfig:
    """Which LLM-made records a store gets, and how its turns are batched into calls (data only: the
    model and the limits on calling it belong to ``Enricher``).

    - ``modes``: any of ``summary``, ``events``, ``facts``; ``events`` and ``facts`` share one call.
    - ``summary_unit``: ``session`` or ``round``; ``summary_max_turns`` splits long sessions;
      ``rounds_per_call`` batches round summaries; ``summary_sentences`` caps a session summary.
    - ``turns_per_call``: raw records per extraction call; ``context_turns``: earlier turns shown as
      context (not extracted from) so "it" and "that" can be read.
    - ``prompt_version``: part of the cache key; bump it to re-extract.
    """

    modes: tuple[str, ...] = ("events",)
    summary_unit: str = "session"
    turns_per_call: int = 12
    rounds_per_call: int = 6
    summary_max_turns: int = 60
    summary_sentences: int = 8
    context_turns: int = 2
    prompt_version: str = PROMPT_VERSION

    def __post_init__(self) -> None:
        if not self.modes or set(self.modes) - set(MODES) or len(set(self.modes)) != len(self.modes):
            raise InvalidInputError(f"modes must be distinct names from {MODES}, got {self.modes!r}")
        if self.summary_unit not in ("session", "round"):
            raise InvalidInputError(f"summary_unit must be 'session' or 'round', got {self.summary_unit!r}")
        for name in ("turns_per_call", "rounds_per_call", "summary_max_turns", "summary_sentences"):
            if getattr(self, name) < 1:
                raise InvalidInputError(f"{name} must be at least 1")
        if self.context_turns < 0:
            raise InvalidInputError("context_turns must not be negative")

    @property
    def key(self) -> str:
        """A short stable name of the settings (part of ``IngestConfig.key``)."""
        modes = "+".join(m for m in MODES if m in self.modes)
        return (f"{modes}/{self.summary_unit}/t{self.turns_per_call}/r{self.rounds_per_call}/"
                f"s{self.summary_max_turns}/n{self.summary_sentences}/c{self.context_turns}/{self.prompt_version}")


__all__ = ["MODES", "PROMPT_VERSION", "EnrichConfig"]
