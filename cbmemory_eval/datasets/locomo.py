"""LoCoMo (Maharana et al., ACL 2024) as typed records with explicit evidence.

Quirks of the official file handled here (see the data README): date keys without sessions (loop over
``session_<N>`` keys), integer answers (cast to str), adversarial items without ``answer`` (their
``adversarial_answer`` is kept apart), malformed evidence ids (``D8:6; D9:17`` split, ``D30:05`` read as
``D30:5``, ``D:11:26`` read as ``D11:26``) and ids that name no turn (kept in ``unknown_evidence``, not
counted as evidence).
"""

from __future__ import annotations

import hashlib
import re
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cbmemory import CbMemoryError, Message
from cbmemory.dates import to_utc

from .formats import EXPECTED, LOCOMO, DatasetFormatError, check_items, missing_key, read_json

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# Labels used by mem0-lineage tables for the same ids (they follow the paper's listing order, not the code).
MEM0_LABELS = {1: "single-hop", 2: "temporal", 3: "multi-hop", 4: "open-domain", 5: "adversarial"}
OFFICIAL_URL = "https://raw.githubusercontent.com/snap-research/locomo/3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376/data/locomo10.json"
OFFICIAL_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
_SESSION = re.compile(r"^session_(\d+)$")
_ID = re.compile(r"^D:?(\d+):0*(\d+)$")


@dataclass(frozen=True, slots=True)
class LocomoSession:
    session_id: str
    date: datetime
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class LocomoQuestion:
    question_id: str
    sample_id: str
    question: str
    answer: str | None
    adversarial_answer: str | None
    category: int
    evidence: tuple[str, ...]
    unknown_evidence: tuple[str, ...]

    @property
    def category_name(self) -> str:
        return CATEGORIES[self.category]


@dataclass(frozen=True, slots=True)
class LocomoConversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[LocomoSession, ...]
    questions: tuple[LocomoQuestion, ...]

    @property
    def last_date(self) -> datetime:
        return max(s.date for s in self.sessions)

    @property
    def turn_ids(self) -> frozenset[str]:
        return frozenset(m.turn_id for s in self.sessions for m in s.messages if m.turn_id)

    def session_of(self, turn_id: str) -> str:
        return "session_" + turn_id[1:].split(":")[0]


def normalise_evidence(raw: list[object]) -> list[str]:
    """Split and repair evidence ids; anything unreadable is dropped."""
    out: list[str] = []
    for item in raw:
        for piece in re.split(r"[;,\s]+", str(item)):
            m = _ID.match(piece.strip())
            if m:
                out.append(f"D{int(m[1])}:{int(m[2])}")
    return list(dict.fromkeys(out))


def _messages(turns: list[dict], speaker_a: str) -> tuple[Message, ...]:
    out = []
    for t in turns:
        ann = {}
        if t.get("blip_caption"):
            ann["image_caption"] = str(t["blip_caption"])
        # LoCoMo is two people talking; the first speaker is mapped to role "user", the other to "assistant".
        role = "user" if t["speaker"] == speaker_a else "assistant"
        out.append(Message(role, t["text"], t["speaker"], t["dia_id"], ann))
    return tuple(out)


def parse_conversation(obj: dict) -> LocomoConversation:
    conv = obj["conversation"]
    a, b = conv["speaker_a"], conv["speaker_b"]
    sessions = []
    numbered = sorted((int(m[1]), k) for k in conv if (m := _SESSION.match(k)))
    for _, key in numbered:
        turns = [t for t in conv[key] if str(t.get("text", "")).strip()]
        if turns:
            sessions.append(LocomoSession(key, to_utc(conv[f"{key}_date_time"]), _messages(turns, a)))
    known = frozenset(m.turn_id for s in sessions for m in s.messages)
    questions = []
    for i, qa in enumerate(obj.get("qa", [])):
        ev = normalise_evidence(qa.get("evidence", []))
        answer = qa.get("answer")
        questions.append(LocomoQuestion(
            question_id=f"{obj['sample_id']}:q{i}", sample_id=obj["sample_id"], question=qa["question"],
            answer=None if answer is None else str(answer),
            adversarial_answer=None if qa.get("adversarial_answer") is None else str(qa["adversarial_answer"]),
            category=int(qa["category"]), evidence=tuple(e for e in ev if e in known),
            unknown_evidence=tuple(e for e in ev if e not in known),
        ))
    return LocomoConversation(obj["sample_id"], a, b, tuple(sessions), tuple(questions))


def load_locomo(path: str | Path) -> list[LocomoConversation]:
    """Every conversation of an official LoCoMo file. A file in another format raises ``DatasetFormatError``
    naming the file, what it holds and what was expected."""
    items = check_items(read_json(path, LOCOMO), path, LOCOMO)
    out = []
    for i, obj in enumerate(items):
        if not isinstance(obj, dict):
            raise DatasetFormatError(f"{path}: item {i} is not an object; expected {EXPECTED[LOCOMO]}")
        try:
            out.append(parse_conversation(obj))
        except KeyError as exc:
            raise missing_key(path, i, exc.args[0], LOCOMO) from None
        except (TypeError, AttributeError, ValueError) as exc:  # a bad date (InvalidDateError) too
            raise DatasetFormatError(f"{path}: item {i} is not a LoCoMo conversation: {exc}") from None
    return out


class DownloadError(CbMemoryError):
    """The official file could not be fetched (no network, a server that refused); nothing was saved."""


def download_official(dest: str | Path) -> Path:
    """Fetch the official locomo10.json (10 conversations) and check its pinned sha256. ``DownloadError``
    (one line, no traceback from the command line) when it cannot be fetched."""
    dest = Path(dest)
    try:
        with urllib.request.urlopen(OFFICIAL_URL, timeout=60) as resp:  # noqa: S310 - fixed https URL
            body = resp.read()
    except OSError as exc:  # URLError, HTTPError, timeouts, refused connections are all OSErrors
        reason = getattr(exc, "reason", None) or exc
        raise DownloadError(f"could not download LoCoMo from {OFFICIAL_URL} ({reason}); nothing was saved. "
                            "Download that file some other way and pass its path as --data") from exc
    digest = hashlib.sha256(body).hexdigest()
    if digest != OFFICIAL_SHA256:
        raise ValueError(f"downloaded LoCoMo has sha256 {digest}, expected {OFFICIAL_SHA256}; not saved")
    dest.write_bytes(body)
    return dest


def default_path() -> Path | None:
    """The development split beside the repository (../shared/data/locomo/locomo-dev.json), if present."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
        if candidate.exists():
            return candidate
    return None
