"""``AgentMemory``: the one object users start from.

    memory = AgentMemory.open("memory.db")          # offline MiniLM embedder, SQLite file
    memory.add_session("alice", "s1", [{"role": "user", "content": "I moved to Lyon yesterday."}], date="2023-05-07")
    hits = memory.search("Where does Alice live?", user_id="alice")

The core is synchronous; every ``a*`` method runs it in a worker thread so an event loop never blocks.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from datetime import date as Date
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..agent import FaultHandler, Recall, read_context, recall, save
from ..context import ContextConfig, FormattedContext
from ..dates import to_utc, utcnow
from ..embedding.base import CachedEmbedder, Embedder
from ..embedding.sparse import SparseEncoder
from ..errors import EmbedderMismatchError, InvalidInputError, RecipeMismatchWarning
from ..ingest import EnrichConfig, IngestConfig, build_records, validate_messages
from ..models import (
    ForgetResult,
    Hit,
    IngestResult,
    MemoryRecord,
    Message,
    SearchFilters,
    Session,
    frozen_mapping,
)
from ..recipes import Recipe, get_recipe, recipe_hits, recipe_mismatch
from ..retrieval.config import Signal
from ..store.base import MemoryStore
from ..store.sqlite import SQLiteStore
from ..validation import check_annotations, check_id, check_k, check_query, check_reads, check_ttl, expiry
from .asyncs import in_thread
from .sparse import query_encoder, readable, refuse_partial_sparse, sparse_encoder_for
from .transfer import Transfer
from .writing import Writing

if TYPE_CHECKING:  # the enrichment modules load only with an enricher: import cbmemory loads none
    from ..ingest.enrich import Enricher, EnrichReport

DateLike = datetime | Date | str


def _default_embedder() -> Embedder:
    from ..embedding.onnx import MiniLMEmbedder

    return MiniLMEmbedder()


class AgentMemory(Writing, Transfer):
    """Conversation memory for many users in one store, searched with named recipes (the write pipeline:
    ``writing``; memory files: ``transfer``)."""

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder | None = None,
        *,
        recipe: str | Recipe = "default",
        ingest: IngestConfig | None = None,
        default_ttl: timedelta | None = None,
        clock: Callable[[], datetime] = utcnow,
        enricher: Enricher | None = None,
        sparse_encoder: SparseEncoder | None = None,
    ):
        """``enricher``: an optional ``cbmemory.ingest.enrich.Enricher`` that plans the LLM modes of
        ``ingest.enrich`` (summaries, events, facts); each write stores the raw records first, then the
        records it derives. Without one, records stay raw.

        ``sparse_encoder``: what makes each record's sparse vector (the ``sparse`` signal). By default the
        bundled SPLADE-tiny encoder when the ingest settings (``IngestConfig.sparse``, e.g. the
        ``default_sparse`` recipe's) or the store's existing vectors name it; otherwise none is made. With one,
        the first write or search binds it to the store and encodes the records already stored without a
        sparse vector (once: about 130 records a second on 2 cores). A memory opened before another process
        bound an encoder to the store loads it at its next write or sparse search (memory/sparse.py)."""
        self.store = store
        self.enricher = enricher
        inner = embedder or _default_embedder()
        self.embedder = inner if isinstance(inner, CachedEmbedder) else CachedEmbedder(inner, lookup=store.lookup_vectors)
        self.recipe = get_recipe(recipe)
        self.ingest = ingest if ingest is not None else self.recipe.ingest  # index the way the recipe expects
        self.sparse_encoder: SparseEncoder | None = sparse_encoder_for(sparse_encoder, self.ingest.sparse,
                                                                       store.bound_sparse_encoder)
        if self.sparse_encoder is not None:  # what is written: every record with its sparse vector
            self.ingest = dataclasses.replace(self.ingest, sparse=self.sparse_encoder.name)
        self._warned: set[str] = set()  # recipes already warned about (RecipeMismatchWarning)
        self.default_ttl = check_ttl(default_ttl, "default_ttl") if default_ttl is not None else None
        self.clock = clock
        self._bound = self._unfilled = False
        self._last_purge: datetime | None = None
        self._kept_after: dict[str, str | None] = {}  # per user: the last turn the backfill looked at (None: all)
        have = store.bound_embedder
        if have is not None and have[0] != self.embedder.name:
            raise EmbedderMismatchError(
                f"the store holds vectors from {have[0]!r}; it cannot be used with {self.embedder.name!r}"
            )

    @classmethod
    def open(cls, path: str | os.PathLike[str] = "memory.db", *, create: bool = True, read_only: bool = False,
             **kwargs: Any) -> AgentMemory:
        """Open (or create) a memory file with the embedded SQLite store. ``create=False``: a missing file
        raises ``StoreNotFoundError`` instead of becoming a new store. ``read_only=True``: search only; the
        file is never created or written (the way to read a store in a read-only file or directory)."""
        store = SQLiteStore(path, create=create, read_only=read_only)
        try:
            return cls(store, **kwargs)
        except BaseException:  # e.g. another embedder's store: do not leave the file open
            store.close()
            raise

    # ------------------------------------------------------------------ writes (the pipeline: writing.py)
    def enrich(self, user_id: str, session_ids: Sequence[str] | None = None, *,
               config: EnrichConfig | None = None) -> EnrichReport:
        """Run the enricher's LLM modes over the raw records already stored for ``user_id`` (all sessions,
        or ``session_ids``), then embed and write what they derive. ``config``: the modes to run (default:
        this memory's own ``ingest.enrich``)."""
        check_id(user_id, "user_id")
        return self._enrich_stored(user_id, session_ids, config)

    def add_session(
        self,
        user_id: str,
        session_id: str,
        messages: Sequence[Message | Mapping[str, Any]],
        date: DateLike | None = None,
        *,
        annotations: Mapping[str, str] | None = None,
        ttl: timedelta | None = None,
        expires_at: DateLike | None = None,
    ) -> IngestResult:
        """Store a whole session (all or nothing). Re-adding the same session changes nothing."""
        return self.add_sessions(user_id, [(session_id, messages, date)], annotations=annotations, ttl=ttl,
                                 expires_at=expires_at)

    def add_sessions(
        self,
        user_id: str,
        sessions: Sequence[tuple[str, Sequence[Message | Mapping[str, Any]], DateLike | None]],
        *,
        annotations: Mapping[str, str] | None = None,
        ttl: timedelta | None = None,
        expires_at: DateLike | None = None,
    ) -> IngestResult:
        """Store several ``(session_id, messages, date)`` sessions of one user in one atomic batch
        (embedded together, so bulk imports run at the embedder's best batch size).

        A session is stored as a whole: adding a session that is already stored replaces it, so afterwards
        it holds exactly the messages given, with the date given. Adding it unchanged changes nothing; if
        its date or messages changed, its records are re-dated or replaced, turns it no longer has are
        deleted, and so are the summaries and events derived from its old content. To add turns to a
        session without resending it, use ``add_messages``."""
        check_id(user_id, "user_id")
        ann = check_annotations(annotations)
        now = self.clock()
        expires = expiry(now, ttl, expires_at, self.default_ttl)
        if len({sid for sid, _, _ in sessions}) != len(sessions):
            raise InvalidInputError("a batch names the same session twice")
        infos, records = [], []
        for session_id, messages, date in sessions:
            check_id(session_id, "session_id")
            msgs = validate_messages(messages)
            occurred = to_utc(date) if date is not None else now
            infos.append(Session(user_id, session_id, occurred, frozen_mapping(ann)))
            records += build_records(user_id, session_id, msgs, occurred, now, config=self.ingest,
                                     annotations=ann, expires_at=expires)
        if not records:
            raise InvalidInputError("no sessions given")
        return self._write(infos, records, "replace")

    def add_messages(
        self,
        user_id: str,
        session_id: str,
        messages: Sequence[Message | Mapping[str, Any]],
        *,
        date: DateLike | None = None,
        ttl: timedelta | None = None,
        expires_at: DateLike | None = None,
    ) -> IngestResult:
        """Append turns to a live session (created with ``date``, or now, if it does not exist yet).

        Messages with a ``turn_id`` already stored in the session are skipped (a retried append). Positions
        are checked when the write commits: if another writer appended to the session first, the append is
        built again after it, so concurrent appends keep every turn, each at its own position."""
        check_id(user_id, "user_id")
        check_id(session_id, "session_id")
        msgs = validate_messages(messages)
        occurred = to_utc(date) if date is not None else None
        return self._append_retried(user_id, session_id, msgs, occurred,
                                    lambda now: expiry(now, ttl, expires_at, self.default_ttl))

    # ------------------------------------------------------------------ reads
    def search(
        self,
        query: str,
        user_id: str,
        k: int | None = None,
        filters: SearchFilters | None = None,
        *,
        recipe: str | Recipe | None = None,
        reference_date: DateLike | None = None, current_only: bool = False, as_of: DateLike | None = None,
    ) -> list[Hit]:
        """The best memories for ``query`` within one user's memory, best first.

        Each hit carries its score, the signals that found it (with ranks) and the recipe name. ``k``:
        ``None`` takes the recipe's own k (or, for a recipe with ``k=None``, one chosen from the number of
        the user's sessions). ``recipe``: a name or a ``Recipe``; ``None``: this memory's recipe. The hits
        are those the recipe's context would show: within its ``context.token_budget``, by the context
        stage's rule (``cbmemory.recipes.recipe_hits``). ``reference_date`` is the question's date, used by
        recipes with the future filter. ``current_only``: leave out what later memories changed; ``as_of``:
        the state at a date (``cbmemory.retrieval.current``)."""
        check_query(query)
        check_id(user_id, "user_id")
        k = None if k is None else check_k(k)
        at = check_reads(current_only, as_of)  # a date alone: the end of that day
        cfg = get_recipe(recipe) if recipe is not None else self.recipe
        if cfg.retrieval.uses(Signal.SPARSE) and self.sparse_encoder is None:
            self._sparse_searched(cfg.name)
        self._check_recipe(cfg)
        if not query.strip():
            return []
        if not readable(self.store, self.embedder, self._bound):
            return []  # nothing stored yet
        self._bind()
        if cfg.retrieval.uses(Signal.SPARSE) and self.store.read_only:  # never filled by this memory
            refuse_partial_sparse(self.store, user_id, cfg.name)
        ref = to_utc(reference_date) if reference_date is not None else None
        embed_query = functools.partial(self.embedder.embed_query, user_id=user_id)
        return recipe_hits(self.store, embed_query, cfg, user_id, query, k=k, filters=filters, reference_date=ref,
                           now=self.clock(), current_only=current_only, as_of=at,
                           embed_texts=functools.partial(self.embedder.embed, user_id=user_id),
                           embed_queries=functools.partial(self.embedder.embed_queries, user_id=user_id),
                           encode_sparse=query_encoder(self.store, user_id, self.sparse_encoder))

    def _check_recipe(self, recipe: Recipe) -> None:
        """Warn, once per recipe, when ``recipe`` expects records made otherwise than this memory makes them."""
        if recipe.name not in self._warned and (problem := recipe_mismatch(recipe, self.ingest)) is not None:
            self._warned.add(recipe.name)
            warnings.warn(problem, RecipeMismatchWarning, stacklevel=3)

    def context(self, query: str, user_id: str, *, k: int | None = None, filters: SearchFilters | None = None,
                recipe: str | Recipe | None = None, reference_date: DateLike | None = None,
                order: str | None = None, current_only: bool = False,
                as_of: DateLike | None = None) -> FormattedContext:
        """The memories part of ``recall``'s text, raising instead of failing open: the same read
        (``cbmemory.agent.read_context``) with nothing shown yet, rendered as the recipe's context stage
        says (date prefix, relative dates resolved in place, within its token budget). ``order``
        (``chronological`` or ``rank``) overrides the recipe's; ``current_only``, ``as_of``: ``search``'s."""
        check_query(query)
        check_id(user_id, "user_id")
        cfg = get_recipe(recipe) if recipe is not None else self.recipe
        shows: ContextConfig = cfg.context if order is None else cfg.context.with_(order=order)
        ref = to_utc(reference_date) if reference_date is not None else None
        return read_context(self, query, user_id, cfg, shows, k=k, filters=filters, reference_date=ref,
                            current_only=current_only, as_of=as_of)[1]

    def recall(self, query: str, user_id: str, *, shown: Sequence[Message] = (), today: DateLike | None = None,
               recipe: str | Recipe | None = None, k: int | None = None, filters: SearchFilters | None = None,
               context: ContextConfig | None = None, on_error: FaultHandler | None = None,
               current_only: bool = False, as_of: DateLike | None = None) -> Recall:
        """What an agent's model reads from memory for one turn: the memories the prompt does not already
        show (``shown``), how to read their dates and "Today is ..." (``Recall.text``), and the hits best
        first (``Recall.hits``). Never raises: see ``cbmemory.agent``, the one seam every adapter calls."""
        return recall(self, query, user_id, shown=shown, today=today, recipe=recipe, k=k, filters=filters,
                      context=context, on_error=on_error, current_only=current_only, as_of=as_of)

    def save(self, user_id: str, session_id: str, messages: Sequence[Message], *, date: DateLike | None = None,
             shown: Recall | None = None, on_error: FaultHandler | None = None) -> IngestResult | None:
        """``add_messages`` for an agent step whose model has answered: never raises; what cannot be stored
        as it is is cleaned or left out and reported; ``shown``, the step's ``Recall``, links a turn that only
        restates it to those memories (``cbmemory.agent.save``)."""
        return save(self, user_id, session_id, messages, date=date, shown=shown, on_error=on_error)

    def session_records(self, user_id: str, session_id: str | None = None, *, limit: int | None = None,
                        newest_first: bool = False, kinds: tuple[str, ...] | None = ("turn", "round")
                        ) -> list[MemoryRecord]:
        """A user's stored records in conversation order (one session, or all): the raw turns or rounds by
        default, not the summaries and events derived from them (``kinds=None``: every kind)."""
        check_id(user_id, "user_id")
        sessions = (check_id(session_id, "session_id"),) if session_id else None
        f = SearchFilters(session_ids=sessions, kinds=kinds)
        return self.store.list_records(user_id, f, limit=limit, newest_first=newest_first, now=self.clock())

    def sessions(self, user_id: str) -> list[Session]:
        return self.store.list_sessions(check_id(user_id, "user_id"))

    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult:
        """Erase a user's memory, or one session of it: records (raw and derived), their vectors and
        full-text terms, sessions, and (when nothing of the user is left) the user. ``wiped`` in the result
        says whether the erased bytes are already gone from the file (see ``ForgetResult``). With an
        enricher, its extraction cache's entries and failures of the user (or session) are erased too."""
        check_id(user_id, "user_id")
        if session_id is not None:
            check_id(session_id, "session_id")
        result = self.store.forget(user_id, session_id)
        if self.enricher is not None:
            self.enricher.forget(user_id, session_id)
        return result

    def stats(self) -> dict[str, object]:
        return self.store.stats()

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> AgentMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def with_recipe(self, recipe: str | Recipe) -> AgentMemory:
        """A view of the same store, embedder (and its cache), enricher and sparse encoder, searching with
        another recipe by default. It keeps this memory's ingest settings, TTL and clock: records are still
        written the way they were."""
        other = AgentMemory(self.store, self.embedder, recipe=recipe, ingest=self.ingest,
                            default_ttl=self.default_ttl, clock=self.clock, enricher=self.enricher,
                            sparse_encoder=self.sparse_encoder)
        other._bound, other._unfilled, other._last_purge = self._bound, self._unfilled, self._last_purge
        other._kept_after = self._kept_after  # one store: one backfill
        return other

    # ------------------------------------------------------------------ async: the same methods, in a thread
    aadd_session = in_thread(add_session)
    aadd_sessions = in_thread(add_sessions)
    aadd_messages = in_thread(add_messages)
    aenrich = in_thread(enrich)
    asearch = in_thread(search)
    acontext = in_thread(context)
    arecall = in_thread(recall)
    asave = in_thread(save)
    asession_records = in_thread(session_records)
    aforget = in_thread(forget)


__all__ = ["AgentMemory"]
