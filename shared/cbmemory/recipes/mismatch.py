"""Whether a recipe expects records made otherwise than a memory makes them (``RecipeMismatchWarning``): a
pure function of the recipe and the memory's ingest settings.

What matters is what changes the records a search reads: the date prefix (``anchor_dates``), the unit
(turns or rounds), the relative-date rules written into the index, the kinds a recipe searches, and sparse
vectors for a recipe that searches them. What only adds words to a record's index text — the turn it
answers (``with_previous_turn``), annotation values, facts an enricher adds —, derives records of other
kinds or links records to the ones they change (``link_updates``) does not: any recipe searches such records as it would its own, so switching recipes on one memory
(``search(..., recipe="hybrid")`` on the default's records) is silent."""

from __future__ import annotations

import dataclasses

from ..ingest import IngestConfig
from ..retrieval.config import Signal
from .recipe import Recipe

_MADE_BY = {"summary": "summary", "event": "events"}  # derived record kinds and the enrich mode making them


def recipe_mismatch(recipe: Recipe, ingest: IngestConfig) -> str | None:
    """What is wrong with searching records made with ``ingest`` by ``recipe`` (``None``: nothing). Whether
    records carry sparse vectors matters only to a recipe that searches them."""
    uses_sparse = recipe.retrieval.uses(Signal.SPARSE)

    def relevant(config: IngestConfig) -> IngestConfig:
        return dataclasses.replace(config, with_previous_turn=False, index_annotation_keys=(), enrich=None,
                                   sparse=config.sparse if uses_sparse else None, link_updates=False)

    made = set(ingest.enrich.modes) if ingest.enrich is not None else set()
    missing = sorted(k for k in recipe.retrieval.filters.kinds or () if k in _MADE_BY and _MADE_BY[k] not in made)
    if relevant(recipe.ingest) == relevant(ingest) and not missing:
        return None
    what = (f"it searches {', '.join(missing)} records, which this memory does not make (its ingest has no "
            f"such enrich mode), so it can find nothing" if missing else
            f"it was made for records indexed as {recipe.ingest.key!r}, but this memory indexes them as "
            f"{ingest.key!r}")
    return (f"recipe {recipe.name!r}: {what}. Open the memory with recipe={recipe.name!r} (or "
            "ingest=recipe.ingest) to write records the way it expects.")


__all__ = ["recipe_mismatch"]
