"""Moved in issue 32: recipes sit above the stages they bundle, in ``cbmemory.recipes``. Importing this
module says so (for one release; then it goes)."""

raise ImportError("cbmemory.retrieval.recipes moved to cbmemory.recipes: from cbmemory.recipes import RECIPES, "
                  "Recipe, get_recipe (or from cbmemory import RECIPES, Recipe, get_recipe)")
