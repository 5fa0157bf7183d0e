"""Synthetic conversations for size sweeps, deterministic for a seed.

How the data is made (stated in every ``bench.json``):

- Words: the ~21,700 whole English words of the MiniLM tokenizer's vocabulary (shipped in this package),
  which is ordered by corpus frequency; a turn's words are drawn from a Zipf law over that order (so
  "the", "and", "of" are in most turns and full-text posting lists are as long as in real chat), and one
  word in three from its session's topic (30 mid-frequency words per topic, 200 topics).
- Turns: 6 to 30 words, two speakers alternating (user / assistant), 20 turns per session, one session a day
  from 2023-01-01. Records come from the real ingest path (``build_records`` with the default recipe's
  settings: date-anchored, indexed with the turn they answer), so index texts look like real ones.
- Vectors: 384-d, the session topic's random unit centre plus Gaussian noise of the same norm, then
  L2-normalised (cosine ~0.5 within a topic, ~0 across), so exact search does the same work as with model
  vectors without embedding 100k texts first. The same vectors go to every system under test.
- Sparse vectors (recipes with the sparse signal, sizes up to ``sparse_max_size``): not synthetic; the real
  SPLADE-tiny encoder makes them from the records' index texts, on a copy of the size's file, and each timed
  search encodes its query's with it (``bench.sparse``).
- Queries: a "needle" record chosen at random; the query text names three of its rarest words, its vector is
  the needle's vector plus noise (cosine ~0.9). Whether each system returns the needle in its top k is a
  sanity check that they all searched the same data, not a quality evaluation (that is ``cbmemory eval``).
- Tenant neighbours: another user made the same way, in whole sessions, except that each of its turns also
  holds distinct words drawn from the measured user's query words (three by default), so a full-text index
  shared across users would have to read the neighbour's postings for every query.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from importlib import resources

import numpy as np

from cbmemory import MemoryRecord, Session
from cbmemory.ingest import IngestConfig, build_records, validate_messages
from cbmemory.recipes import RECIPES
from cbmemory.retrieval import content_words

DESCRIPTION = " ".join(line.strip() for line in __doc__.split("How the data is made")[1].splitlines()[1:])
START = datetime(2023, 1, 1, 12, 0, tzinfo=timezone.utc)
INGESTED = datetime(2024, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True, slots=True)
class SyntheticConfig:
    seed: int = 0
    dimension: int = 384
    topics: int = 200
    topic_words: int = 30
    turns_per_session: int = 20
    min_words: int = 6
    max_words: int = 30
    zipf_s: float = 1.0
    ingest: IngestConfig = RECIPES["default"].ingest


@dataclass(frozen=True, slots=True)
class SyntheticUser:
    """One user's sessions, records (row i of ``vectors`` belongs to ``records[i]``) and vectors."""

    user_id: str
    sessions: tuple[Session, ...]
    records: tuple[MemoryRecord, ...]
    vectors: np.ndarray
    topics: np.ndarray  # topic of each record


@dataclass(frozen=True, slots=True)
class SyntheticQuery:
    user_id: str
    text: str
    vector: np.ndarray
    needle: str  # record_id of the record the query was made from


@lru_cache(maxsize=1)
def vocabulary() -> tuple[str, ...]:
    """Whole English words of the bundled MiniLM tokenizer, most frequent first."""
    raw = (resources.files("cbmemory") / "data" / "minilm_tokenizer.json").read_text("utf-8")
    vocab = json.loads(raw)["model"]["vocab"]
    return tuple(t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])
                 if t.isascii() and t.isalpha() and len(t) > 1)


def _seed(cfg: SyntheticConfig, *parts: object) -> int:
    key = "\x1f".join(map(str, (cfg.seed, *parts))).encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "little")


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


# The tables below are the same for every user of a config; they are cached (read-only) so making
# 10,000 small users does not rebuild them 10,000 times. The values are exactly those made uncached.
@lru_cache(maxsize=8)
def _centres_for(seed: int, topics: int, dimension: int) -> np.ndarray:
    rng = np.random.default_rng(_seed(SyntheticConfig(seed=seed), "centres"))
    c = rng.standard_normal((topics, dimension)).astype(np.float32)
    return _frozen(c / np.linalg.norm(c, axis=1, keepdims=True))


