"""Retrieval: configuration as data (``RetrievalConfig``, one frozen group per stage), the engine that runs
it, fusion, re-rank and entities. What the model then reads, within how many tokens, is the context stage's
work (``cbmemory.context``). Recipes, which bundle a retrieval with its ingest and context settings, are
``cbmemory.recipes`` (above this package; ``cbmemory.Recipe`` at the root)."""

from ..text import content_words
from .config import RetrievalConfig, scale_k
from .engine import explain, retrieve
from .entities import extract_entities
from .stages import (
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
)

_MOVED = frozenset({"RECIPES", "Recipe", "all_recipes", "get_recipe", "plugin_recipes"})


def __getattr__(name: str) -> object:
    if name in _MOVED:  # moved in issue 32: an error that says where, for one release (an ImportError, as
        # `from cbmemory.retrieval import Recipe` would replace an AttributeError's message with its own)
        raise ImportError(f"cbmemory.retrieval.{name} moved to cbmemory.recipes: "
                          f"from cbmemory.recipes import {name} (or from cbmemory import {name})")
    raise AttributeError(f"module 'cbmemory.retrieval' has no attribute {name!r}")


__all__ = [
    "BoostConfig", "ContextBoostConfig", "FilterConfig", "Fusion", "FusionConfig", "Order",
    "OrderConfig", "Rerank", "RerankConfig", "RetrievalConfig", "Signal", "SignalSpec",
    "content_words", "explain", "extract_entities", "retrieve", "scale_k",
]
