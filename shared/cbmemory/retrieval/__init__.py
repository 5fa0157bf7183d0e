"""Retrieval: configuration as data, named recipes, fusion, re-rank and entities. What the model then reads
is the context stage's work (``cbmemory.context``)."""

from .config import Fusion, Order, Rerank, RetrievalConfig, Signal, scale_k
from .engine import explain, retrieve
from .entities import extract_entities
from .recipes import RECIPES, Recipe, get_recipe

__all__ = [
    "RECIPES", "Fusion", "Order", "Recipe", "Rerank", "RetrievalConfig", "Signal", "explain", "extract_entities",
    "get_recipe", "retrieve", "scale_k",
]
