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
- Dates, for temporal questions with an answerable gold (``date_scores``). The gold's days come from
  ``answer_dates.date_range``: a day, or a span for a gold relative to a date ("The week before 9 June
  2023" is 29 May-4 June, "The sunday before 25 May 2023" is 21 May), a range, a week or a month. A gold
  with no date, or only a season or year (a span over ``MAX_GOLD_SPAN_DAYS``), cannot score a date:
  ``date_gold_usable`` is 0 and the other date scores are ``None`` (the report counts these questions).
  Otherwise ``date_gold_usable`` is 1 and the answer's first date expression is read the same way (an
  answer "the week before 9 June 2023" is that week, not 9 June):

  - ``date_answered``: 1 when the answer names a date, else 0;
  - ``date_error_days``: days from the answer's date to the gold's span (0 inside it; an answer's span is
    charged for its farthest day), ``None`` when the answer names no date;
  - ``date_within_1`` / ``_7`` / ``_31``: 1 when the error is at most that many days, 0 otherwise, **also
    0 when the answer names no date** (a miss), so their mean is over every question with a usable gold.

  A missing year is taken from the question date. ``SCORES_VERSION`` names these rules; it is recorded
  with every QA result, so runs scored by other rules are not mixed.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache

from cbmemory import MissingDependencyError

from .answer_dates import DateRange, date_error, date_range
from .answer_dates import extract_date as extract_date  # re-exported: cbmemory_eval.extract_date

SCORES_VERSION = "cbmemory-scores-v2"  # v2: relative gold dates resolved, answers without a date are misses
MAX_GOLD_SPAN_DAYS = 31
WITHIN_DAYS = (1, 7, 31)
DATE_METRICS = ("date_gold_usable", "date_answered", "date_error_days",
                *(f"date_within_{d}" for d in WITHIN_DAYS))
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
def date_error_days(prediction: str, gold: str, default_year: int | None = None) -> int | None:
    """Days from the answer's date to the gold's span (``answer_dates.date_error``), or ``None`` when the
    answer names no date or the gold has no usable one (``gold_date``)."""
    g = gold_date(gold, default_year)
    p = date_range(prediction, default_year) if g is not None else None
    return None if g is None or p is None else date_error(p, g)


def gold_date(gold: str | None, default_year: int | None = None) -> DateRange | None:
    """The gold answer's days when they can score an answer's date: a span of at most
    ``MAX_GOLD_SPAN_DAYS`` (a day, a week, a month, a range); ``None`` for no date, a season or a year."""
    days = date_range(gold, default_year) if gold else None
    return days if days is not None and days.days <= MAX_GOLD_SPAN_DAYS else None


def date_scores(prediction: str, gold: str | None, default_year: int | None = None) -> dict[str, float | None]:
    """The date scores of one temporal question (see the module docstring)."""
    g = gold_date(gold, default_year)
    out: dict[str, float | None] = {"date_gold_usable": 0.0 if g is None else 1.0, "date_answered": None,
                                    "date_error_days": None}
    out.update({f"date_within_{d}": None for d in WITHIN_DAYS})
    if g is None:
        return out
    p = date_range(prediction, default_year)
    err = None if p is None else date_error(p, g)
    out["date_answered"] = 0.0 if p is None else 1.0
    out["date_error_days"] = None if err is None else float(err)
    for d in WITHIN_DAYS:
        out[f"date_within_{d}"] = 1.0 if err is not None and err <= d else 0.0
    return out


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
    if temporal and usable is not None:
        out.update(date_scores(prediction, usable, default_year))
    else:
        out.update(dict.fromkeys(DATE_METRICS))
    return out


def scores_view(scores: Mapping[str, float | None]) -> str:
    """A short human-readable line of the automatic scores (for drill-downs)."""
    return ", ".join(f"{k}={v:.2f}" for k, v in scores.items() if v is not None)
