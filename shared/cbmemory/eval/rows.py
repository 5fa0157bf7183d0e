"""The rows of an evaluation's interaction matrix: recipes (each carrying its whole ``Recipe``), baselines
and peers, at every haystack variant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import CbMemoryError
from ..retrieval.recipes import Recipe, get_recipe
from .baselines import BASELINES


class EvalSetupError(CbMemoryError):
    """The output folder holds a run with other settings, or the run is asked for something impossible."""


@dataclass(frozen=True)
class Row:
    """One row of the interaction matrix."""

    name: str
    kind: str  # "recipe" | "baseline" | "peer"
    target: str  # recipe, baseline or peer name
    variant: str  # haystack variant label ("x1", "x10", ...)
    recipe: Recipe | None = None

    def stamp(self) -> dict[str, Any] | None:
        """The serialised recipe (``Recipe.to_dict``) of a recipe row; ``None`` for baselines and peers."""
        return self.recipe.to_dict() if self.recipe is not None else None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "variant": self.variant, "recipe": self.stamp()}


def plan_rows(recipes: Sequence[str | Recipe], variants: Sequence[str], *,
              baselines: Sequence[str] = BASELINES, peers: Sequence[str] = ()) -> list[Row]:
    """Rows for every recipe (and baseline and peer) at every haystack variant. With one variant the
    names are the plain recipe names; with several they get ``@<variant>``."""
    rows: list[Row] = []
    for v in variants:
        suffix = "" if len(variants) == 1 else f"@{v}"
        for r in recipes:
            recipe = get_recipe(r)
            rows.append(Row(recipe.name + suffix, "recipe", recipe.name, v, recipe))
        for b in baselines:
            if b not in BASELINES:
                raise EvalSetupError(f"unknown baseline {b!r}; known: {', '.join(BASELINES)}")
            rows.append(Row(b + suffix, "baseline", b, v))
        for p in peers:
            rows.append(Row(p + suffix, "peer", p, v))
    names = [r.name for r in rows]
    if len(set(names)) != len(names):
        raise EvalSetupError(f"two rows share a name: {names}")
    return rows


__all__ = ["EvalSetupError", "Row", "plan_rows"]
