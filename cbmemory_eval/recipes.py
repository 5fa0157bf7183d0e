"""The study's recipes: the rows of the evaluation's matrix that are not product recipes (ablations,
baselines, earlier defaults and opt-in variants). Registered under the entry-point group
``cbmemory.recipes``, so that ``cbmemory.retrieval.get_recipe`` (and with it ``AgentMemory.search``, the
command line and the evaluation) finds each by name once this package is installed.

Each row is derived from a product recipe (``cbmemory.retrieval.RECIPES``) or defined whole; why its numbers
are what they are is told in README.md beside this file ("Where the recipes' numbers come from").
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

from cbmemory.context import ContextConfig
from cbmemory.ingest import EnrichConfig, IngestConfig
from cbmemory.recipes import RECIPES, Recipe
from cbmemory.retrieval import (
    BoostConfig,
    FilterConfig,
    Fusion,
    FusionConfig,
    Rerank,
    RerankConfig,
    RetrievalConfig,
    Signal,
    SignalSpec,
)

VECTOR, BM25, HYBRID = RECIPES["vector"], RECIPES["bm25"], RECIPES["hybrid"]
DEFAULT = RECIPES["default_no_floor"]  # the rows of earlier defaults had no relevance floor (issue 30)

VECTOR_NO_DATES = VECTOR.with_(
    name="vector_no_dates",
    description="Vector search over undated turns, read without dates (the study's no-dates baseline).",
    ingest=IngestConfig(anchor_dates=False), context=ContextConfig(dates=False, resolve_dates=False),
)
VECTOR_BM25_RERANK_10 = VECTOR.with_(
    name="vector_bm25_rerank_10", description="The top 10 vector hits re-ranked by BM25+.",
    rerank=RerankConfig(Rerank.BM25, pool=10),
)
VECTOR_BM25_RERANK_50 = VECTOR_BM25_RERANK_10.with_(
    name="vector_bm25_rerank_50", description="The top 50 vector hits re-ranked by BM25+ down to k.",
    rerank=RerankConfig(Rerank.BM25, pool=50),
)
VECTOR_BM25_RERANK_100 = VECTOR_BM25_RERANK_10.with_(
    name="vector_bm25_rerank_100", description="The top 100 vector hits re-ranked by BM25+ down to k.",
    rerank=RerankConfig(Rerank.BM25, pool=100),
)
FUTURE_FILTER = VECTOR.with_(
    name="future_filter", description="Vector search without the memories dated after the question's date.",
    filters=FilterConfig(drop_future=True),
)
SCALED = HYBRID.with_(
    name="hybrid_scaled", description="Vector + BM25 + entity phrases, reciprocal-rank fused, with k chosen from "
    "the haystack size (10 at ~50 sessions, 20 at ~500).", k=None,
)
# Turns indexed with the turn they answer.
PAIRED_INGEST = IngestConfig(with_previous_turn=True)
DEFAULT_V1 = Recipe(
    "default_v1", "Vector + BM25 over turns indexed with the turn they answer, weighted score fusion (the "
    "default until retrieval v2).",
    ingest=PAIRED_INGEST,
    retrieval=RetrievalConfig(signals=(SignalSpec(Signal.VECTOR), SignalSpec(Signal.BM25)),
                              fusion=FusionConfig(Fusion.WEIGHTED)),
)
HYBRID_CONTEXT = HYBRID.with_(
    name="hybrid_context", description="Vector + BM25 + entity phrases, reciprocal-rank fused, over turns "
    "indexed with the turn they answer.",
    ingest=PAIRED_INGEST,
)
BM25_CONTEXT = BM25.with_(
    name="bm25_context", description="BM25 alone over turns indexed with the turn they answer.",
    ingest=PAIRED_INGEST,
)
# Relative dates resolved by rule at ingest ("yesterday [= 6 May 2023]" in the index text), nothing else
# changed, so the matrix shows that one effect (no LLM).
DATES_INGEST = IngestConfig(date_rules="rules-v2")
HYBRID_DATES = HYBRID.with_(
    name="hybrid_dates", description="Vector + BM25 + entity phrases, reciprocal-rank fused, over turns whose "
    "relative dates are resolved by rule at ingest.",
    ingest=DATES_INGEST,
)
VECTOR_DATES = VECTOR.with_(
    name="vector_dates", description="Vector search over turns whose relative dates are resolved by rule at ingest.",
    ingest=DATES_INGEST,
)
# LLM-assisted ingestion (needs an Enricher with a chat model; the evaluation skips these without one).
# One enriched store holds raw turns + session summaries + events; raw+facts changes the raw turns' index
# keys, so it has a store of its own (the extraction calls are shared through the cache).
ENRICHED_INGEST = IngestConfig(enrich=EnrichConfig(modes=("summary", "events")))
FACTS_INGEST = IngestConfig(enrich=EnrichConfig(modes=("facts",)))
SUMMARY = HYBRID.with_(
    name="summary", description="Vector + BM25 + entity phrases over LLM session summaries only (linked to "
    "their source turns).",
    ingest=ENRICHED_INGEST, filters=FilterConfig(kinds=("summary",)),
)
EVENTS = HYBRID.with_(
    name="events", description="Vector + BM25 + entity phrases over LLM-extracted events only (who, what, "
    "when, where; absolute dates).",
    ingest=ENRICHED_INGEST, filters=FilterConfig(kinds=("event",)),
)
RAW_FACTS = HYBRID.with_(
    name="raw_facts", description="Vector + BM25 + entity phrases over raw turns whose index keys carry "
    "LLM-extracted facts.",
    ingest=FACTS_INGEST, filters=FilterConfig(kinds=("turn",)),
)
QUESTION_DATES = DEFAULT_V1.with_(
    name="question_dates",
    description="Vector + BM25 over turns indexed with the turn they answer, weighted score fusion, with the "
    "memories dated inside the period the question names (\"in May 2023\", \"last week\") fused in as a "
    "third list.",
    boosts=BoostConfig(date_weight=1.0),
)
DEFAULT_V2 = DEFAULT.with_(
    name="default_v2",
    description="The default of retrieval v2: vector and BM25 weighted equally, and the first k candidates "
    "are the hits even when one lies inside another's window (the same passage shown twice).",
    skip_shown=False, weights={"vector": 1.0, "bm25": 1.0},
)
DEFAULT_V2_SCALE = DEFAULT.with_(
    name="default_v2_scale",
    description="Vector + BM25 over turns indexed with the turn they answer, weighted score fusion (vector "
    "0.75), pools of 200, turns next to a strong match and turns of strongly matching sessions lifted; each "
    "hit shown with the turns before and after it.",
    signals=(SignalSpec(Signal.VECTOR, pool=200, weight=0.75), SignalSpec(Signal.BM25, pool=200)),
    context_boost=dataclasses.replace(DEFAULT.retrieval.context_boost, session_weight=1.0),
)

# What the entry point ``cbmemory.recipes`` names: every study row by its name.
STUDY_RECIPES: MappingProxyType[str, Recipe] = MappingProxyType({
    r.name: r for r in (
        VECTOR_NO_DATES, VECTOR_BM25_RERANK_10, VECTOR_BM25_RERANK_50, VECTOR_BM25_RERANK_100, HYBRID_CONTEXT,
        BM25_CONTEXT, SCALED, FUTURE_FILTER, HYBRID_DATES, VECTOR_DATES, SUMMARY, EVENTS, RAW_FACTS,
        QUESTION_DATES, DEFAULT_V1, DEFAULT_V2, DEFAULT_V2_SCALE,
    )
})

__all__ = ["STUDY_RECIPES"]
