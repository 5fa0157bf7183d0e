"""The study's retrieval configurations, by name. Frozen: derive new ones with ``recipe.with_(...)``."""

from __future__ import annotations

from types import MappingProxyType

from ..enrich.config import EnrichConfig
from ..enrich.relative_dates import resolve_relative_dates
from ..errors import InvalidInputError
from ..ingest import IngestConfig
from .config import RetrievalConfig

VECTOR = RetrievalConfig(
    name="vector", description="Cosine similarity over date-anchored turns (the study's baseline).",
)
VECTOR_NO_DATES = VECTOR.with_(
    name="vector_no_dates", description="Vector search over turns indexed without their session date.",
    ingest=IngestConfig(anchor_dates=False),
)
BM25 = RetrievalConfig(
    name="bm25", description="Full-text BM25 (FTS5, Porter stemming) over the user's whole corpus.",
    signals=("bm25",),
)
VECTOR_BM25_RERANK_10 = VECTOR.with_(
    name="vector_bm25_rerank_10", description="Top 10 vector hits re-ranked by BM25+.",
    rerank="bm25", rerank_pool=10,
)
VECTOR_BM25_RERANK_50 = VECTOR_BM25_RERANK_10.with_(
    name="vector_bm25_rerank_50", description="Top 50 vector hits re-ranked by BM25+ down to k.", rerank_pool=50,
)
VECTOR_BM25_RERANK_100 = VECTOR_BM25_RERANK_10.with_(
    name="vector_bm25_rerank_100", description="Top 100 vector hits re-ranked by BM25+ down to k.",
    rerank_pool=100,
)
HYBRID = RetrievalConfig(
    name="hybrid", description="Vector + BM25 + entity phrases, reciprocal-rank fused over the union.",
    signals=("vector", "bm25", "entity"),
)
RECENCY = VECTOR.with_(
    name="recency", description="The 30 most relevant vector hits, returned newest first.", order="recency",
)
FUTURE_FILTER = VECTOR.with_(
    name="future_filter", description="Vector search without memories dated after the question date.",
    future_filter=True,
)
SCALED = HYBRID.with_(
    name="hybrid_scaled", description="Hybrid with k chosen from the haystack size (10 at ~50 sessions).", k=None,
)
# default: chosen from the LoCoMo dev retrieval matrix (evidence recall@10 over all five categories,
# offline MiniLM embedder, `cbmemory eval locomo`; see README "Choosing the default"): stemmed BM25
# alone (0.65) beat the vector baseline (0.45); indexing each turn with the turn it answers lifted BM25
# to 0.74; min-max weighted fusion with the vector list (equal weights, nothing tuned) kept that level
# where RRF (c=60) lost 5 points; with the raw turn as a second full-text field the recipe reaches 0.751
# and is the best row in every category. The entity signal added nothing there.
DEFAULT = RetrievalConfig(
    name="default",
    description="Vector + BM25 over turns indexed with the turn they answer, weighted score fusion.",
    signals=("vector", "bm25"),
    fusion="weighted",
    ingest=IngestConfig(with_previous_turn=True),
)
HYBRID_CONTEXT = HYBRID.with_(
    name="hybrid_context", description="The study's hybrid over turns indexed with the turn they answer.",
    ingest=DEFAULT.ingest,
)
BM25_CONTEXT = BM25.with_(
    name="bm25_context", description="BM25 alone over turns indexed with the turn they answer.",
    ingest=DEFAULT.ingest,
)
# Relative dates resolved by rule at ingest ("yesterday [= 6 May 2023]" in the index text), nothing else
# changed, so the matrix shows that one effect (no LLM).
DATES_INGEST = IngestConfig(date_resolver=resolve_relative_dates)
HYBRID_DATES = HYBRID.with_(
    name="hybrid_dates", description="Hybrid over turns whose relative dates are resolved by rule at ingest.",
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
    name="summary", description="Hybrid over LLM session summaries only (linked to their source turns).",
    ingest=ENRICHED_INGEST, kinds=("summary",),
)
EVENTS = HYBRID.with_(
    name="events", description="Hybrid over LLM-extracted events only (who/what/when/where, absolute dates).",
    ingest=ENRICHED_INGEST, kinds=("event",),
)
EVENTS_RAW = HYBRID.with_(
    name="events_raw", description="Hybrid over raw turns and LLM-extracted events together.",
    ingest=ENRICHED_INGEST, kinds=("turn", "event"),
)
RAW_FACTS = HYBRID.with_(
    name="raw_facts", description="Hybrid over raw turns whose index keys carry LLM-extracted facts.",
    ingest=FACTS_INGEST, kinds=("turn",),
)

RECIPES: MappingProxyType[str, RetrievalConfig] = MappingProxyType({
    r.name: r for r in (
        DEFAULT, VECTOR, VECTOR_NO_DATES, BM25, VECTOR_BM25_RERANK_10, VECTOR_BM25_RERANK_50,
        VECTOR_BM25_RERANK_100, HYBRID, HYBRID_CONTEXT, BM25_CONTEXT, SCALED, RECENCY, FUTURE_FILTER,
        HYBRID_DATES, VECTOR_DATES, SUMMARY, EVENTS, EVENTS_RAW, RAW_FACTS,
    )
})


def get_recipe(name_or_config: str | RetrievalConfig) -> RetrievalConfig:
    if isinstance(name_or_config, RetrievalConfig):
        return name_or_config
    try:
        return RECIPES[name_or_config]
    except KeyError:
        raise InvalidInputError(f"unknown recipe {name_or_config!r}; known: {', '.join(RECIPES)}") from None
