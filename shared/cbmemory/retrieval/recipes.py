"""Recipes: a name, what it is for, the ingest settings its records are made with and the retrieval that
searches them. Frozen, serialisable data (``to_json`` / ``from_json`` round-trip exactly). ``RECIPES`` names
the product's few, each with one line on when to choose it; installed packages add more through the
entry-point group ``cbmemory.recipes`` (the evaluation, ``cbmemory-eval``, adds the study's rows), and
``get_recipe`` finds those by name too. Derive new ones with ``recipe.with_(...)``; never mutate.

    custom = RECIPES["hybrid"].with_(name="hybrid_20", k=20)   # retrieval settings pass through
    text = custom.to_json()                                    # what the evaluation stamps on each row
    assert Recipe.from_json(text) == custom
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..context import ContextConfig
from ..errors import InvalidInputError
from ..ingest import DEFAULT_INGEST, EnrichConfig, IngestConfig
from .config import CHANGES as RETRIEVAL_CHANGES
from .config import (
    ContextBoostConfig,
    FilterConfig,
    Fusion,
    FusionConfig,
    Order,
    OrderConfig,
    RetrievalConfig,
    Signal,
    SignalSpec,
)

# A name is also a file name (the evaluation writes questions/<name>.jsonl) and a row label ("@" marks a
# haystack scale there): letters, digits, "_" and "-".
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
_DEFAULT_RETRIEVAL = RetrievalConfig()
_DEFAULT_CONTEXT = ContextConfig()


@dataclass(frozen=True, slots=True)
class Recipe:
    """A named way of storing and searching memories.

    - ``name``: letters, digits, ``_`` and ``-`` (at most 64); stamped on every hit it returns.
    - ``description``: one line for people (``cbmemory recipes``).
    - ``ingest``: the ``IngestConfig`` its records are made with (an ``AgentMemory`` opened with the recipe
      writes that way unless given its own ``ingest``).
    - ``retrieval``: the ``RetrievalConfig`` that searches them.
    - ``context``: the ``ContextConfig`` of what the answering model reads (date prefix, relative dates
      resolved in place, "Today is ...").
    """

    name: str
    description: str = ""
    ingest: IngestConfig = DEFAULT_INGEST
    retrieval: RetrievalConfig = _DEFAULT_RETRIEVAL
    context: ContextConfig = _DEFAULT_CONTEXT

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise InvalidInputError(f"a recipe name is 1 to 64 letters, digits, '_' or '-' (starting with a "
                                    f"letter or digit), got {self.name!r}")
        if not isinstance(self.description, str):
            raise InvalidInputError(f"description must be a string, got {type(self.description).__name__}")
        if not isinstance(self.ingest, IngestConfig):
            raise InvalidInputError(f"ingest must be an IngestConfig, got {type(self.ingest).__name__}")
        if not isinstance(self.retrieval, RetrievalConfig):
            raise InvalidInputError(f"retrieval must be a RetrievalConfig, got {type(self.retrieval).__name__}")
        if not isinstance(self.context, ContextConfig):
            raise InvalidInputError(f"context must be a ContextConfig, got {type(self.context).__name__}")

    def with_(self, **changes: Any) -> Recipe:
        """A copy with some fields changed (the original is untouched). Besides ``name``, ``description``,
        ``ingest``, ``retrieval`` and ``context``, what ``RetrievalConfig.with_`` takes may be given directly
        (its fields and flat names): ``recipe.with_(name="mine", k=20, vector_pool=100)`` changes the copy's
        ``retrieval``."""
        own = {key: changes.pop(key) for key in FIELDS if key in changes}
        unknown = set(changes) - set(RETRIEVAL_CHANGES)
        if unknown:
            raise InvalidInputError(f"unknown Recipe or RetrievalConfig fields {sorted(unknown)}")
        if changes:
            base = own.get("retrieval", self.retrieval)
            if not isinstance(base, RetrievalConfig):
                raise InvalidInputError(f"retrieval must be a RetrievalConfig, got {type(base).__name__}")
            own["retrieval"] = base.with_(**changes)
        return dataclasses.replace(self, **own)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"name", "description", "ingest": {...}, "retrieval": {...}, "context": {...}}``."""
        return {"name": self.name, "description": self.description, "ingest": self.ingest.to_dict(),
                "retrieval": self.retrieval.to_dict(), "context": self.context.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recipe:
        """The recipe ``to_dict`` wrote. ``name`` is required; a missing ``description``, ``ingest``,
        ``retrieval`` or ``context`` (or a missing field inside them) takes its default; unknown fields and
        values raise ``InvalidInputError``. ``retrieval`` may be in the flat form recipes were stamped with
        before its groups (``RetrievalConfig.from_dict``)."""
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"a recipe must be a JSON object, got {type(data).__name__}")
        unknown = set(data) - set(FIELDS)
        if unknown:
            raise InvalidInputError(f"unknown Recipe fields {sorted(unknown)}")
        if "name" not in data:
            raise InvalidInputError("a recipe needs a name")
        ingest = data.get("ingest")
        retrieval = data.get("retrieval")
        context = data.get("context")
        return cls(data["name"], data.get("description", ""),
                   IngestConfig.from_dict(ingest) if ingest is not None else DEFAULT_INGEST,
                   RetrievalConfig.from_dict(retrieval) if retrieval is not None else _DEFAULT_RETRIEVAL,
                   ContextConfig.from_dict(context) if context is not None else _DEFAULT_CONTEXT)

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Recipe:
        """The recipe ``to_json`` wrote; text that is not JSON raises ``InvalidInputError`` too."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"a recipe must be JSON: {exc}") from None
        return cls.from_dict(data)


FIELDS = tuple(f.name for f in dataclasses.fields(Recipe))

# The product's recipes. Why each number is what it is (the study's measurements) is told in the study's
# docs, cbmemory_eval/README.md; here each says what it does and when to choose it.
READER_BUDGET = 2_048  # tokens of one context: leaves a 4k-token reader room for its instructions and answer
# Turns indexed with the turn they answer (a reply is found by the words of the question it answers).
PAIRED_INGEST = IngestConfig(with_previous_turn=True)
DEFAULT_NO_WINDOW = Recipe(
    "default_no_window",
    "Vector + BM25 over turns indexed with the turn they answer, weighted score fusion, turns next to a strong "
    "match and turns of strongly matching sessions lifted; hits alone. Choose it when each hit is read on its "
    "own or the context must stay small.",
    ingest=PAIRED_INGEST,
    retrieval=RetrievalConfig(
        signals=(SignalSpec(Signal.VECTOR, pool=100, weight=0.75), SignalSpec(Signal.BM25, pool=100)),
        fusion=FusionConfig(Fusion.WEIGHTED),
        context_boost=ContextBoostConfig(neighbour_weight=0.5, session_weight=0.5),
    ),
)
# The relevance floor (a cosine, ``FilterConfig.floor``): no memory less similar to the question is shown, so
# an unrelated question gets none. Chosen by leave-one-conversation-out CV on LoCoMo dev (MiniLM): the highest
# floor under which none of the 7 conversations a fold sees loses more than 0.5 points of recall@10 (7 of 8
# folds; held-out loss 0.38 points on average; experiments/relevance_floor/README.md).
RELEVANCE_FLOOR = 0.18
DEFAULT_NO_FLOOR = DEFAULT_NO_WINDOW.with_(
    name="default_no_floor",
    description="The default without its relevance floor: every question gets its k best memories, however "
    "unrelated. Choose it when the reader should always see something (a browser of the memory, a study).",
    window=1, skip_shown=True, token_budget=READER_BUDGET,
)
DEFAULT = DEFAULT_NO_FLOOR.with_(
    name="default",
    description="Vector + BM25 over turns indexed with the turn they answer, weighted score fusion, turns next "
    "to a strong match and turns of strongly matching sessions lifted; each hit shown with the turns before "
    "and after it (a hit inside another's window gives its place to the next), within 2,048 tokens; memories "
    "unrelated to the question (below a relevance floor) not shown. Start here.",
    floor=RELEVANCE_FLOOR,
)
DEFAULT_SPARSE = DEFAULT.with_(
    name="default_sparse",
    description="Vector + BM25 + SPLADE-tiny learned sparse vectors, weighted score fusion, over turns indexed "
    "with the turn they answer, each hit with its neighbouring turns. Choose it for a few points more recall "
    "when ingest can afford a sparse encoding of every record (records ingested with this recipe).",
    ingest=dataclasses.replace(PAIRED_INGEST, sparse="splade-tiny-f16-top128"),
    signals=(*DEFAULT.retrieval.signals, SignalSpec(Signal.SPARSE, pool=100, weight=0.75)),
)
VECTOR = Recipe(
    "vector",
    "Cosine similarity of the question's embedding with date-anchored turns. Choose it for questions worded "
    "unlike the memory they ask about, or as the plain dense baseline.",
)
BM25 = Recipe(
    "bm25",
    "BM25 full-text ranking (stemmed words) over the user's own turns. Choose it when questions repeat the "
    "memory's exact words: names, titles, numbers.",
    retrieval=RetrievalConfig(signals=(SignalSpec(Signal.BM25),)),
)
HYBRID = Recipe(
    "hybrid",
    "Vector + BM25 + exact entity phrases from the question, reciprocal-rank fused. Choose it for questions "
    "that name an event, a person or a place; it costs some precision on questions spanning sessions.",
    retrieval=RetrievalConfig(signals=(SignalSpec(Signal.VECTOR), SignalSpec(Signal.BM25),
                                       SignalSpec(Signal.ENTITY))),
)
RECENCY = VECTOR.with_(
    name="recency",
    description="The 30 best vector matches, newest first. Choose it when the latest state matters more than "
    "the best match (a preference, a current plan); it hurts questions about when or across sessions.",
    order=OrderConfig(Order.RECENCY),
)
EVENTS_RAW = HYBRID.with_(
    name="events_raw",
    description="Vector + BM25 + entity phrases over raw turns and dated events an LLM extracts at ingest. "
    "Choose it when an ingest-time LLM is available (an AgentMemory with an Enricher) and questions ask "
    "what happened when.",
    ingest=IngestConfig(enrich=EnrichConfig(modes=("summary", "events"))),
    filters=FilterConfig(kinds=("turn", "event")),
)
RECIPES: MappingProxyType[str, Recipe] = MappingProxyType({
    r.name: r for r in (DEFAULT, DEFAULT_SPARSE, DEFAULT_NO_WINDOW, DEFAULT_NO_FLOOR, VECTOR, BM25, HYBRID, RECENCY, EVENTS_RAW)
})

# Recipes that installed packages add: each entry point of this group names a mapping of recipe names to
# ``Recipe`` s (``cbmemory-eval`` registers the study's rows). Read once, on the first name the core lacks.
ENTRY_POINTS = "cbmemory.recipes"


@functools.lru_cache(maxsize=1)
def plugin_recipes() -> Mapping[str, Mapping[str, Recipe]]:
    """The recipes installed packages add (entry-point group ``cbmemory.recipes``), by distribution name:
    ``{"cbmemory-eval": {"vector_no_dates": Recipe(...), ...}}``. A name the core already has, or a second
    package's, is not taken again; an entry point that cannot load is left out with a warning."""
    from importlib.metadata import entry_points

    out: dict[str, dict[str, Recipe]] = {}
    taken = set(RECIPES)
    for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: (e.dist.name if e.dist else "", e.name)):
        source = ep.dist.name if ep.dist is not None else ep.value
        try:
            found = ep.load()
            if callable(found):
                found = found()
            if not isinstance(found, Mapping) or not all(
                    isinstance(r, Recipe) and r.name == n for n, r in found.items()):
                raise TypeError("not a mapping of recipe names to Recipes named so")
        except Exception as exc:  # noqa: BLE001 - a broken package must not break the core's recipes
            warnings.warn(f"recipes of {source} ({ep.value}) left out: {type(exc).__name__}: {exc}",
                          RuntimeWarning, stacklevel=2)
            continue
        mine = out.setdefault(source, {})
        for name, recipe in found.items():
            if name not in taken:
                mine[name] = recipe
                taken.add(name)
    return MappingProxyType({k: MappingProxyType(v) for k, v in out.items() if v})


