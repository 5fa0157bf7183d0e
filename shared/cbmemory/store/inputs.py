"""The checks of what a search or a read asks of a store, written once for every backend: ``MemoryStore``'s
public methods call them before a backend's ``_search``, ``_list_records``, ... runs, so every backend
refuses the same inputs with the same ``InvalidInputError`` (each naming the input) and sends nothing.

Only the type and the size of an input are checked here, never whether it names anything: a user id is any
string that is valid Unicode (an empty one, or one that looks like SQL, finds no record), a query any string
of at most ``MAX_QUERY_CHARS`` characters. What a search may return is ``filters.admits``' to say.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from ..dates import to_utc, utcnow
from ..embedding.sparse import SparseVector
from ..errors import InvalidInputError
from ..models import SearchFilters
from ..validation import MAX_QUERY_CHARS, check_query, check_unicode

MAX_SEARCH_K = 100_000  # hits one search may ask for (its k); a listing (``list_records``) has no bound
MAX_PHRASES = MAX_QUERY_CHARS  # phrases one ``entity`` search may hold (those of a query are fewer)


def check_user_id(user_id: object) -> str:
    """A string (any: it names a user or no one) that is valid Unicode."""
    if not isinstance(user_id, str):
        raise InvalidInputError(f"user_id must be a string, got {type(user_id).__name__}")
    return check_unicode(user_id, "user_id")


def _integer(value: object) -> int | None:
    """``value`` as an int when it is an integer (numpy integers too), not a ``bool``; else ``None``."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def check_search_k(k: object) -> int:
    """An integer from 1 to ``MAX_SEARCH_K`` (``bool`` refused; numpy integers taken as ints)."""
    n = _integer(k)
    if n is None or not 1 <= n <= MAX_SEARCH_K:
        raise InvalidInputError(f"k must be an integer from 1 to {MAX_SEARCH_K}, got {k!r}")
    return n


def check_form(form: object) -> int:
    """The form of kept derived texts (``MemoryStore.turns_to_keep``): an integer of at least 1."""
    n = _integer(form)
    if n is None or n < 1:
        raise InvalidInputError(f"form must be an integer of at least 1, got {form!r}")
    return n


def check_limit(limit: object) -> int | None:
    """``None`` (no limit) or an integer of at least 0."""
    if limit is None:
        return None
    n = _integer(limit)
    if n is None or n < 0:
        raise InvalidInputError(f"limit must be a non-negative integer or None, got {limit!r}")
    return n


def check_query_vector(vector: object, dimension: int | None) -> np.ndarray:
    """The query as a C-contiguous float32 vector: finite floats, ``dimension`` of them (any number when no
    embedder is bound: the store then holds no vector to compare them with). A ``(1, dimension)`` row is
    taken as the vector it holds."""
    try:
        arr = np.asarray(vector, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"query vector must be an array of floats: {exc}") from exc
    qv = np.ascontiguousarray(arr.reshape(-1))
    if qv.size == 0 or (dimension is not None and qv.size != dimension) or not np.isfinite(qv).all():
        size = "" if dimension is None else f"{dimension} "
        raise InvalidInputError(f"query vector must be {size}finite floats, got shape {arr.shape}")
    return qv


def check_phrases(phrases: object) -> list[str]:
    """A sequence (not a string itself) of at most ``MAX_PHRASES`` strings, each a valid query text."""
    if isinstance(phrases, (str, bytes)) or not isinstance(phrases, Sequence):
        raise InvalidInputError(f"phrases must be a list of strings, got {type(phrases).__name__}")
    if len(phrases) > MAX_PHRASES:
        raise InvalidInputError(f"phrases holds {len(phrases)} phrases; the limit is {MAX_PHRASES}")
    out = []
    for phrase in phrases:
        if not isinstance(phrase, str):
            raise InvalidInputError(f"each phrase must be a string, got {type(phrase).__name__}")
        out.append(check_query(phrase))
    return out


def check_sparse_query(query: object) -> SparseVector:
    """A ``SparseVector`` (which checks its own ids and weights when it is built)."""
    if not isinstance(query, SparseVector):
        raise InvalidInputError(f"query must be a SparseVector, got {type(query).__name__}")
    return query


def check_filters(filters: object) -> SearchFilters:
    """A ``SearchFilters`` (which checks its own fields when it is built)."""
    if not isinstance(filters, SearchFilters):
        raise InvalidInputError(f"filters must be a SearchFilters, got {type(filters).__name__}")
    return filters


def check_now(now: object) -> datetime:
    """The instant expiry is judged at: ``None`` for the current time, else a ``datetime`` (a naive one is
    UTC, as everywhere in cbmemory: ``dates.to_utc``), moved into the supported range."""
    if now is None:
        return utcnow()
    if not isinstance(now, datetime):
        raise InvalidInputError(f"now must be a datetime or None, got {type(now).__name__}")
    return to_utc(now, clamp=True)


def check_record_ids(record_ids: object) -> list[str]:
    """A sequence (not a string itself) of strings, each valid Unicode."""
    if isinstance(record_ids, (str, bytes)) or not isinstance(record_ids, Sequence):
        raise InvalidInputError(f"record_ids must be a list of strings, got {type(record_ids).__name__}")
    out = []
    for record_id in record_ids:
        if not isinstance(record_id, str):
            raise InvalidInputError(f"record ids must be strings, got {type(record_id).__name__}")
        out.append(check_unicode(record_id, "a record id"))
    return out


def check_flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(f"{what} must be True or False, got {value!r}")
    return value