def _centres(cfg: SyntheticConfig) -> np.ndarray:
    return _centres_for(cfg.seed, cfg.topics, cfg.dimension)


@lru_cache(maxsize=8)
def _topic_words_for(seed: int, topics: int, topic_words: int) -> np.ndarray:
    rng = np.random.default_rng(_seed(SyntheticConfig(seed=seed), "topic-words"))
    v = len(vocabulary())
    return _frozen(rng.integers(500, v, size=(topics, topic_words)))


def _topic_words(cfg: SyntheticConfig) -> np.ndarray:
    return _topic_words_for(cfg.seed, cfg.topics, cfg.topic_words)


@lru_cache(maxsize=4)
def _zipf(s: float) -> np.ndarray:
    v = len(vocabulary())
    zipf = 1.0 / np.arange(1, v + 1) ** s
    zipf /= zipf.sum()
    return _frozen(zipf)


@lru_cache(maxsize=1)
def _vocab_array() -> np.ndarray:
    return _frozen(np.asarray(vocabulary(), dtype=object))


@lru_cache(maxsize=1)
def _rank() -> dict[str, int]:
    return {w: i for i, w in enumerate(vocabulary())}


def _normalise(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def _make(user_id: str, n: int, cfg: SyntheticConfig, rng: np.random.Generator, first_session: int = 0,
          extra: np.ndarray | None = None) -> SyntheticUser:
    """``n`` records from session number ``first_session`` on; ``extra`` (``n`` rows of words) is appended to
    each turn's text. Without ``extra`` the draws from ``rng`` are those ``make_user`` always made."""
    v = len(vocabulary())
    lengths = rng.integers(cfg.min_words, cfg.max_words + 1, size=n)
    total = int(lengths.sum())
    general = rng.choice(v, size=total, p=_zipf(cfg.zipf_s))
    n_sessions = -(-n // cfg.turns_per_session)
    session_topic = rng.integers(0, cfg.topics, size=n_sessions)
    record_topic = np.repeat(session_topic, cfg.turns_per_session)[:n]
    per_word_topic = np.repeat(record_topic, lengths)
    pick = rng.integers(0, cfg.topic_words, size=total)
    topical = _topic_words(cfg)[per_word_topic, pick]
    word_ids = np.where(rng.random(total) < 1 / 3, topical, general)
    words = _vocab_array()[word_ids]
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    texts = [" ".join(words[bounds[i]: bounds[i + 1]]) for i in range(n)]
    if extra is not None:
        texts = [f"{t} {' '.join(e)}" for t, e in zip(texts, extra, strict=True)]

    sessions, records = [], []
    for s in range(n_sessions):
        sid = f"s{first_session + s:05d}"
        date = START + timedelta(days=first_session + s)
        lo, hi = s * cfg.turns_per_session, min(n, (s + 1) * cfg.turns_per_session)
        msgs = validate_messages([
            {"role": "user" if i % 2 == 0 else "assistant", "content": texts[i],
             "speaker": "Alex" if i % 2 == 0 else "Sam", "turn_id": f"{sid}:{i - lo}"}
            for i in range(lo, hi)])
        sessions.append(Session(user_id, sid, date))
        records += build_records(user_id, sid, msgs, date, INGESTED, config=cfg.ingest)
    noise = rng.standard_normal((n, cfg.dimension)).astype(np.float32) / np.sqrt(cfg.dimension)
    vectors = _normalise(_centres(cfg)[record_topic] + noise)
    return SyntheticUser(user_id, tuple(sessions), tuple(records), vectors, record_topic)


def make_user(user_id: str, n: int, cfg: SyntheticConfig = SyntheticConfig()) -> SyntheticUser:
    """``n`` records of ``user_id`` (sessions of ``turns_per_session`` turns; the last one may be shorter)."""
    return _make(user_id, n, cfg, np.random.default_rng(_seed(cfg, "user", user_id)))


def make_queries(user: SyntheticUser, count: int, cfg: SyntheticConfig = SyntheticConfig()) -> list[SyntheticQuery]:
    """``count`` needle queries over ``user``'s records (deterministic)."""
    rank = _rank()
    rng = np.random.default_rng(_seed(cfg, "queries", user.user_id, len(user.records)))
    out = []
    for i in rng.integers(0, len(user.records), size=count):
        rec = user.records[int(i)]
        rare = sorted(set(rec.text.split()), key=lambda w: -rank.get(w, 0))[:3]
        text = f"What did we say about {', '.join(rare[:-1])} and {rare[-1]}?" if len(rare) > 1 else \
            f"What did we say about {rare[0]}?"
        noise = rng.standard_normal(cfg.dimension).astype(np.float32) / np.sqrt(cfg.dimension) * 0.5
        out.append(SyntheticQuery(user.user_id, text, _normalise(user.vectors[int(i)] + noise), rec.record_id))
    return out


_TEMPLATE_WORDS = frozenset(content_words("What did we say about and"))
_SPACES = str.maketrans({c: " " for c in "()[]{},.:;!?'\"-"})


def query_words(query: SyntheticQuery) -> list[str]:
    """The words a query was made of (its content words less those of the query template)."""
    return [w for w in content_words(query.text) if w not in _TEMPLATE_WORDS]


@dataclass(frozen=True, slots=True)
class NeighbourBatch:
    """Whole sessions of a neighbour tenant. Row i of ``injected``: the indices (into the word pool) of the
    query words appended to ``user.records[i]``; row i of ``holds``: which pool words its indexed or raw
    text holds (those appended, those of the turn it answers, where it is indexed with it, and any drawn
    by chance), i.e. which words' full-text postings list it."""

    user: SyntheticUser
    injected: np.ndarray
    holds: np.ndarray


def whole_sessions(n: int, cfg: SyntheticConfig = SyntheticConfig()) -> int:
    """``n`` rounded up to whole sessions (a neighbour grows a session at a time)."""
    return -(-n // cfg.turns_per_session) * cfg.turns_per_session


def make_neighbour(user_id: str, start: int, stop: int, pool: Sequence[str], cfg: SyntheticConfig = SyntheticConfig(),
                   *, per_record: int = 3, batch: int = 10_000) -> Iterator[NeighbourBatch]:
    """Records ``start`` to ``stop`` (both whole sessions) of a neighbour tenant, ``batch`` records at a time
    (rounded to whole sessions); each turn also holds ``per_record`` words drawn from ``pool``
    (deterministic for the config and the batch boundaries)."""
    tps = cfg.turns_per_session
    if start % tps or stop % tps:
        raise ValueError(f"neighbour sizes must be whole sessions ({tps} turns)")
    if not pool:
        raise ValueError("the neighbour needs at least one query word to hold")
    words = np.asarray(list(pool), dtype=object)
    index = {w: i for i, w in enumerate(pool)}
    step = max(1, batch // tps) * tps
    for lo in range(start, stop, step):
        hi = min(stop, lo + step)
        rng = np.random.default_rng(_seed(cfg, "neighbour", user_id, lo))
        if per_record >= len(words):  # every word of the pool in every turn
            injected = np.tile(np.arange(len(words)), (hi - lo, 1))
        else:  # ``per_record`` distinct words per turn
            injected = np.argpartition(rng.random((hi - lo, len(words))), per_record, axis=1)[:, :per_record]
        user = _make(user_id, hi - lo, cfg, rng, first_session=lo // tps, extra=words[injected])
        holds = np.zeros((hi - lo, len(words)), dtype=bool)
        for i, rec in enumerate(user.records):  # the texts are words and a little punctuation: split, no regex
            found = index.keys() & f"{rec.index_text} {rec.text}".lower().translate(_SPACES).split()
            holds[i, [index[w] for w in found]] = True
        yield NeighbourBatch(user, injected, holds)


__all__ = ["DESCRIPTION", "NeighbourBatch", "SyntheticConfig", "SyntheticQuery", "SyntheticUser", "make_neighbour",
           "make_queries", "make_user", "query_words", "vocabulary", "whole_sessions"]
