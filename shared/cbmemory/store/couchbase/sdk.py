"""The couchbase SDK classes the request builders use (``requests``, ``sqlpp``), imported on first use, never
at import time (``pip install cbmemory[couchbase]``)."""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

from ...errors import MissingDependencyError


@lru_cache(maxsize=1)
def sdk() -> SimpleNamespace:
    """The couchbase SDK classes the store uses, imported on first use (``pip install cbmemory[couchbase]``)."""
    try:
        import couchbase.search as search
        from couchbase.logic.search import SearchQueryBuilder
        from couchbase.options import QueryOptions, SearchOptions
        from couchbase.vector_search import VectorQuery, VectorSearch
    except ImportError as exc:  # pragma: no cover - the dev install has the SDK
        raise MissingDependencyError(
            "the Couchbase store needs the couchbase SDK: pip install 'cbmemory[couchbase]'") from exc
    return SimpleNamespace(search=search, SearchQueryBuilder=SearchQueryBuilder, QueryOptions=QueryOptions,
                           SearchOptions=SearchOptions, VectorQuery=VectorQuery, VectorSearch=VectorSearch)
