"""The rows of an evaluation's interaction matrix: recipes (each carrying its whole ``Recipe``), baselines
and peers, at every haystack variant. By default a run adds a BM25-only row and the oracle and
full-context baselines beside its recipes (``EXTRA_ROWS``); ``parse_extra_rows`` reads which of them to
add (``--baselines``), ``none`` for none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cbmemory import CbMemoryError
from cbmemory.recipes import Recipe, get_recipe

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


# The rows a run adds beside its recipes unless told otherwise: the BM25-only recipe (a recipe row, added
# when not among the recipes) and the two baselines. LLM runs may leave them out: full_context overflows a
# small model's window and every extra row costs model time.
EXTRA_ROWS = ("bm25", *BASELINES)
NO_EXTRA_ROWS = "none"


def parse_extra_rows(text: str | None) -> tuple[str, ...]:
    """The extra rows named by ``--baselines``: a comma-separated subset of ``EXTRA_ROWS``, in that order;
    ``none`` (or nothing) for none. Unknown names raise ``EvalSetupError``."""
    names = [p.strip() for p in (text or "").split(",") if p.strip()]
    if names == [NO_EXTRA_ROWS]:
        return ()
    unknown = [n for n in names if n not in EXTRA_ROWS]
    if unknown:
        raise EvalSetupError(f"unknown extra row {unknown[0]!r} in --baselines; known: {', '.join(EXTRA_ROWS)}, or "
                             f"{NO_EXTRA_ROWS!r} for none")
    return tuple(n for n in EXTRA_ROWS if n in names)


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


__all__ = ["EXTRA_ROWS", "EvalSetupError", "NO_EXTRA_ROWS", "Row", "parse_extra_rows", "plan_rows"]
