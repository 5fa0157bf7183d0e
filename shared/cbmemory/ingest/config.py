"""Ingest settings as frozen, plain data: ``IngestConfig`` (how records are built) and ``EnrichConfig``
(which LLM-made records a store gets). Both serialise to JSON and back (``to_dict`` / ``from_dict``), so a
recipe can be written down with the settings its records were made with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..dates.relative import check_date_rules
from ..errors import InvalidInputError
from ..models import RAW_KINDS
from ..validation import known_fields

PROMPT_VERSION = "enrich-v3"  # v2: the extraction asks each fact about the speaker for a slot key; v3: by name
# for the common matters (``slots.KEYS``)
MODES = ("summary", "events", "facts")
UNITS = RAW_KINDS  # a record is made of one message (turn) or of a round
SUMMARY_UNITS = ("session", "round")


def _names(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InvalidInputError(f"{what} must be a sequence of names, got {value!r}")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class EnrichConfig:
    """Which LLM-made records a store gets, and how its turns are batched into calls (data only: the
    model and the limits on calling it belong to ``cbmemory.ingest.enrich.Enricher``).

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
        object.__setattr__(self, "modes", _names(self.modes, "modes"))
        if not self.modes or set(self.modes) - set(MODES) or len(set(self.modes)) != len(self.modes):
            raise InvalidInputError(f"modes must be distinct names from {MODES}, got {self.modes!r}")
        if self.summary_unit not in SUMMARY_UNITS:
            raise InvalidInputError(f"summary_unit must be 'session' or 'round', got {self.summary_unit!r}")
        for name in ("turns_per_call", "rounds_per_call", "summary_max_turns", "summary_sentences"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise InvalidInputError(f"{name} must be an integer of at least 1")
        if not isinstance(self.context_turns, int) or self.context_turns < 0:
            raise InvalidInputError("context_turns must be an integer, not negative")
        if not isinstance(self.prompt_version, str) or not self.prompt_version:
            raise InvalidInputError("prompt_version must be a non-empty string")

    @property
    def rewrites_raw(self) -> bool:
        """Whether the modes change the raw records' index text (``facts``): such records are prepared
        with the cached facts before the raw write, so a re-ingest rewrites nothing."""
        return "facts" in self.modes

    @property
    def key(self) -> str:
        """A short stable name of the settings (part of ``IngestConfig.key``)."""
        modes = "+".join(m for m in MODES if m in self.modes)
        return (f"{modes}/{self.summary_unit}/t{self.turns_per_call}/r{self.rounds_per_call}/"
                f"s{self.summary_max_turns}/n{self.summary_sentences}/c{self.context_turns}/{self.prompt_version}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (lists for tuples)."""
        return {"modes": list(self.modes), "summary_unit": self.summary_unit, "turns_per_call": self.turns_per_call,
                "rounds_per_call": self.rounds_per_call, "summary_max_turns": self.summary_max_turns,
                "summary_sentences": self.summary_sentences, "context_turns": self.context_turns,
                "prompt_version": self.prompt_version}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EnrichConfig:
        """The config ``to_dict`` wrote (missing fields take their defaults; unknown ones are refused)."""
        return cls(**known_fields(cls, data))


@dataclass(frozen=True, slots=True)
class IngestConfig:
    """Ingest-side settings. Records made with different settings differ in their index texts, so an
    evaluation ingests once per distinct ``IngestConfig`` (``key`` names it).

    - ``anchor_dates``: prefix the indexed text with the session date (the study's ~7x temporal gain).
    - ``unit``: ``turn`` (one record per message) or ``round`` (a user message plus the replies to it).
    - ``index_annotation_keys``: message annotations appended to the indexed text (e.g. image captions).
    - ``with_previous_turn``: also index the text of the turn this one replies to (its raw text is unchanged).
    - ``date_rules``: the version of the rule-based relative-date resolver (``"rules-v1"``, a name in
      ``cbmemory.ingest.DATE_RULES``) that rewrites "yesterday" against the session date in the indexed
      text; ``None`` leaves the text as it is.
    - ``enrich``: optional LLM modes run after the raw write (``EnrichConfig``: summary, events, facts);
      they need an ``Enricher`` on the ``AgentMemory``. ``None``: raw records only.
    - ``sparse``: the name of the sparse encoder (``SparseEncoder.name``) whose vector of each record's
      indexed text is stored beside its dense vector, for the ``sparse`` signal; an ``AgentMemory`` makes the
      offline SPLADE-tiny encoder for its names (``cbmemory.embedding.splade.encoder_named``). ``None``: none.
    - ``link_updates``: link each user statement to the earlier ones it changes (``MemoryRecord.supersedes``,
      by rules, no LLM; ``cbmemory.memory.updates``), so recall shows the later one beside the older and marks
      the older as changed. Off by default: their precision is not shown (plain LoCoMo dev: 1 link, a real
      change; LongMemEval's sample haystack: 1 link, not one), and a false link marks a true memory as no longer
      current; see docs/guarantees.md. With an
      ``Enricher`` and the ``facts`` mode, the slot keys the extraction gives the user's facts link too
      (``cbmemory.ingest.slots``; docs/guarantees.md).
    """

    anchor_dates: bool = True
    unit: str = "turn"
    index_annotation_keys: tuple[str, ...] = ("image_caption",)
    with_previous_turn: bool = False
    date_rules: str | None = None
    enrich: EnrichConfig | None = None
    sparse: str | None = None
    link_updates: bool = False

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise InvalidInputError(f"unit must be 'turn' or 'round', got {self.unit!r}")
        object.__setattr__(self, "index_annotation_keys", _names(self.index_annotation_keys, "index_annotation_keys"))
        for name in ("anchor_dates", "with_previous_turn", "link_updates"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInputError(f"{name} must be True or False")
        if self.date_rules is not None:
            check_date_rules(self.date_rules)
        if self.enrich is not None and not isinstance(self.enrich, EnrichConfig):
            raise InvalidInputError(f"enrich must be an EnrichConfig or None, got {type(self.enrich).__name__}")
        if self.sparse is not None and (not isinstance(self.sparse, str) or not self.sparse.strip()):
            raise InvalidInputError(f"sparse must be a sparse encoder's name or None, got {self.sparse!r}")

    @property
    def rewrites_raw(self) -> bool:
        """Whether enrichment changes the raw records' index text (``facts`` mode; see ``EnrichConfig``)."""
        return self.enrich is not None and self.enrich.rewrites_raw

    @property
    def key(self) -> str:
        """A short stable name of the settings, used to keep differently-ingested copies apart."""
        return (
            f"anchor={int(self.anchor_dates)},unit={self.unit},ann={'+'.join(self.index_annotation_keys)},"
            f"prev={int(self.with_previous_turn)},dates={self.date_rules or 'none'}"
        ) + (f",enrich={self.enrich.key}" if self.enrich is not None else "") + (
            f",sparse={self.sparse}" if self.sparse is not None else "") + (",links=1" if self.link_updates else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (lists for tuples, ``enrich`` as its own dict or ``None``)."""
        return {"anchor_dates": self.anchor_dates, "unit": self.unit,
                "index_annotation_keys": list(self.index_annotation_keys),
                "with_previous_turn": self.with_previous_turn, "date_rules": self.date_rules,
                "enrich": self.enrich.to_dict() if self.enrich is not None else None, "sparse": self.sparse,
                **({"link_updates": True} if self.link_updates else {})}  # written when on: older files stay equal

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IngestConfig:
        """The config ``to_dict`` wrote (missing fields take their defaults; unknown ones are refused)."""
        fields = known_fields(cls, data)
        if fields.get("enrich") is not None:
            fields["enrich"] = EnrichConfig.from_dict(fields["enrich"])
        return cls(**fields)


DEFAULT_INGEST = IngestConfig()


__all__ = ["DEFAULT_INGEST", "MODES", "PROMPT_VERSION", "RAW_KINDS", "SUMMARY_UNITS", "UNITS", "EnrichConfig", "IngestConfig"]
