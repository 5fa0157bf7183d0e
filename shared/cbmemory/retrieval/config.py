"""Retrieval configuration as frozen, JSON-serialisable data. Copy with ``cfg.with_(k=20)``; never mutate.

The closed choices are string-valued enums (``Signal``, ``Fusion``, ``Rerank``, ``Order``): each member
equals its string (``Fusion.WEIGHTED == "weighted"``), and the constructor accepts either, so
``RetrievalConfig(fusion="weighted")`` and ``RetrievalConfig(fusion=Fusion.WEIGHTED)`` are the same config.
Every field is checked (type and range) when a config is made, copied or read back; a bad one raises
``InvalidInputError``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar, get_args

from ..errors import InvalidInputError
from ..models import RecordKind
from ..validation import known_fields


class _Choice(str, Enum):
    """A closed choice whose members are their own strings (JSON writes them as such)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


_C = TypeVar("_C", bound=_Choice)


class Signal(_Choice):
    VECTOR = "vector"  # cosine similarity
    BM25 = "bm25"  # full text over the user's whole corpus
    ENTITY = "entity"  # exact phrases extracted from the query, through the full-text index
    SPARSE = "sparse"  # learned sparse vectors (SPLADE): dot product over the user's records


class Fusion(_Choice):
    RRF = "rrf"  # reciprocal-rank fusion
    WEIGHTED = "weighted"  # min-max normalised scores, weighted sum


class Rerank(_Choice):
    NONE = "none"
    BM25 = "bm25"  # BM25+ over the first rerank_pool candidates


class Order(_Choice):
    RELEVANCE = "relevance"
    RECENCY = "recency"  # the recency_pool most relevant, newest first


SIGNALS = tuple(s.value for s in Signal)
KINDS: tuple[str, ...] = get_args(RecordKind)
SPEAKER = "speaker"  # the name of the speaker-boost list among the fused lists
DATE = "date"  # the name of the question-date list among the fused lists
NEIGHBOUR = "neighbour"  # a hit's adjacent-turn term (context_boost), in its signals
SESSION = "session"  # a hit's session term (context_boost), in its signals


def _choice(kind: type[_C], value: object, field: str) -> _C:
    try:
        return kind(value)
    except (TypeError, ValueError):
        allowed = ", ".join(repr(m.value) for m in kind)
        raise InvalidInputError(f"{field} must be one of {allowed}, got {value!r}") from None


