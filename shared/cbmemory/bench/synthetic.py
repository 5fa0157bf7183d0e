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
- Queries: a "needle" record chosen at random; the query text names three of its rarest words, its vector is
  the needle's vector plus noise (cosine ~0.9). Whether each system returns the needle in its top k is a
  sanity check that they all searched the same data, not a quality evaluation (that is ``cbmemory eval``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from importlib import resources

import numpy as np

from ..ingest import IngestConfig, build_records, validate_messages
from ..models import MemoryRecord, Session
from ..retrieval.recipes import DEFAULT

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
    ingest: IngestConfig = DEFAULT.ingest


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


def _centres(cfg: SyntheticConfig) -> np.ndarray:
    rng = np.random.default_rng(_seed(cfg, "centres"))
    c = rng.standard_normal((cfg.topics, cfg.dimension)).astype(np.float32)
    return c / np.linalg.norm(c, axis=1, keepdims=True)


def _topic_words(cfg: SyntheticConfig) -> np.ndarray:
    rng = np.random.default_rng(_seed(cfg, "topic-words"))
    v = len(vocabulary())
    return rng.integers(500, v, size=(cfg.topics, cfg.topic_words))


def _normalise(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def make_user(user_id: str, n: int, cfg: SyntheticConfig = SyntheticConfig()) -> SyntheticUser:
    """``n`` records of ``user_id`` (sessions of ``turns_per_session`` turns; the last one may be shorter)."""
    vocab = vocabulary()
    v = len(vocab)
    rng = np.random.default_rng(_seed(cfg, "user", user_id))
    zipf = 1.0 / np.arange(1, v + 1) ** cfg.zipf_s
    zipf /= zipf.sum()
    lengths = rng.integers(cfg.min_words, cfg.max_words + 1, size=n)
    total = int(lengths.sum())
    general = rng.choice(v, size=total, p=zipf)
    n_sessions = -(-n // cfg.turns_per_session)
    session_topic = rng.integers(0, cfg.topics, size=n_sessions)
    record_topic = np.repeat(session_topic, cfg.turns_per_session)[:n]
    per_word_topic = np.repeat(record_topic, lengths)
    pick = rng.integers(0, cfg.topic_words, size=total)
    topical = _topic_words(cfg)[per_word_topic, pick]
    word_ids = np.where(rng.random(total) < 1 / 3, topical, general)
    words = np.asarray(vocab, dtype=object)[word_ids]
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    texts = [" ".join(words[bounds[i]: bounds[i + 1]]) for i in range(n)]

    sessions, records = [], []
    for s in range(n_sessions):
        sid = f"s{s:05d}"
        date = START + timedelta(days=s)
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


def make_queries(user: SyntheticUser, count: int, cfg: SyntheticConfig = SyntheticConfig()) -> list[SyntheticQuery]:
    """``count`` needle queries over ``user``'s records (deterministic)."""
    rank = {w: i for i, w in enumerate(vocabulary())}
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


__all__ = ["DESCRIPTION", "SyntheticConfig", "SyntheticQuery", "SyntheticUser", "make_queries", "make_user",
           "vocabulary"]
