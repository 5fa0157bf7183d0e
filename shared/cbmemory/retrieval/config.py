"""Retrieval configuration as frozen, JSON-serialisable data, one group per stage of a search (the groups
and their closed choices: ``stages``). Copy with ``cfg.with_(k=20)``; never mutate.

Every field is checked (type and range) when a config is made, copied or read back; a bad one raises
``InvalidInputError``. ``with_`` also takes the flat names of the settings inside the groups
(``SHORTHANDS``: ``vector_pool=100``, ``fusion="weighted"``, ``neighbour_weight=0.5``, ...), and
``from_dict`` also reads the flat form configs were written in before they were grouped (the evaluation's
outputs and caches hold recipes stamped with it).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..errors import InvalidInputError
from .stages import (
    DEFAULT_POOLS,
    KINDS,
    SIGNALS,
    BoostConfig,
    ContextBoostConfig,
    FilterConfig,
    Fusion,
    FusionConfig,
    Order,
    OrderConfig,
    Rerank,
    RerankConfig,
    Signal,
    SignalSpec,
    check_choice,
    check_count,
    check_list,
    check_optional_count,
    check_weight,
)

SPEAKER = "speaker"  # the name of the speaker-boost list among the fused lists
DATE = "date"  # the name of the question-date list among the fused lists
NEIGHBOUR = "neighbour"  # a hit's adjacent-turn term (context_boost), in its signals
SESSION = "session"  # a hit's session term (context_boost), in its signals

# The groups, by field name.
GROUPS: Mapping[str, type[Any]] = MappingProxyType({
    "filters": FilterConfig, "fusion": FusionConfig, "boosts": BoostConfig,
    "context_boost": ContextBoostConfig, "rerank": RerankConfig, "order": OrderConfig,
})
# Flat names of settings inside a group (the fields of the flat config before the groups), and where each is.
GROUPED: Mapping[str, tuple[str, str]] = MappingProxyType({
    "kinds": ("filters", "kinds"), "future_filter": ("filters", "drop_future"), "floor": ("filters", "floor"),
    "fusion": ("fusion", "method"), "rrf_k": ("fusion", "rrf_k"),
    "speaker_weight": ("boosts", "speaker_weight"), "date_weight": ("boosts", "date_weight"),
    "neighbour_weight": ("context_boost", "neighbour_weight"),
    "session_weight": ("context_boost", "session_weight"),
    "rerank": ("rerank", "method"), "rerank_pool": ("rerank", "pool"),
    "order": ("order", "by"), "recency_pool": ("order", "pool"),
})
# ``<signal>_pool`` for every signal; ``text_pool`` is bm25's pool by its older name.
POOLS: Mapping[str, Signal] = MappingProxyType({**{f"{s.value}_pool": s for s in Signal},
                                                 "text_pool": Signal.BM25})
SHORTHANDS = (*GROUPED, *POOLS, "weights")
MOVED_BUDGET = ("token_budget is the context stage's setting now: ContextConfig(token_budget=...), "
                "recipe.context.token_budget, or recipe.with_(token_budget=...)")
_EITHER = frozenset(n for n in GROUPED if n in GROUPS)  # a group's name, or the flat name of its choice


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """Everything that decides what a search returns (the ingest side lives in the ``Recipe``), by stage:

    - ``signals``: the ranked lists that run, each a ``SignalSpec(name, pool, weight)``: ``vector``
      (cosine), ``bm25`` (full text over the user's whole corpus), ``entity`` (exact phrases extracted from
      the query, through the full-text index), ``sparse`` (learned sparse vectors; needs records ingested
      with ``IngestConfig.sparse``). A name alone stands for its default spec (``DEFAULT_POOLS``, weight 1);
      one canonical order. ``pool``: the signal's candidates, fetched where candidates past k can change the
      result (several signals fused, a boost or context term); a signal also fetches the re-rank pool when
      re-ranking and the recency pool when ordering by recency, and never fewer than k. One signal alone
      with none of these fetches k: its top k is the same whatever its pool. The candidates (fused, when
      several signals run) are what the later stages work on, before the list is cut to k. ``weight``: the
      signal's weight in the fusion (both methods).
    - ``filters`` (``FilterConfig``): ``kinds``, the record kinds searched (``None``: every kind);
      ``drop_future``, drop memories dated after the question's reference date (kept on that day);
      ``echoes``, also search turns stored restating what their agent step was shown (off: the memories
      they restate are found instead); ``floor``, the relevance floor: no memory less similar to the
      question than this cosine is returned (an unrelated question gets none; needs ``vector``).
    - ``fusion`` (``FusionConfig``): ``method`` ``rrf`` (reciprocal-rank fusion, constant ``rrf_k``) or
      ``weighted`` (min-max normalised scores). Fusion runs over the union of all candidates. One signal
      alone is not fused (its own scores stay) unless a boost joins it.
    - ``boosts`` (``BoostConfig``), lists fused in from what the question names:
      ``speaker_weight``: when the query names the speaker of some candidates (not all), the list of those
      candidates (in fused order) joins the fusion as the ``speaker`` list with this weight, fused the way
      ``fusion`` says: ``rrf`` adds weight / (rrf_k + rank in that list); ``weighted`` adds the weight
      itself (every named candidate scores 1 in that list). ``date_weight``: when the question names a
      calendar period (``question_span``: "in May 2023", "last week", "on 7 May 2023", resolved against the
      question's reference date) and some candidates (not all) are dated inside it, the list of those
      candidates (in fused order) joins the fusion as the ``date`` list with this weight, fused like the
      speaker list (both join the same fusion when both apply). With ``weighted`` fusion, a weight above
      the sum of the other lists' weights puts every in-span candidate first: a filter that never leaves
      fewer than k hits. 0 turns either off.
    - ``context_boost`` (``ContextBoostConfig``), terms from the evidence around a candidate:
      ``neighbour_weight``: evidence is often the turn just before or after the best match. Each candidate
      (after fusion and the boosts) gains this weight times the larger score of its two adjacent turns in
      its session (same kind; a turn that is no candidate scores 0), and the candidates' adjacent turns
      join the candidates (scored by that term alone, unless candidates themselves). The list still holds
      k memories: neighbours rise into it only by displacing weaker hits. ``session_weight``: each
      candidate gains this weight times its session's evidence, the best score among the session's
      candidates divided by the best score of all (so the best session's turns gain the full weight):
      turns of a session that matches the question strongly rise over isolated matches elsewhere. 0 turns
      either off.
    - ``rerank`` (``RerankConfig``): ``method`` ``none`` or ``bm25`` (BM25+ over the first ``pool``
      candidates, cut to k).
    - ``order`` (``OrderConfig``): ``by`` ``relevance`` or ``recency`` (take the ``pool`` most relevant,
      return the newest k).
    - ``k``: hits returned; ``None`` picks k from the haystack size (``scale_k``).
    - ``window``: each of the k hits is shown with up to this many adjacent turns of its session on each
      side (same kind, read under the same filters), as its ``Hit.context``: a reply is read with the turn
      it answers. The context counts in the token budget and in tokens@k; a turn is shown once however many
      hits it is next to. 0: hits alone.
    - ``skip_shown``: with a window, a candidate inside the window of a better one is read there already,
      so it is not returned as a hit of its own: the next candidate takes its place (the k hits show up to
      k windows of new turns, not the same passage twice). Off: the first k candidates, windows and all.
    - ``current_value``: for a first-person question about a kind of personal fact (where one lives, works,
      a phone number ...), the user's latest statements of that fact are shown too, in the first hit's
      context (``current_value``: found by meaning, one extra vector search; off: nothing added).

    What the model is then shown, and in how many tokens (``token_budget``), is the context stage's
    (``ContextConfig``, a recipe's ``context``).
    """

    signals: tuple[SignalSpec, ...] = (SignalSpec(Signal.VECTOR),)
    filters: FilterConfig = FilterConfig()
    fusion: FusionConfig = FusionConfig()
    boosts: BoostConfig = BoostConfig()
    context_boost: ContextBoostConfig = ContextBoostConfig()
    rerank: RerankConfig = RerankConfig()
    order: OrderConfig = OrderConfig()
    k: int | None = 10
    window: int = 0
    skip_shown: bool = False
    current_value: bool = False

    def __post_init__(self) -> None:
        specs = tuple(s if isinstance(s, SignalSpec) else SignalSpec(check_choice(Signal, s, "signals"))
                      for s in check_list(self.signals, "signals"))
        names = [s.name for s in specs]
        if not specs or len(set(names)) != len(names):
            raise InvalidInputError(f"signals must be a non-empty list of distinct signals from {SIGNALS}, "
                                    f"got {self.signals!r}")
        object.__setattr__(self, "signals", tuple(sorted(specs, key=lambda s: list(Signal).index(s.name))))
        for name, group in GROUPS.items():
            value = getattr(self, name)
            if not isinstance(value, group):
                raise InvalidInputError(f"{name} must be a {group.__name__}, got {value!r} (flat names go "
                                        f"through with_: RetrievalConfig().with_({name}=...))")
        check_optional_count(self.k, "k", lo=1)
        check_count(self.window, "window", lo=0)
        if not isinstance(self.skip_shown, bool):
            raise InvalidInputError(f"skip_shown must be True or False, got {self.skip_shown!r}")
        if not isinstance(self.current_value, bool):
            raise InvalidInputError(f"current_value must be True or False, got {self.current_value!r}")
        if self.filters.floor is not None and not self.uses(Signal.VECTOR):
            raise InvalidInputError("filters.floor is a cosine similarity: it needs the vector signal among the "
                                    "signals")

    @property
    def token_budget(self) -> None:
        """Moved: the budget is the context stage's (``recipe.context.token_budget``)."""
        raise AttributeError(MOVED_BUDGET)

    def uses(self, signal: Signal | str) -> bool:
        """Whether ``signal`` is among the signals that run."""
        return any(s.name == signal for s in self.signals)

    def spec(self, signal: Signal | str) -> SignalSpec:
        """The spec of ``signal`` (``InvalidInputError`` when it does not run)."""
        for s in self.signals:
            if s.name == signal:
                return s
        raise InvalidInputError(f"{signal} is not among the signals "
                                f"({', '.join(s.name for s in self.signals)})")

    def with_(self, **changes: Any) -> RetrievalConfig:
        """A copy with some fields changed (the original is untouched). Besides the fields (groups whole,
        ``signals``, ``k``, ``window``, ``skip_shown``), the flat names of ``SHORTHANDS`` change one
        setting inside a group: ``fusion="weighted"`` (a method, not a ``FusionConfig``), ``rrf_k``,
        ``speaker_weight``, ``date_weight``, ``neighbour_weight``, ``session_weight``, ``rerank="bm25"``,
        ``rerank_pool``, ``order="recency"``, ``recency_pool``, ``kinds``, ``future_filter``,
        ``<signal>_pool`` (``text_pool``: bm25's) and ``weights`` (``(signal, weight)`` pairs or a mapping:
        the signals it names get its weights, the others 1). A name in ``signals`` keeps that signal's spec
        when it already runs. Fields are applied first, then the flat names; a pool or a weight for a
        signal that does not run is refused."""
        return _changed(self, changes, lenient=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``signals`` as a list of ``{"name", "pool", "weight"}``, each group as an object of
        its fields (enums as their strings, tuples as lists)."""
        return {"signals": [s.to_dict() for s in self.signals],
                **{name: getattr(self, name).to_dict() for name in GROUPS},
                "k": self.k, "window": self.window, "skip_shown": self.skip_shown,
                **({"current_value": True} if self.current_value else {})}  # written when on: older JSON stays

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrievalConfig:
        """The config ``to_dict`` wrote (missing fields take their defaults; unknown ones are refused). The
        flat form of configs written before the groups is read too (``{"signals": ["vector", "bm25"],
        "vector_pool": 100, "fusion": "weighted", ...}``, each flat name as ``with_`` reads it); it held
        every signal's pool, so the pool of a signal that does not run is checked and then left out. A
        ``token_budget`` (configs written before it moved to ``ContextConfig``) is read by
        ``Recipe.from_dict``, which moves it; here only ``None`` is taken (and left out)."""
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"RetrievalConfig must be given a mapping, got {type(data).__name__}")
        if "token_budget" in data:
            if data["token_budget"] is not None:
                raise InvalidInputError(MOVED_BUDGET + " (Recipe.from_dict reads it from a recipe's retrieval)")
            data = {n: v for n, v in data.items() if n != "token_budget"}
        unknown = set(data) - set(FIELDS) - set(SHORTHANDS)
        if unknown:
            raise InvalidInputError(f"unknown RetrievalConfig fields {sorted(unknown)}")
        fields: dict[str, Any] = {}
        flat = {}
        for name, value in data.items():
            if name == "signals":
                fields[name] = tuple(SignalSpec.from_dict(s) if isinstance(s, Mapping) else s
                                     for s in check_list(value, "signals"))
            elif name in GROUPS and isinstance(value, Mapping):
                fields[name] = GROUPS[name].from_dict(value)
            elif name in GROUPS and name not in GROUPED:
                raise InvalidInputError(f"{name} must be an object of {GROUPS[name].__name__} fields, "
                                        f"got {value!r}")
            elif name in FIELDS and name not in GROUPS:
                fields[name] = value
            else:
                flat[name] = value
        return _changed(cls(**fields), flat, lenient=True)


FIELDS = tuple(f.name for f in dataclasses.fields(RetrievalConfig))
CHANGES = (*FIELDS, *(n for n in SHORTHANDS if n not in FIELDS))  # what ``with_`` takes


def _weights(value: object) -> dict[Signal, float]:
    pairs = list(value.items()) if isinstance(value, Mapping) else check_list(value, "weights")
    out: dict[Signal, float] = {}
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise InvalidInputError(f"weights must be (signal, weight) pairs, got {pair!r}")
        signal = check_choice(Signal, pair[0], "a weight's signal")
        if signal in out:
            raise InvalidInputError(f"weights name each signal at most once; {signal} is repeated")
        out[signal] = check_weight(pair[1], f"the weight of {signal}")
    return out


def _changed(config: RetrievalConfig, changes: dict[str, Any], *, lenient: bool) -> RetrievalConfig:
    """``config`` with ``changes``: fields first, then flat names (``with_``). ``lenient``: a flat pool of a
    signal that does not run is checked and left out (the flat form held every signal's pool)."""
    if "token_budget" in changes:
        raise InvalidInputError(MOVED_BUDGET)
    unknown = set(changes) - set(CHANGES)
    if unknown:
        raise InvalidInputError(f"unknown RetrievalConfig fields {sorted(unknown)}")
    whole = {n: v for n, v in changes.items()
             if n in FIELDS and (n not in _EITHER or isinstance(v, GROUPS[n]))}
    flat = {n: v for n, v in changes.items() if n not in whole}
    groups: dict[str, dict[str, Any]] = {}
    for name, value in flat.items():
        if name in GROUPED:
            group, field = GROUPED[name]
            groups.setdefault(group, {})[field] = value
    for group, fields in groups.items():  # with the fields, so checks across groups see the final config
        whole[group] = dataclasses.replace(whole.get(group, getattr(config, group)), **fields)
    if "signals" in whole:  # a name of a running signal keeps its spec
        runs = {s.name: s for s in config.signals}
        whole["signals"] = tuple(s if isinstance(s, SignalSpec) else runs.get(check_choice(Signal, s, "signals"), s)
                                 for s in check_list(whole["signals"], "signals"))
    out = dataclasses.replace(config, **whole) if whole else config
    pools: dict[Signal, int] = {}
    for name, value in flat.items():
        if name in POOLS:
            signal = POOLS[name]
            check_count(value, f"the pool of {signal} ({name})", lo=1)
            if signal in pools:
                raise InvalidInputError(f"{name}: the pool of {signal} is given twice")
            if out.uses(signal):
                pools[signal] = value
            elif not lenient:
                raise InvalidInputError(f"{name}: {signal} is not among the signals "
                                        f"({', '.join(s.name for s in out.signals)})")
    weights = _weights(flat["weights"]) if "weights" in flat else None
    stray = sorted(set(weights or ()) - {s.name for s in out.signals})
    if stray:
        raise InvalidInputError(f"weights name only signals of the config; {', '.join(stray)} not among them")
    specs = tuple(SignalSpec(s.name, pools.get(s.name, s.pool),
                             s.weight if weights is None else weights.get(s.name, 1.0)) for s in out.signals)
    return out if specs == out.signals else dataclasses.replace(out, signals=specs)


K_BASE = 10  # ``scale_k``'s k at its base of 50 sessions ...
K_MAX = 50  # ... and its most


def scale_k(n_sessions: int, *, base_k: int = K_BASE, base_sessions: int = 50, lo: int = 5, hi: int = K_MAX) -> int:
    """k from the haystack size, through the study's two points: ~10 at ~50 sessions, ~20 at ~500.

    k = base_k * (sessions / base_sessions) ** log10(2), so every tenfold growth doubles k; clamped to
    [lo, hi].
    """
    if n_sessions <= 0:
        return lo
    return max(lo, min(hi, round(base_k * growth(n_sessions, base_sessions))))


def growth(n_sessions: int, base_sessions: int = 50) -> float:
    """``scale_k``'s law as a factor: (sessions / base_sessions) ** log10(2), 1 at the base, doubling with each
    tenfold growth (0 for no sessions). The current-value stage grows its selection by it too."""
    return (n_sessions / base_sessions) ** math.log10(2) if n_sessions > 0 else 0.0


__all__ = [
    "CHANGES", "DATE", "DEFAULT_POOLS", "FIELDS", "KINDS", "MOVED_BUDGET", "NEIGHBOUR", "SESSION", "SHORTHANDS",
    "SIGNALS", "SPEAKER", "K_BASE", "K_MAX", "BoostConfig", "ContextBoostConfig", "FilterConfig", "Fusion",
    "FusionConfig", "Order", "OrderConfig", "Rerank", "RerankConfig", "RetrievalConfig", "Signal", "SignalSpec",
    "growth", "scale_k",
]
