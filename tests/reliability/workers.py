"""Worker processes for the reliability tests (run as ``python -m tests.reliability.workers ...``)."""

from __future__ import annotations

import hashlib
import os
import sys
import time

import numpy as np

from cbmemory import AgentMemory
from cbmemory.dates import to_utc, utcnow
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Session
from cbmemory.store import SQLiteStore
from cbmemory.store.signals import Signal

DIM = 16


class HashEmbedder:
    """Deterministic vectors from a text hash: the store is under test here, not the embedder."""

    name, dimension = "hash-16", DIM

    def embed(self, texts):
        out = np.stack([np.frombuffer(hashlib.sha256(t.encode()).digest()[:DIM], dtype=np.uint8).astype(np.float32)
                        + 1.0 for t in texts])
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text):
        return self.embed([text])[0]


def batch(user: str, b: int, size: int):
    msgs = validate_messages([{"role": "user", "content": f"batch {b} turn {i} " + "filler words " * 20,
                               "turn_id": f"b{b}:{i}"} for i in range(size)])
    recs = build_records(user, f"batch-{b}", msgs, to_utc("2023-05-07"), utcnow(), annotations={"batch": str(b)})
    return Session(user, f"batch-{b}", to_utc("2023-05-07")), recs, HashEmbedder().embed([r.index_text for r in recs])


def crash_writer(path: str, first: int, batches: int, size: int) -> None:
    """Write batches forever-ish, announcing each one just before it starts, so the parent can kill it inside."""
    store = SQLiteStore(path)
    store.bind_embedder(HashEmbedder.name, DIM)
    prepared = [batch("victim", b, size) for b in range(first, first + batches)]
    print("ready", flush=True)
    for b, (sess, recs, vecs) in enumerate(prepared, first):
        print(f"start {b}", flush=True)
        store.write([sess], recs, vecs)
    print("done", flush=True)


def appender(path: str, writer: int, turns: int, per_call: int) -> None:
    """Append turns through the facade: shared user, shared session and a private session."""
    memory = AgentMemory.open(path, embedder=HashEmbedder())
    for start in range(0, turns, per_call):
        msgs = [{"role": "user", "content": f"writer {writer} turn {i}"} for i in range(start, start + per_call)]
        memory.add_messages("shared-user", "shared-session", msgs, date="2023-05-07")
        memory.add_session(f"user-{writer}", f"s{start}", msgs, date="2023-05-08")
    print("done", flush=True)


def reader(path: str, rounds: int) -> None:
    """Count each private session's turns many times: a batch must be seen whole or not at all."""
    store = SQLiteStore(path)
    bad = 0
    for _ in range(rounds):
        for user in store.users():
            for s in store.list_sessions(user):
                if user == "shared-user":
                    continue
                n = len(store.list_records(user, __import__("cbmemory").SearchFilters(session_ids=(s.session_id,))))
                bad += n not in (0, int(sys.argv[-1]))
    print(f"partial {bad}", flush=True)


def search_reader(path: str, rounds: int, per_call: int) -> None:
    """Search each private session through the store's search paths (vector and full text, filtered to the
    session): a session is seen whole or not at all, and never another user's record."""
    from cbmemory import SearchFilters

    store = SQLiteStore(path)
    query = HashEmbedder().embed(["writer turn"])[0]
    bad = searches = done = 0
    deadline = time.monotonic() + 120
    while done < rounds and time.monotonic() < deadline:  # a round counts once the writers have written
        before = searches
        for user in store.users():
            if user == "shared-user":
                continue
            for s in store.list_sessions(user):
                f = SearchFilters(session_ids=(s.session_id,))
                for hits in (store.search(Signal.VECTOR, user, query, 1000, f), store.search(Signal.BM25, user, "writer turn", 1000, f)):
                    searches += 1
                    bad += len(hits) not in (0, per_call) or any(h.record.user_id != user for h in hits)
        done += searches > before
    print(f"partial {bad} searches {searches}", flush=True)


def forget_and_close(path: str, user: str) -> None:
    """Forget one user and close the store, announcing the start so the parent can kill it anywhere in the
    erasure, its wipe or the close."""
    store = SQLiteStore(path)
    store.count(user)  # connection and schema checks done before the announcement
    print("start", flush=True)
    result = store.forget(user)
    store.close()
    print(f"forgot {result}", flush=True)


def write_and_vanish(path: str, user: str) -> None:
    """One write of another user through the facade, then exit without closing anything: what the write
    has to finish (a wipe another store left pending in the file) it finishes itself, not at a close."""
    memory = AgentMemory.open(path, embedder=HashEmbedder())
    memory.add_session(user, "w1", [{"role": "user", "content": "an unrelated write"}], date="2023-05-09")
    print("done", flush=True)
    os._exit(0)


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "crash":
        crash_writer(args[0], int(args[1]), int(args[2]), int(args[3]))
    elif cmd == "append":
        appender(args[0], int(args[1]), int(args[2]), int(args[3]))
    elif cmd == "read":
        reader(args[0], int(args[1]))
    elif cmd == "search-read":
        search_reader(args[0], int(args[1]), int(args[2]))
    elif cmd == "forget-close":
        forget_and_close(args[0], args[1])
    elif cmd == "write-vanish":
        write_and_vanish(args[0], args[1])
