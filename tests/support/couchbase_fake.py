"""A small in-process stand-in for the couchbase SDK's Cluster / Bucket / Scope / Collection objects.

It is NOT a Couchbase backend and gives NO backend coverage: KV is a dict, and SQL++ and Search answers
are whatever the test scripts. It exists only to check the store's orchestration: which request objects
it sends, in which batches, with which options (expiry, consistency), and what it does with the answers.
Sub-document mutations (``mutate_in``) support only ``subdocument.insert`` of a top-level field (fails with
``PathExistsException`` when the field is there, writing none of the specs), the one the store sends, and a
``cas`` option (``CasMismatchException`` unless it is the document's). Every KV write gives the document a
new CAS (``FakeState.cas``); a document a test puts straight into ``FakeState.docs`` has CAS 0, which matches
anything, as an option of 0 means "no check" in the SDK.
The backend itself is covered by the live contract suite (tests/integration/couchbase/test_live_contract.py).
A helper shared by the tiers (unit/store, contract), not a test module.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from couchbase.exceptions import (
    CasMismatchException,
    CollectionAlreadyExistsException,
    DocumentExistsException,
    DocumentNotFoundException,
    PathExistsException,
    ScopeAlreadyExistsException,
    SearchIndexNotFoundException,
)
from couchbase.result import MutationToken
from couchbase.subdocument import SubDocOp


class _Got:
    def __init__(self, body: dict, cas: int = 0):
        self.content_as = {dict: copy.deepcopy(body)}  # the SDK's ``result.content_as[dict]``
        self.cas = cas


class _Mutated:
    def __init__(self, token: dict | None):
        self._token = token

    def mutation_token(self):
        return MutationToken(self._token) if self._token else None


class _Multi:
    def __init__(self, results: dict):
        self.results = results

    @property
    def exceptions(self) -> dict:
        return {k: v for k, v in self.results.items() if isinstance(v, Exception)}


class _Rows:
    def __init__(self, rows: list):
        self._rows = rows

    def rows(self):
        return iter(self._rows)


@dataclass
class SearchRow:
    id: str
    score: float
    explanation: dict = field(default_factory=dict)


@dataclass
class FakeState:
    """Everything the fake remembers: documents per collection and every call made."""

    docs: dict[str, dict[str, dict]] = field(default_factory=dict)
    cas: dict[str, dict[str, int]] = field(default_factory=dict)  # per collection, per key (absent: 0)
    scopes: dict[str, set[str]] = field(default_factory=dict)
    search_indexes: dict[str, Any] = field(default_factory=dict)
    calls: list[tuple] = field(default_factory=list)
    query_answer: Callable[[str, dict], list] = lambda sql, options: []
    search_answer: Callable[[str, Any, Any], list] = lambda index, request, options: []
    fail_with: Exception | None = None
    seq: int = 0
    last_seq: dict[str, int] = field(default_factory=dict)  # the newest mutation's number, per collection

    def check(self):
        if self.fail_with is not None:
            raise self.fail_with


class FakeCollection:
    def __init__(self, state: FakeState, scope: str, name: str):
        self.s, self.name = state, name
        self.docs = state.docs.setdefault(f"{scope}.{name}", {})
        self.cas = state.cas.setdefault(f"{scope}.{name}", {})

    def _token(self, key: str) -> dict:
        """A write of ``key``: a new sequence number, which is also the document's new CAS."""
        self.s.seq += 1
        self.s.last_seq[self.name] = self.s.seq
        self.cas[key] = self.s.seq
        return {"partition_id": self.s.seq % 4, "partition_uuid": 77, "sequence_number": self.s.seq,
                "bucket_name": "cbm"}

    def get(self, key):
        self.s.check()
        self.s.calls.append(("get", self.name, key))
        if key not in self.docs:
            raise DocumentNotFoundException()
        return _Got(self.docs[key], self.cas.get(key, 0))

    def get_multi(self, keys):
        self.s.check()
        self.s.calls.append(("get_multi", self.name, list(keys)))
        return _Multi({k: _Got(self.docs[k], self.cas.get(k, 0)) if k in self.docs else DocumentNotFoundException()
                       for k in keys})

    def upsert_multi(self, docs, options):
        self.s.check()
        self.s.calls.append(("upsert_multi", self.name, dict(docs), options))
        for k, v in docs.items():
            self.docs[k] = copy.deepcopy(v)
        return _Multi({k: _Mutated(self._token(k)) for k in docs})

    def insert(self, key, body):
        self.s.calls.append(("insert", self.name, key))
        if key in self.docs:
            raise DocumentExistsException()
        self.docs[key] = copy.deepcopy(body)
        return _Mutated(self._token(key))

    def mutate_in(self, key, specs, *opts):
        """``subdocument.insert`` specs of top-level fields, all or none applied (like the server), under an
        optional ``MutateInOptions(cas=...)``. Calls are recorded as ``("mutate_in", collection, key, specs,
        options)``, the options as a plain dict."""
        self.s.check()
        specs = [tuple(spec) for spec in specs]  # (op, path, create_parents, xattr, expand_macros, value)
        options = dict(opts[0]) if opts else {}
        self.s.calls.append(("mutate_in", self.name, key, specs, options))
        if key not in self.docs:
            raise DocumentNotFoundException()
        if options.get("cas") and options["cas"] != self.cas.get(key, 0):
            raise CasMismatchException()
        doc = self.docs[key]
        for op, path, *_ in specs:
            if op != SubDocOp.DICT_ADD or "." in path:
                raise NotImplementedError(f"the fake only inserts top-level fields, got {op} {path}")
            if path in doc:
                raise PathExistsException()
        for spec in specs:
            doc[spec[1]] = copy.deepcopy(spec[5])
        return _Mutated(self._token(key))

    def remove(self, key):
        self.s.calls.append(("remove", self.name, key))
        if key not in self.docs:
            raise DocumentNotFoundException()
        del self.docs[key]
        self.cas.pop(key, None)

    def remove_multi(self, keys):
        """Like the SDK's (``return_exceptions`` on): a missing key comes back as its exception."""
        self.s.check()
        self.s.calls.append(("remove_multi", self.name, list(keys)))
        out = {}
        for k in keys:
            if k in self.docs:
                del self.docs[k]
                out[k] = _Mutated(self._token(k))
                self.cas.pop(k, None)
            else:
                out[k] = DocumentNotFoundException()
        return _Multi(out)

    def exists(self, key):
        self.s.calls.append(("exists", self.name, key))
        return key in self.docs


