"""Recipes: a name, what it is for, and the settings of the three stages it bundles: the ingest settings
its records are made with (``cbmemory.ingest``), the retrieval that searches them (``cbmemory.retrieval``)
and what the model is shown of them, within how many tokens (``cbmemory.context``). This package sits above
those stages; none of them imports it. ``RECIPES`` names the product's recipes; ``get_recipe`` and
``all_recipes`` also reach those installed packages add (entry-point group ``cbmemory.recipes``)."""

from .mismatch import recipe_mismatch
from .named import (
           ENTRY_POINTS,
           READER_BUDGET,
           RECIPES,
           RELEVANCE_FLOOR,
           all_recipes,
           get_recipe,
           plugin_recipes,
)
from .recipe import Recipe
from .search import recipe_hits

__all__ = ["ENTRY_POINTS", "READER_BUDGET", "RECIPES", "RELEVANCE_FLOOR", "Recipe", "all_recipes", "get_recipe",
           "plugin_recipes", "recipe_hits", "recipe_mismatch"]
