"""Automatic answer scores against the gold answer, reported beside the LLM judge's J.

LLM judges are biased and small local ones are unusable as judges, so every QA run also scores answers
without any model:

- ``f1``: LoCoMo's official token F1 (``task_eval/evaluation.py`` of snap-research/locomo), reimplemented:
  lower-case, drop commas and punctuation, drop ``a an the and``, Porter-stem, token-overlap F1. Per
  category: 1 multi-hop splits prediction and gold on commas and averages each gold part's best F1;
  3 open-domain keeps the gold before the first ``;``; 5 adversarial scores 1 when the answer contains
  "no information available" or "not mentioned", else 0. LongMemEval has no official F1: the plain
  token F1 is used (abstention questions: 1 when the answer abstains, see ``abstained``).
- ``em``: the official exact match (same set of normalised tokens); ``contains``: the normalised gold
  appears in the normalised answer as whole words.
- ``abstained``: the answer says the information is not there (a wider phrase list than the official one).
- ``date_error_days``: for temporal questions, |date in the answer - date in the gold| in days, when both
  name a day (``7 May 2023``, ``May 7th, 2023``, ``2023-05-07``, ``2023/05/07``; a missing year is taken
  from the question date). ``date_within_1`` / ``_7`` / ``_31`` follow from it.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping
from datetime import date
from functools import lru_cache

from ..errors import MissingDependencyError

_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
OFFICIAL_ABSTAIN = ("no information available", "not mentioned")
ABSTAIN_PHRASES = OFFICIAL_ABSTAIN + (
    "not available", "no information", "not enough information", "does not mention", "doesn't mention",
    "not specified", "no mention", "not stated", "not provided", "don't know", "do not know", "unknown",
    "cannot be determined", "can't be determined", "cannot answer", "can't answer", "not in the memories",
    "no record", "not discussed", "never mentioned", "isn't mentioned", "is not mentioned",
)


@lru_cache(maxsize=1)
def _stemmer():
    try:
        from nltk.stem import PorterStemmer
    except ImportError as exc:  # pragma: no cover - nltk comes with llama-index-core / the eval extra
        raise MissingDependencyError("LoCoMo's token F1 needs nltk's Porter stemmer: pip install nltk") from exc
    return PorterStemmer()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stem(word)


def normalize_answer(s: str) -> str:
    """LoCoMo's normalisation: no commas, lower case, no punctuation, no a/an/the/and, single spaces."""
    s = s.replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def _tokens(s: str) -> list[str]:
    return [_stem(w) for w in normalize_answer(s).split()]


def token_f1(prediction: str, gold: str) -> float:
    p, g = _tokens(prediction), _tokens(gold)
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0.0
    precision, rec = same / len(p), same / len(g)
    return 2 * precision * rec / (precision + rec)


def multi_answer_f1(prediction: str, gold: str) -> float:
    """Category 1: each comma-separated gold part takes its best F1 against any prediction part."""
    preds = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in gold.split(",")]
    return sum(max(token_f1(p, g) for p in preds) for g in golds) / len(golds)


def exact_match(prediction: str, gold: str) -> float:
    return 1.0 if set(normalize_answer(prediction).split()) == set(normalize_answer(gold).split()) else 0.0


def contains(prediction: str, gold: str) -> float:
    g = normalize_answer(gold)
    return 1.0 if g and re.search(rf"(^| ){re.escape(g)}( |$)", normalize_answer(prediction)) else 0.0


def abstained(prediction: str, phrases: tuple[str, ...] = ABSTAIN_PHRASES) -> bool:
    low = prediction.lower().replace("\u2019", "'")
    return any(p in low for p in phrases)


def locomo_f1(prediction: str, gold: str | None, category: int) -> float:
    """The official per-category LoCoMo F1."""
    if category == 5:
        return 1.0 if abstained(prediction, OFFICIAL_ABSTAIN) else 0.0
    gold = gold or ""
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category == 1:
        return multi_answer_f1(prediction, gold)
    return token_f1(prediction, gold)


# ---------------------------------------------------------------------------- dates
_MONTHS = {m: i + 1 for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july",
                                            "august", "september", "october", "november", "december"))}
_MON = r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
       r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s*(?P<year>\d{4}))?"
_DATE_PATTERNS = (
    re.compile(r"\b(?P<year>\d{4})[-/](?P<mo>\d{1,2})[-/](?P<day>\d{1,2})\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MON}{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MON}\s+{_DAY}\b{_YEAR}", re.IGNORECASE),
)


def _month_number(name: str) -> int:
    key = name.lower().rstrip(".")
    return next(n for full, n in _MONTHS.items() if full.startswith(key[:3]))


def extract_date(text: str, default_year: int | None = None) -> date | None:
    """The first day-precise date named in ``text`` (earliest match position), or ``None``."""
    found: list[tuple[int, date]] = []
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            groups = m.groupdict()
            year = int(groups["year"]) if groups.get("year") else default_year
            if year is None:
                continue
            month = int(groups["mo"]) if groups.get("mo") else _month_number(groups["mon"])
            try:
                found.append((m.start(), date(year, month, int(groups["day"]))))
            except ValueError:
                continue
            break
    return min(found)[1] if found else None


def date_error_days(prediction: str, gold: str, default_year: int | None = None) -> int | None:
    g = extract_date(gold, default_year)
    p = extract_date(prediction, default_year) if g is not None else None
    return None if g is None or p is None else abs((p - g).days)


def answer_scores(prediction: str, gold: str | None, *, dataset: str, category_id: int | str,
                  unanswerable: bool, temporal: bool, default_year: int | None = None) -> dict[str, float | None]:
    """Every automatic score of one answer (``None`` where a score does not apply)."""
    out: dict[str, float | None] = {"abstained": 1.0 if abstained(prediction) else 0.0}
    if dataset == "locomo":
        out["f1"] = locomo_f1(prediction, gold, int(category_id))
    elif unanswerable:
        out["f1"] = out["abstained"]
    else:
        out["f1"] = token_f1(prediction, gold or "")
    usable = None if unanswerable else gold  # the gold answer the answer is checked against, if any
    out["em"] = None if usable is None else exact_match(prediction, usable)
    out["contains"] = None if usable is None else contains(prediction, usable)
    err = date_error_days(prediction, usable, default_year) if usable is not None and temporal else None
    out["date_error_days"] = float(err) if err is not None else None
    for days in (1, 7, 31):
        out[f"date_within_{days}"] = None if err is None else (1.0 if err <= days else 0.0)
    return out


def scores_view(scores: Mapping[str, float | None]) -> str:
    """A short human-readable line of the automatic scores (for drill-downs)."""
    return ", ".join(f"{k}={v:.2f}" for k, v in scores.items() if v is not None)
