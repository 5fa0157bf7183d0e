"""The stages of a search as frozen groups of ``RetrievalConfig`` (one per stage), and their closed choices.

The closed choices are string-valued enums (``Signal``, ``Fusion``, ``Rerank``, ``Order``): each member
equals its string (``Fusion.WEIGHTED == "weighted"``), and every group accepts either, so
``FusionConfig("weighted")`` and ``FusionConfig(Fusion.WEIGHTED)`` are the same group. Every field is
checked (type and range) when a group is made, copied or read back; a bad one raises ``InvalidInputError``
naming the setting by its flat name (``fusion``, ``rerank_pool``, ``speaker_weight``, ...).
Each group serialises to a JSON object of its fields (``to_dict`` / ``from_dict``: enums as their strings,
tuples as lists; a missing field takes its default, an unknown one is refused).

Adding a signal: a ``Signal`` member and its query check (``cbmemory.store.signals``), its scorer in each
store backend's table, its default pool in ``DEFAULT_POOLS`` and its search in ``engine.SEARCHES`` (its
``<signal>_pool`` flat name and its JSON follow). Nothing else lists the signals;
only a signal that needs something a memory must supply names itself there too (``sparse``: the query
encoder, checked by ``retrieve`` and ``AgentMemory.search``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar, get_args

from ..errors import InvalidInputError
from ..models import RecordKind
from ..store.signals import Signal  # the signals a store searches (named here by recipes)
from ..validation import known_fields


class _Choice(str, Enum):
    """A closed choice whose members are their own strings (JSON writes them as such)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


_C = TypeVar("_C", bound=Enum)


# Each signal's candidate pool when its spec names none.
DEFAULT_POOLS: Mapping[Signal, int] = MappingProxyType({
    Signal.VECTOR: 50, Signal.BM25: 50, Signal.ENTITY: 30, Signal.SPARSE: 50,
})


class Fusion(_Choice):
    RRF = "rrf"  # reciprocal-rank fusion
    WEIGHTED = "weighted"  # min-max normalised scores, weighted sum


class Rerank(_Choice):
    NONE = "none"
    BM25 = "bm25"  # BM25+ over the first ``RerankConfig.pool`` candidates


class Order(_Choice):
    RELEVANCE = "relevance"
    RECENCY = "recency"  # the ``OrderConfig.pool`` most relevant, newest first


SIGNALS = tuple(s.value for s in Signal)
KINDS: tuple[str, ...] = get_args(RecordKind)


# ---------------------------------------------------------------------------- checks
def check_choice(kind: type[_C], value: object, field: str) -> _C:
    try:
        return kind(value)
    except (TypeError, ValueError):
        allowed = ", ".join(repr(m.value) for m in kind)
        raise InvalidInputError(f"{field} must be one of {allowed}, got {value!r}") from None


