"""Retrieval: configuration as data, named recipes, fusion, re-rank, entities and context formatting."""

from .config import Fusion, Order, Rerank, RetrievalConfig, Signal, scale_k
from .context import FormattedContext, answer_messages, count_tokens, format_context, today_line
from .engine import explain, retrieve
from .entities import extract_entities
from .recipes import RECIPES, Recipe, get_recipe

__all__ = [
    "RECIPES", "FormattedContext", "Fusion", "Order", "Recipe", "Rerank", "RetrievalConfig", "Signal",
    "answer_messages", "count_tokens", "explain", "extract_entities", "format_context", "get_recipe", "retrieve",
    "scale_k", "today_line",
]