def _int(value: object, field: str, *, lo: int, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        more = " or None" if optional else ""
        raise InvalidInputError(f"{field} must be an integer of at least {lo}{more}, got {value!r}")
    return value


def _weight(value: object, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InvalidInputError(f"{field} must be a finite number, not negative, got {value!r}")
    return float(value)


def _seq(value: object, field: str) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise InvalidInputError(f"{field} must be a list, got {value!r}")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """Everything that decides what a search returns (the ingest side lives in the ``Recipe``).

    - ``signals``: which ranked lists run: ``vector`` (cosine), ``bm25`` (full text over the user's whole
      corpus), ``entity`` (exact phrases extracted from the query, through the full-text index), ``sparse``
      (learned sparse vectors; needs records ingested with ``IngestConfig.sparse``).
    - ``vector_pool`` / ``text_pool`` / ``entity_pool`` / ``sparse_pool``: the candidate pool of each signal, fetched where
      candidates past k can change the result (several signals fused, the speaker or the date boost); a
      signal also fetches ``rerank_pool`` when re-ranking and ``recency_pool`` when ordering by recency, and
      never fewer than k. One signal alone with none of these fetches k: its top k is the same whatever its
      pool. The candidates (fused, when several signals run) are what the speaker and date boosts, the
      re-rank and the recency order work on, before the list is cut to k.
    - ``fusion``: ``rrf`` (reciprocal-rank fusion, constant ``rrf_k``) or ``weighted`` (min-max normalised
      scores); ``weights`` per signal apply to both. Fusion runs over the union of all candidates. One
      signal alone is not fused (its own scores stay) unless the speaker boost joins it.
    - ``rerank``: ``none`` or ``bm25`` (BM25+ over the first ``rerank_pool`` candidates, cut to k).
    - ``order``: ``relevance`` or ``recency`` (take the ``recency_pool`` most relevant, return the newest k).
    - ``future_filter``: drop memories dated after the question's reference date (kept on that day).
    - ``k``: hits returned; ``None`` picks k from the haystack size (``scale_k``).
    - ``token_budget``: stop adding hits once the formatted context would pass this many tokens.
    - ``kinds``: record kinds searched (``None``: every kind).
    - ``speaker_weight``: when the query names the speaker of some candidates (not all), the list of those
      candidates (in fused order) joins the fusion as the ``speaker`` list with this weight, fused the way
      ``fusion`` says: ``rrf`` adds weight / (rrf_k + rank in that list); ``weighted`` adds the weight
      itself (every named candidate scores 1 in that list). 0 turns it off.
    - ``date_weight``: when the question names a calendar period (``question_span``: "in May 2023", "last
      week", "on 7 May 2023", resolved against the question's reference date) and some candidates (not all)
      are dated inside it, the list of those candidates (in fused order) joins the fusion as the ``date``
      list with this weight, fused like the speaker list (both join the same fusion when both apply). With
      ``weighted`` fusion, a weight above the sum of the other lists' weights puts every in-span candidate
      first: a filter that never leaves fewer than k hits. 0 turns it off.
    - ``neighbour_weight``: evidence is often the turn just before or after the best match. Each candidate
      (after fusion and the boosts) gains this weight times the larger score of its two adjacent turns in
      its session (same kind; a turn that is no candidate scores 0), and the candidates' adjacent turns
      join the candidates (scored by that term alone, unless candidates themselves). The list still holds
      k memories: neighbours rise into it only by displacing weaker hits. 0 turns it off.
    - ``session_weight``: each candidate gains this weight times its session's evidence, the best score
      among the session's candidates divided by the best score of all (so the best session's turns gain
      the full weight): turns of a session that matches the question strongly rise over isolated matches
      elsewhere. 0 turns it off.
    - ``window``: each of the k hits is shown with up to this many adjacent turns of its session on each
      side (same kind, read under the same filters), as its ``Hit.context``: a reply is read with the turn
      it answers. The context counts in the token budget and in tokens@k; a turn is shown once however many
      hits it is next to. It does not change which k hits are returned. 0: hits alone.
    """

    signals: tuple[Signal, ...] = (Signal.VECTOR,)
    vector_pool: int = 50
    text_pool: int = 50
    entity_pool: int = 30
    sparse_pool: int = 50
    fusion: Fusion = Fusion.RRF
    rrf_k: int = 60
    weights: tuple[tuple[Signal, float], ...] = ()
    rerank: Rerank = Rerank.NONE
    rerank_pool: int = 10
    order: Order = Order.RELEVANCE
    recency_pool: int = 30
    future_filter: bool = False
    k: int | None = 10
    token_budget: int | None = None
    kinds: tuple[str, ...] | None = None
    speaker_weight: float = 0.0
    date_weight: float = 0.0
    neighbour_weight: float = 0.0
    session_weight: float = 0.0
    window: int = 0

    def __post_init__(self) -> None:
        put = object.__setattr__
        signals = tuple(_choice(Signal, s, "signals") for s in _seq(self.signals, "signals"))
        if not signals or len(set(signals)) != len(signals):
            raise InvalidInputError(f"signals must be a non-empty list of distinct names from {SIGNALS}, "
                                    f"got {self.signals!r}")
        put(self, "signals", tuple(s for s in Signal if s in signals))  # one canonical order
        for name in ("vector_pool", "text_pool", "entity_pool", "sparse_pool", "rrf_k", "rerank_pool", "recency_pool"):
            _int(getattr(self, name), name, lo=1)
        put(self, "fusion", _choice(Fusion, self.fusion, "fusion"))
        put(self, "rerank", _choice(Rerank, self.rerank, "rerank"))
        put(self, "order", _choice(Order, self.order, "order"))
        weights: dict[Signal, float] = {}
        for pair in _seq(self.weights, "weights"):
            if isinstance(pair, (str, bytes)) or not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise InvalidInputError(f"weights must be (signal, weight) pairs, got {pair!r}")
            signal = _choice(Signal, pair[0], "a weight's signal")
            if signal in weights or signal not in signals:
                raise InvalidInputError(f"weights name each signal of the config at most once; {signal} is "
                                        f"{'repeated' if signal in weights else 'not among the signals'}")
            weights[signal] = _weight(pair[1], f"the weight of {signal}")
        put(self, "weights", tuple((s, weights[s]) for s in Signal if s in weights))
        if not isinstance(self.future_filter, bool):
            raise InvalidInputError(f"future_filter must be True or False, got {self.future_filter!r}")
        _int(self.k, "k", lo=1, optional=True)
        _int(self.token_budget, "token_budget", lo=1, optional=True)
        _int(self.window, "window", lo=0)
        if self.kinds is not None:
            kinds = _seq(self.kinds, "kinds")
            if not kinds or not all(isinstance(x, str) and x in KINDS for x in kinds) or len(set(kinds)) != len(kinds):
                raise InvalidInputError(f"kinds must be None or a non-empty list of distinct record kinds from "
                                        f"{KINDS}, got {self.kinds!r}")
            put(self, "kinds", kinds)
        put(self, "speaker_weight", _weight(self.speaker_weight, "speaker_weight"))
        put(self, "date_weight", _weight(self.date_weight, "date_weight"))
        put(self, "neighbour_weight", _weight(self.neighbour_weight, "neighbour_weight"))
        put(self, "session_weight", _weight(self.session_weight, "session_weight"))

    def with_(self, **changes: Any) -> RetrievalConfig:
        """A copy with some fields changed (the original is untouched)."""
        unknown = set(changes) - set(FIELDS)
        if unknown:
            raise InvalidInputError(f"unknown RetrievalConfig fields {sorted(unknown)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields: enums as their strings, tuples as lists, ``weights`` as [signal, weight] pairs."""
        return {
            "signals": [s.value for s in self.signals], "vector_pool": self.vector_pool,
            "text_pool": self.text_pool, "entity_pool": self.entity_pool, "sparse_pool": self.sparse_pool,
            "fusion": self.fusion.value,
            "rrf_k": self.rrf_k, "weights": [[s.value, w] for s, w in self.weights],
            "rerank": self.rerank.value, "rerank_pool": self.rerank_pool, "order": self.order.value,
            "recency_pool": self.recency_pool, "future_filter": self.future_filter, "k": self.k,
            "token_budget": self.token_budget, "kinds": list(self.kinds) if self.kinds is not None else None,
            "speaker_weight": self.speaker_weight, "date_weight": self.date_weight,
            "neighbour_weight": self.neighbour_weight, "session_weight": self.session_weight,
            "window": self.window,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrievalConfig:
        """The config ``to_dict`` wrote (missing fields take their defaults; unknown ones are refused)."""
        return cls(**known_fields(cls, data))


FIELDS = tuple(f.name for f in dataclasses.fields(RetrievalConfig))


def scale_k(n_sessions: int, *, base_k: int = 10, base_sessions: int = 50, lo: int = 5, hi: int = 50) -> int:
    """k from the haystack size, through the study's two points: ~10 at ~50 sessions, ~20 at ~500.

    k = base_k * (sessions / base_sessions) ** log10(2), so every tenfold growth doubles k; clamped to
    [lo, hi].
    """
    if n_sessions <= 0:
        return lo
    k = base_k * (n_sessions / base_sessions) ** math.log10(2)
    return max(lo, min(hi, round(k)))