class FakeSearchIndexManager:
    def __init__(self, state: FakeState):
        self.s = state

    def get_index(self, name):
        self.s.calls.append(("get_index", name))
        if name not in self.s.search_indexes:
            raise SearchIndexNotFoundException()
        return self.s.search_indexes[name]

    def upsert_index(self, index):
        self.s.calls.append(("upsert_index", index))
        self.s.search_indexes[index.name] = index


class FakeScope:
    def __init__(self, state: FakeState, name: str):
        self.s, self.name = state, name

    def collection(self, name):
        return FakeCollection(self.s, self.name, name)

    def query(self, sql, options):
        self.s.check()
        self.s.calls.append(("query", sql, options))
        return _Rows(self.s.query_answer(sql, options))

    def search(self, index, request, options):
        self.s.check()
        self.s.calls.append(("search", index, request, options))
        return _Rows(self.s.search_answer(index, request, options))

    def search_indexes(self):
        return FakeSearchIndexManager(self.s)


class _ScopeSpec:
    def __init__(self, name, collections):
        self.name = name
        self.collections = [type("C", (), {"name": c})() for c in collections]


class FakeCollectionManager:
    def __init__(self, state: FakeState):
        self.s = state

    def get_all_scopes(self):
        self.s.check()
        self.s.calls.append(("get_all_scopes",))
        return [_ScopeSpec(n, cs) for n, cs in self.s.scopes.items()]

    def create_scope(self, name):
        self.s.calls.append(("create_scope", name))
        if name in self.s.scopes:
            raise ScopeAlreadyExistsException()
        self.s.scopes[name] = set()

    def create_collection(self, scope, name):
        self.s.calls.append(("create_collection", scope, name))
        if name in self.s.scopes[scope]:
            raise CollectionAlreadyExistsException()
        self.s.scopes[scope].add(name)


class FakeBucket:
    def __init__(self, state: FakeState, name: str):
        self.s, self.name = state, name

    def scope(self, name):
        return FakeScope(self.s, name)

    def collections(self):
        return FakeCollectionManager(self.s)


class FakeCluster:
    def __init__(self, state: FakeState | None = None):
        self.s = state or FakeState()
        self.closed = False

    def bucket(self, name):
        self.s.check()
        self.s.calls.append(("bucket", name))
        return FakeBucket(self.s, name)

    def close(self):
        self.closed = True


def bound_store(state: FakeState, dimension: int = 4):
    """A ``CouchbaseStore`` over ``state`` with an embedder bound (no sparse encoder), its calls forgotten."""
    from cbmemory.store.couchbase import CouchbaseStore

    store = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    store.bind_embedder("test-embedder", dimension)
    state.calls.clear()
    return store