def all_recipes() -> Mapping[str, Recipe]:
    """Every recipe a name reaches: the core's ``RECIPES``, then those installed packages add."""
    merged = dict(RECIPES)
    for recipes in plugin_recipes().values():
        merged.update(recipes)
    return MappingProxyType(merged)


def get_recipe(recipe: str | Recipe) -> Recipe:
    """A named recipe (the core's, or one an installed package adds), or ``recipe`` itself when it already
    is one."""
    if isinstance(recipe, Recipe):
        return recipe
    if isinstance(recipe, RetrievalConfig):
        raise InvalidInputError("a RetrievalConfig is not a recipe: wrap it, Recipe('my_recipe', retrieval=config)"
                                " (with the ingest settings its records were made with)")
    if not isinstance(recipe, str):
        raise InvalidInputError(f"a recipe is a name or a Recipe, got {type(recipe).__name__}")
    found = RECIPES.get(recipe)
    if found is not None:
        return found
    known = all_recipes()
    if recipe in known:
        return known[recipe]
    more = "" if plugin_recipes() else " (the study's recipes come with `pip install cbmemory-eval`)"
    raise InvalidInputError(f"unknown recipe {recipe!r}; known: {', '.join(known)}{more}")


__all__ = ["ENTRY_POINTS", "RECIPES", "Recipe", "all_recipes", "get_recipe", "plugin_recipes"]
