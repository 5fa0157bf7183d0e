"""How the Couchbase store talks to the cluster: SDK handles, KV multi-operations, SQL++ and Search calls.

No cbmemory semantics here (what to send is built in ``requests``, document bodies in
``docs``): a :class:`CouchbaseClient` opens the bucket, scope and collections on first use,
sends KV operations in chunks, remembers the mutation tokens of writes to the memory collection (the
ones the Search index must catch up on) for ``at_plus`` searches, and turns a cluster that does not
answer into ``StoreUnavailableError``. The couchbase SDK is imported on first use, never at import time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from ...errors import CbMemoryError, MissingDependencyError, StoreUnavailableError
from . import docs as d
from . import requests as q

CHUNK = 500  # keys per multi-operation and values per IN list
T = TypeVar("T")


SDK_NOTE = ('the Couchbase store needs the Couchbase SDK (the couchbase package), which is not installed: '
            'pip install "cbmemory[couchbase]"')


def require_sdk() -> None:
    """``MissingDependencyError`` naming the extra when the Couchbase SDK is not installed."""
    try:
        import couchbase  # noqa: F401
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "couchbase":
            raise
        raise MissingDependencyError(SDK_NOTE, name=exc.name) from exc


def sdk_exceptions():
    require_sdk()
    import couchbase.exceptions as e

    return e


def connect_cluster(connection_string: str, username: str, password: str, *, timeout: float,
                    cluster_options: Any = None) -> Any:
    """A connected ``Cluster`` whose Query and Search services answered within ``timeout`` seconds;
    ``StoreUnavailableError`` otherwise (unreachable, refused credentials, services not ready);
    ``MissingDependencyError`` when the SDK is not installed."""
    require_sdk()
    from couchbase.auth import PasswordAuthenticator
    from couchbase.cluster import Cluster
    from couchbase.diagnostics import ServiceType
    from couchbase.options import ClusterOptions, ClusterTimeoutOptions, WaitUntilReadyOptions

    e = sdk_exceptions()
    limit = timedelta(seconds=timeout)
    if cluster_options is None:
        cluster_options = ClusterOptions(
            PasswordAuthenticator(username, password),
            timeout_options=ClusterTimeoutOptions(bootstrap_timeout=limit, connect_timeout=limit))
    where = connection_string.split("?", 1)[0]
    try:
        cluster = Cluster(connection_string, cluster_options)
    except e.AuthenticationException as exc:
        raise StoreUnavailableError(f"Couchbase at {where} refused the credentials: {exc}") from exc
    except e.CouchbaseException as exc:
        raise StoreUnavailableError(f"Couchbase at {where} did not answer within {timeout:g}s: {exc}") from exc
    try:
        cluster.wait_until_ready(limit, WaitUntilReadyOptions(service_types=[ServiceType.Query, ServiceType.Search]))
    except e.CouchbaseException as exc:
        cluster.close()
        raise StoreUnavailableError(
            f"Couchbase at {where} is up but its Query and Search services were not both ready "
            f"within {timeout:g}s: {exc}") from exc
    return cluster


class CouchbaseClient:
    """One bucket's scope (names checked against Couchbase's name alphabet) and the calls the store makes.

    ``consistency``: ``"at_plus"`` (searches wait until this client's own writes to the memory collection
    are indexed) or ``"not_bounded"``.
    """

    def __init__(self, cluster: Any, bucket: str, scope: str, index_name: str, users: str, sessions: str,
                 memory: str, consistency: str = "at_plus"):
        self.cluster = cluster
        self.bucket_name = d.check_bucket_name(bucket)
        self.scope_name = d.check_scope_name(scope)
        self.index_name = d.check_index_name(index_name)
        self.users = d.check_scope_name(users, "collection")
        self.sessions = d.check_scope_name(sessions, "collection")
        self.memory = d.check_scope_name(memory, "collection")
        self.consistency = consistency
        self._lock = threading.RLock()
        self._handles: dict[str, Any] = {}
        self._tokens: dict[tuple[str, int], Any] = {}

    def handle(self, name: str) -> Any:
        """``"bucket"``, ``"scope"`` or a collection's name: SDK handles, opened on first use (opening a
        bucket talks to the cluster)."""
        with self._lock:
            if name not in self._handles:
                if name == "bucket":
                    e = sdk_exceptions()
                    try:
                        self._handles[name] = self.io("open bucket", self.cluster.bucket, self.bucket_name)
                    except e.BucketNotFoundException as exc:
                        raise StoreUnavailableError(
                            f"bucket {self.bucket_name!r} does not exist (create it first)") from exc
                elif name == "scope":
                    self._handles[name] = self.handle("bucket").scope(self.scope_name)
                else:
                    self._handles[name] = self.handle("scope").collection(name)
            return self._handles[name]

    def forget_handles(self) -> None:
        with self._lock:
            self._handles.clear()

    def io(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one SDK call; a cluster that does not answer becomes ``StoreUnavailableError``."""
        e = sdk_exceptions()
        try:
            return fn(*args, **kwargs)
        except (e.UnAmbiguousTimeoutException, e.AmbiguousTimeoutException, e.ServiceUnavailableException,
                e.MissingConnectionException) as exc:
            raise StoreUnavailableError(f"Couchbase did not answer ({what}): {exc}") from exc

    # ---------------------------------------------------------------- KV
    def get_one(self, collection: str, key: str) -> dict[str, Any] | None:
        e = sdk_exceptions()
        try:
            return self.io("get", self.handle(collection).get, key).content_as[dict]
        except e.DocumentNotFoundException:
            return None

    def get_many(self, collection: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Bodies of the documents that exist, by key (missing keys are absent)."""
        return {key: body for key, (body, _) in self.get_many_cas(collection, keys).items()}

    def get_many_cas(self, collection: str, keys: Sequence[str]) -> dict[str, tuple[dict[str, Any], int]]:
        """Body and CAS of each document that exists, by key (missing keys are absent)."""
        e = sdk_exceptions()
        out: dict[str, tuple[dict[str, Any], int]] = {}
        unique = list(dict.fromkeys(keys))
        for i in range(0, len(unique), CHUNK):
            res = self.io("get", self.handle(collection).get_multi, unique[i : i + CHUNK])
            for key, value in res.results.items():
                if isinstance(value, e.DocumentNotFoundException):
                    continue
                if isinstance(value, Exception):
                    self._raise_kv(key, value)
                out[key] = (value.content_as[dict], value.cas)
        return out

    def add_fields(self, collection: str, key: str, fields: Mapping[str, Any]) -> bool:
        """Add ``fields`` to an existing document in one atomic sub-document mutation that fails when any of
        them is already there: ``False`` then, and nothing is written (another writer set it first)."""
        import couchbase.subdocument as SD

        e = sdk_exceptions()
        specs = [SD.insert(name, value) for name, value in fields.items()]
        try:
            self.io("mutate_in", self.handle(collection).mutate_in, key, specs)
        except e.PathExistsException:
            return False
        return True

    def insert_field(self, collection: str, key: str, name: str, value: Any, *, cas: int) -> str:
        """Add the top-level field ``name`` to the document ``key``, read at ``cas``, in one sub-document insert
        sent with that CAS: ``"set"``; ``"exists"`` when the document already has the field; ``"changed"``
        when it was rewritten or removed since it was read. Nothing is written but in the first case. The
        document keeps its expiry: a sub-document mutation that sets none leaves it as it is (the SDK refuses
        ``preserve_expiry`` with an insert spec)."""
        import couchbase.subdocument as SD
        from couchbase.options import MutateInOptions

        e = sdk_exceptions()
        try:
            res = self.io("mutate_in", self.handle(collection).mutate_in, key, [SD.insert(name, value)],
                          MutateInOptions(cas=cas))
        except e.PathExistsException:
            return "exists"
        except (e.CasMismatchException, e.DocumentNotFoundException):
            return "changed"
        if collection == self.memory:
            self._remember([res])
        return "set"

    def upsert_many(self, collection: str, docs: Mapping[str, dict[str, Any]],
                    expiry: Mapping[str, timedelta] | None = None) -> None:
        from couchbase.options import UpsertMultiOptions, UpsertOptions

        keys = list(docs)
        for i in range(0, len(keys), CHUNK):
            part = keys[i : i + CHUNK]
            per_key = {k: UpsertOptions(expiry=expiry[k]) for k in part if expiry and k in expiry}
            opts = UpsertMultiOptions(per_key_options=per_key) if per_key else UpsertMultiOptions()
            res = self.io("upsert", self.handle(collection).upsert_multi, {k: docs[k] for k in part}, opts)
            failed = res.exceptions
            if collection == self.memory:  # the only writes the Search index must catch up on
                self._remember(v for k, v in res.results.items() if k not in failed)
            for key, exc in failed.items():
                self._raise_kv(key, exc)

    def remove_many(self, collection: str, keys: Sequence[str]) -> None:
        """Remove documents by key; one already gone (erased, or expired by its TTL) is not an error."""
        e = sdk_exceptions()
        unique = list(dict.fromkeys(keys))
        for i in range(0, len(unique), CHUNK):
            res = self.io("remove", self.handle(collection).remove_multi, unique[i : i + CHUNK])
            failed = {k: v for k, v in res.exceptions.items() if not isinstance(v, e.DocumentNotFoundException)}
            if collection == self.memory:
                self._remember(v for k, v in res.results.items() if k not in res.exceptions)
            for key, exc in failed.items():
                self._raise_kv(key, exc)

    def _raise_kv(self, key: str, exc: Exception) -> None:
        e = sdk_exceptions()
        if isinstance(exc, (e.UnAmbiguousTimeoutException, e.AmbiguousTimeoutException)):
            raise StoreUnavailableError(f"Couchbase did not answer for document {key!r}: {exc}") from exc
        raise CbMemoryError(f"Couchbase refused document {key!r}: {exc}") from exc

    def _remember(self, results: Any) -> None:
        """Keep the newest mutation token per partition, for ``at_plus`` searches."""
        with self._lock:
            for r in results:
                token = r.mutation_token() if hasattr(r, "mutation_token") else None
                if token is None:
                    continue
                key = (token.bucket_name, token.partition_id)
                old = self._tokens.get(key)
                if old is None or token.sequence_number > old.sequence_number:
                    self._tokens[key] = token

    def _mutation_state(self) -> Any:
        if self.consistency != "at_plus" or not self._tokens:
            return None
        from couchbase.mutation_state import MutationState

        state = MutationState()
        with self._lock:
            for token in self._tokens.values():
                state.add_mutation_token(token)
        return state

    # ---------------------------------------------------------------- SQL++ and Search
    def query(self, st: q.Statement, *, consistent: bool = True) -> list[Any]:
        """Rows of a SQL++ statement, at ``request_plus`` consistency unless ``consistent`` is False."""
        from couchbase.n1ql import QueryScanConsistency

        extra = {"scan_consistency": QueryScanConsistency.REQUEST_PLUS} if consistent else {}
        result = self.io("SQL++", self.handle("scope").query, st.sql, st.options(**extra))
        return self.io("SQL++", lambda: list(result.rows()))

    def search(self, request: Any, limit: int, *, consistent: bool = True) -> list[tuple[str, float]]:
        """(document key, server score) of each hit of a Search request, best first."""
        options = q.search_options(limit, consistent_with=self._mutation_state() if consistent else None)
        result = self.io("Search", self.handle("scope").search, self.index_name, request, options)
        rows = self.io("Search", lambda: list(result.rows()))
        return [(row.id, float(row.score)) for row in rows]
