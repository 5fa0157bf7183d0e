"""The recipes a name reaches: ``RECIPES``, the product's few, each with one line on when to choose it, and
those installed packages add through the entry-point group ``cbmemory.recipes`` (the evaluation,
``cbmemory-eval``, adds the study's rows), which ``get_recipe`` finds by name too. Derive new ones with
``recipe.with_(...)``; never mutate."""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Mapping
from types import MappingProxyType

from ..errors import InvalidInputError
from ..ingest import EnrichConfig, IngestConfig
from ..retrieval.config import (
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
from .recipe import Recipe

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
    "unrelated to the question (below a relevance floor) not shown; a question about the user themself also "
    "gets the user's latest statements on the matter it asks about. Start here.",
    floor=RELEVANCE_FLOOR, current_value=True,
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


__all__ = ["ENTRY_POINTS", "READER_BUDGET", "RECIPES", "RELEVANCE_FLOOR", "all_recipes", "get_recipe", "plugin_recipes"]
