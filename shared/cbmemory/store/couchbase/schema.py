"""The Couchbase store's schema: scope, collections, SQL++ indexes and the Search index, made when missing.

Resources made a moment ago take a while to be usable on every node, so each step is retried (polled,
with a growing delay) until it succeeds or the deadline passes (``StoreUnavailableError``). The Search
index comes from ``docs.search_index_definition``; an existing one with another vector
dimension is refused (``EmbedderMismatchError``) and an existing one is otherwise kept as it is: an index
made by an older version (e.g. without the raw ``text`` field) must be dropped to be remade.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from ...errors import EmbedderMismatchError, StoreUnavailableError
from . import docs as d
from . import requests as q
from .client import CouchbaseClient, sdk_exceptions


def scopes(client: CouchbaseClient) -> dict[str, set[str]]:
    """Every scope of the bucket with its collections' names (through the management API)."""
    manager = client.handle("bucket").collections()
    return {s.name: {c.name for c in s.collections} for s in client.io("list scopes", manager.get_all_scopes)}


def collections_exist(client: CouchbaseClient) -> bool:
    """Whether the store's three collections exist (a KV read from a missing collection would only fail
    after the full KV timeout)."""
    return {client.users, client.sessions, client.memory} <= scopes(client).get(client.scope_name, set())


def poll(deadline: float, what: str, attempt: Callable[[], object]) -> None:
    """Retry ``attempt`` until it succeeds or the deadline (``time.monotonic()``) passes."""
    e = sdk_exceptions()
    delay = 0.05
    while True:
        try:
            attempt()
            return
        except (e.CouchbaseException, StoreUnavailableError) as exc:
            if time.monotonic() + delay > deadline:
                raise StoreUnavailableError(f"{what} was not ready in time: {exc}") from exc
        time.sleep(delay)
        delay = min(delay * 2, 1.0)


def ensure_collections(client: CouchbaseClient, deadline: float) -> None:
    """Create the scope, collections and SQL++ indexes that are missing and wait until each is usable."""
    e = sdk_exceptions()
    manager = client.handle("bucket").collections()
    have = scopes(client)
    if client.scope_name not in have:
        try:
            client.io("create scope", manager.create_scope, client.scope_name)
        except e.ScopeAlreadyExistsException:
            pass
    for coll in (client.users, client.sessions, client.memory):
        if coll not in have.get(client.scope_name, set()):
            try:
                client.io("create collection", manager.create_collection, client.scope_name, coll)
            except e.CollectionAlreadyExistsException:
                pass
        poll(deadline, f"collection {coll}", partial(_probe, client, coll))
    for st in q.secondary_indexes(client.memory, client.sessions):
        poll(deadline, "SQL++ index", partial(client.query, st, consistent=False))


def _probe(client: CouchbaseClient, collection: str) -> object:
    """A key lookup in ``collection``, which fails until a collection made a moment ago is usable."""
    return client.handle(collection).exists(d.META_KEY)


def ensure_search_index(client: CouchbaseClient, dimension: int, deadline: float) -> None:
    """The Search index over the memory collection: created when missing, refused when it indexes
    vectors of another dimension, then probed until it answers."""
    from couchbase.management.search import SearchIndex

    e = sdk_exceptions()
    name = client.index_name
    manager = client.handle("scope").search_indexes()
    try:
        existing = client.io("get Search index", manager.get_index, name)
    except e.SearchIndexNotFoundException:
        existing = None
    if existing is not None:
        have = d.index_dimension(existing.params)
        if have is not None and have != dimension:
            raise EmbedderMismatchError(
                f"Search index {name!r} indexes {have}-dimensional vectors; the embedder makes "
                f"{dimension}-dimensional ones")
    else:
        definition = d.search_index_definition(client.bucket_name, client.scope_name, client.memory, dimension,
                                               name)

        def create() -> None:  # retried: a collection made a moment ago may not be known yet
            try:
                manager.get_index(name)  # an earlier attempt got through
            except e.SearchIndexNotFoundException:
                manager.upsert_index(SearchIndex.from_json(definition))

        poll(deadline, f"create Search index {name}", create)
    probe = q.sdk().search.SearchRequest.create(q.sdk().search.MatchNoneQuery())
    poll(deadline, f"Search index {name}", lambda: client.search(probe, 1, consistent=False))