def check_count(value: object, field: str, *, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise InvalidInputError(f"{field} must be an integer of at least {lo}, got {value!r}")
    return value


def check_optional_count(value: object, field: str, *, lo: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise InvalidInputError(f"{field} must be an integer of at least {lo} or None, got {value!r}")
    return value


def check_weight(value: object, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InvalidInputError(f"{field} must be a finite number, not negative, got {value!r}")
    return float(value)


def check_list(value: object, field: str) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise InvalidInputError(f"{field} must be a list, got {value!r}")
    return tuple(value)


def _json(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value


_G = TypeVar("_G", bound="_Group")


class _Group:
    """A stage's frozen settings: JSON out (``to_dict``) and back (``from_dict``)."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields: enums as their strings, tuples as lists."""
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls: type[_G], data: Mapping[str, Any]) -> _G:
        """The group ``to_dict`` wrote (missing fields take their defaults; unknown ones are refused)."""
        return cls(**known_fields(cls, data))


# ---------------------------------------------------------------------------- the groups
@dataclass(frozen=True, slots=True, init=False)
class SignalSpec(_Group):
    """One ranked list that runs: its ``name`` (a ``Signal``), its candidate ``pool`` (``DEFAULT_POOLS`` of
    the signal when not given) and its fusion ``weight`` (1 when not given)."""

    name: Signal
    pool: int
    weight: float

    def __init__(self, name: Signal | str, pool: int | None = None, weight: float = 1.0) -> None:
        signal = check_choice(Signal, name, "a signal's name")
        object.__setattr__(self, "name", signal)
        object.__setattr__(self, "pool", DEFAULT_POOLS[signal] if pool is None
                           else check_count(pool, f"the pool of {signal}", lo=1))
        object.__setattr__(self, "weight", check_weight(weight, f"the weight of {signal}"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SignalSpec:
        """``{"name": ..., "pool": ..., "weight": ...}``; ``name`` is required."""
        fields = known_fields(cls, data)
        if "name" not in fields:
            raise InvalidInputError(f"a signal spec needs a name, got {dict(data)!r}")
        return cls(**fields)


@dataclass(frozen=True, slots=True)
class FilterConfig(_Group):
    """What is searched at all: ``kinds`` of record (``None``: every kind); with ``drop_future``, no memory
    dated after the question's reference date (memories of that day kept); without ``echoes`` (the
    default), no turn that only restates the memories its agent step was shown (a turn stored restating
    them, ``MemoryRecord.source_ids``: ``AgentMemory.save(..., shown=recall)``): the memories it restates
    are searched, not the echo, so an agent's questions and replies do not crowd out what was said.
    ``floor`` (the relevance floor; ``None``: off): no memory whose cosine similarity with the question is
    below it is returned (needs the ``vector`` signal). A candidate the vector search did not rank (found
    by another signal only, or an adjacent turn lifted by the context terms) is kept only while it could be
    above the floor: the vector list was cut at its pool and its last score is at or above the floor. An
    unrelated question returns nothing; hits below the floor give their places to the next candidates above it."""

    kinds: tuple[str, ...] | None = None
    drop_future: bool = False
    echoes: bool = False
    floor: float | None = None

    def __post_init__(self) -> None:
        if self.kinds is not None:
            kinds = check_list(self.kinds, "filters.kinds")
            known = all(isinstance(x, str) and x in KINDS for x in kinds)
            if not kinds or not known or len(set(kinds)) != len(kinds):
                raise InvalidInputError(f"filters.kinds must be None or a non-empty list of distinct record kinds "
                                        f"from {KINDS}, got {self.kinds!r}")
            object.__setattr__(self, "kinds", kinds)
        if not isinstance(self.drop_future, bool):
            raise InvalidInputError(f"filters.drop_future (future_filter) must be True or False, "
                                    f"got {self.drop_future!r}")
        if not isinstance(self.echoes, bool):
            raise InvalidInputError(f"filters.echoes must be True or False, got {self.echoes!r}")
        if self.floor is not None:
            if (isinstance(self.floor, bool) or not isinstance(self.floor, (int, float))
                    or not -1.0 <= self.floor <= 1.0):
                raise InvalidInputError(f"filters.floor must be None or a cosine similarity in [-1, 1], "
                                        f"got {self.floor!r}")
            object.__setattr__(self, "floor", float(self.floor))


@dataclass(frozen=True, slots=True)
class FusionConfig(_Group):
    """How several ranked lists become one: ``method`` ``rrf`` (reciprocal-rank fusion with constant
    ``rrf_k``) or ``weighted`` (min-max normalised scores, weighted sum)."""

    method: Fusion = Fusion.RRF
    rrf_k: int = 60

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", check_choice(Fusion, self.method, "fusion"))
        check_count(self.rrf_k, "rrf_k", lo=1)


@dataclass(frozen=True, slots=True)
class BoostConfig(_Group):
    """Lists fused in from what the question names: its speaker (``speaker_weight``) and a calendar period
    (``date_weight``); 0 turns one off."""

    speaker_weight: float = 0.0
    date_weight: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "speaker_weight", check_weight(self.speaker_weight, "boosts.speaker_weight"))
        object.__setattr__(self, "date_weight", check_weight(self.date_weight, "boosts.date_weight"))

    @property
    def active(self) -> bool:
        return self.speaker_weight > 0 or self.date_weight > 0


@dataclass(frozen=True, slots=True)
class ContextBoostConfig(_Group):
    """Terms from the evidence around a candidate: its adjacent turns (``neighbour_weight``) and its
    session (``session_weight``); 0 turns one off."""

    neighbour_weight: float = 0.0
    session_weight: float = 0.0

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "neighbour_weight", check_weight(self.neighbour_weight, "context_boost.neighbour_weight"))
        put(self, "session_weight", check_weight(self.session_weight, "context_boost.session_weight"))

    @property
    def active(self) -> bool:
        return self.neighbour_weight > 0 or self.session_weight > 0


@dataclass(frozen=True, slots=True)
class RerankConfig(_Group):
    """``method`` ``none``, or ``bm25``: BM25+ over the first ``pool`` candidates, cut to k."""

    method: Rerank = Rerank.NONE
    pool: int = 10

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", check_choice(Rerank, self.method, "rerank"))
        check_count(self.pool, "rerank_pool", lo=1)

    @property
    def depth(self) -> int:
        """How many ranked candidates the re-rank reads (0 when it does not run)."""
        return self.pool if self.method is Rerank.BM25 else 0


@dataclass(frozen=True, slots=True)
class OrderConfig(_Group):
    """The final order: ``by`` ``relevance``, or ``recency`` (the ``pool`` most relevant, newest first)."""

    by: Order = Order.RELEVANCE
    pool: int = 30

    def __post_init__(self) -> None:
        object.__setattr__(self, "by", check_choice(Order, self.by, "order"))
        check_count(self.pool, "recency_pool", lo=1)

    @property
    def depth(self) -> int:
        """How many ranked candidates the recency order reads (0 when it does not run)."""
        return self.pool if self.by is Order.RECENCY else 0


__all__ = [
    "DEFAULT_POOLS", "KINDS", "SIGNALS", "BoostConfig", "ContextBoostConfig", "FilterConfig", "Fusion",
    "FusionConfig", "Order", "OrderConfig", "Rerank", "RerankConfig", "Signal", "SignalSpec",
]
