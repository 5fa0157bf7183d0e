"""The Couchbase store (``CouchbaseStore``). Importing it imports no part of the couchbase SDK: that is
loaded on first use."""

from .store import CouchbaseStore

__all__ = ["CouchbaseStore"]
