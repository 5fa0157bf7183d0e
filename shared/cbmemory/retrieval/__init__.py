"""Retrieval: configuration as data (``RetrievalConfig``, one frozen group per stage), named recipes,
fusion, re-rank and entities. What the model then reads is the context stage's work (``cbmemory.context``).
``RECIPES`` holds the product's recipes; ``get_recipe`` and ``all_recipes`` also reach those installed
packages add (entry-point group ``cbmemory.recipes``)."""

from ..text import content_words
from .config import RetrievalConfig, scale_k
from .engine import explain, retrieve
from .entities import extract_entities
from .recipes import RECIPES, Recipe, all_recipes, get_recipe, plugin_recipes
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

__all__ = [
    "RECIPES", "BoostConfig", "ContextBoostConfig", "FilterConfig", "Fusion", "FusionConfig", "Order",
    "OrderConfig", "Recipe", "Rerank", "RerankConfig", "RetrievalConfig", "Signal", "SignalSpec", "all_recipes",
    "content_words", "explain", "extract_entities", "get_recipe", "plugin_recipes", "retrieve", "scale_k",
]
