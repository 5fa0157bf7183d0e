"""How often the relative-date resolver is right, and how much of what it could resolve it does.

Measured on a hand-labelled sample of relative expressions from LoCoMo turns
(``tests/data/relative_dates/locomo_dev.jsonl``; its README says how it was drawn and labelled). Each
line is one expression: the turn text and session date, the phrase with its character offsets, and the
gold span (``{"start": ..., "end": ...}``) or ``"ambiguous"`` (a careful reader could not name one date).

The resolver runs on the whole turn text; a found expression is matched to a labelled phrase of the same
turn when their character ranges overlap (the largest overlap wins). Then, per labelled expression:

- ``correct``: resolved, and the span equals the gold span exactly;
- ``wrong``: resolved to another span, or resolved at all when the gold is ``"ambiguous"``;
- ``missed``: a resolvable expression left unresolved;
- ``abstained``: an ambiguous expression left unresolved (what should happen).

precision = correct / resolved; coverage = correct / resolvable (non-ambiguous). A wrong date is worse
than none, so ``wrong`` is reported as a count as well. ``HALVES`` splits the sample by conversation
(fixed, 4 + 4): rules were written looking at the misses of the first half only, so the second half
measures them out of sample.

    python -m cbmemory_eval.resolver_coverage tests/data/relative_dates/locomo_dev.jsonl [--rules rules-v2]

Several samples may be named at once (their lines are scored together; the LoCoMo halves stay apart and any
other conversation is its own row, "other"): ``tests/data/relative_dates/issue22_quotes_titles.jsonl`` holds
the quoted titles and mid-sentence capitals of issue 22 that rules-v3 leaves alone, and their controls.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from cbmemory import InvalidInputError
from cbmemory.dates import LATEST_DATE_RULES, RULE_TABLES, RelativeDate, find_relative_dates

AMBIGUOUS = "ambiguous"
VERDICTS = ("correct", "wrong", "missed", "abstained")
# The fixed split by conversation: rules were widened looking at the misses of "tune" only.
HALVES: Mapping[str, tuple[str, ...]] = {
    "tune": ("conv-26", "conv-30", "conv-41", "conv-42"),
    "held-out": ("conv-43", "conv-44", "conv-47", "conv-48"),
}
_FIELDS = ("conversation", "dia_id", "session_date", "text", "phrase", "start", "end", "gold")


class InvalidSampleError(InvalidInputError):
    """A line of the labelled sample that does not follow its schema (the message names the line)."""


@dataclass(frozen=True, slots=True)
class LabelledExpression:
    """One hand-labelled expression. ``gold`` is ``(first day, last day)``, or ``None`` for ambiguous."""

    conversation: str
    dia_id: str
    session_date: date
    text: str
    phrase: str
    start: int
    end: int
    gold: tuple[date, date] | None
    note: str = ""

    @property
    def resolvable(self) -> bool:
        return self.gold is not None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the resolver did with one labelled expression (``found`` is its match, if any)."""

    item: LabelledExpression
    found: RelativeDate | None
    verdict: str


@dataclass(frozen=True, slots=True)
class Coverage:
    """The scores of one set of outcomes."""

    items: int
    resolvable: int
    resolved: int
    correct: int
    wrong: int

    @property
    def precision(self) -> float:
        return self.correct / self.resolved if self.resolved else 1.0

    @property
    def coverage(self) -> float:
        return self.correct / self.resolvable if self.resolvable else 0.0


# ---------------------------------------------------------------------------- reading the sample
def _iso(value: Any, where: str) -> date:
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise InvalidSampleError(f"{where}: {value!r} is not an ISO date (YYYY-MM-DD)") from None


def parse_item(obj: Mapping[str, Any], where: str = "item") -> LabelledExpression:
    """One labelled expression from its JSON object; ``InvalidSampleError`` when a field is missing or
    wrong (offsets that do not cut the phrase out of the text, a gold span that ends before it starts)."""
    if not isinstance(obj, Mapping):
        raise InvalidSampleError(f"{where}: expected a JSON object")
    missing = [f for f in _FIELDS if f not in obj]
    if missing:
        raise InvalidSampleError(f"{where}: missing {', '.join(missing)}")
    text, phrase, start, end = obj["text"], obj["phrase"], obj["start"], obj["end"]
    if not (isinstance(text, str) and isinstance(phrase, str) and phrase):
        raise InvalidSampleError(f"{where}: text and phrase must be strings, the phrase non-empty")
    if not (type(start) is int and type(end) is int and 0 <= start < end <= len(text)):
        raise InvalidSampleError(f"{where}: offsets {start!r}..{end!r} are not a range of the text")
    if text[start:end] != phrase:
        raise InvalidSampleError(f"{where}: text[{start}:{end}] is {text[start:end]!r}, not {phrase!r}")
    raw = obj["gold"]
    gold: tuple[date, date] | None
    if raw == AMBIGUOUS:
        gold = None
    elif isinstance(raw, Mapping) and set(raw) == {"start", "end"}:
        gold = (_iso(raw["start"], where), _iso(raw["end"], where))
        if gold[1] < gold[0]:
            raise InvalidSampleError(f"{where}: the gold span ends before it starts")
    else:
        raise InvalidSampleError(f"{where}: gold must be {{'start', 'end'}} or {AMBIGUOUS!r}, got {raw!r}")
    note = obj.get("note", "")
    if not isinstance(note, str):
        raise InvalidSampleError(f"{where}: note must be a string")
    return LabelledExpression(str(obj["conversation"]), str(obj["dia_id"]), _iso(obj["session_date"], where),
                              text, phrase, start, end, gold, note)


def parse_sample(lines: Iterable[str], source: str = "sample") -> tuple[LabelledExpression, ...]:
    """Every labelled expression of a JSONL text (blank lines skipped); two labels of one phrase (same
    turn, same offsets) are refused."""
    items: list[LabelledExpression] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidSampleError(f"{where}: not JSON ({exc.msg})") from None
        items.append(parse_item(obj, where))
    keys = [(i.conversation, i.dia_id, i.start, i.end) for i in items]
    if len(set(keys)) != len(keys):
        raise InvalidSampleError(f"{source}: a phrase is labelled twice")
    return tuple(items)


def load_sample(path: str | Path) -> tuple[LabelledExpression, ...]:
    """The labelled sample in a JSONL file (see ``parse_sample``)."""
    with open(path, encoding="utf-8") as f:
        return parse_sample(f, str(path))


# ---------------------------------------------------------------------------- scoring
def match(item: LabelledExpression, found: Sequence[RelativeDate]) -> RelativeDate | None:
    """The found expression that overlaps the labelled phrase most (``None`` when none overlaps)."""
    best, best_overlap = None, 0
    for f in found:
        overlap = min(f.end, item.end) - max(f.start, item.start)
        if overlap > best_overlap:
            best, best_overlap = f, overlap
    return best


def judge(item: LabelledExpression, found: RelativeDate | None) -> str:
    """The verdict (``VERDICTS``) on one labelled expression given its matched resolution."""
    if found is None:
        return "missed" if item.resolvable else "abstained"
    return "correct" if item.gold == (found.span.start, found.span.end) else "wrong"


def outcomes(items: Sequence[LabelledExpression], rules: str = LATEST_DATE_RULES) -> tuple[Outcome, ...]:
    """The resolver (``rules`` version) run once per turn, each labelled expression judged."""
    cache: dict[tuple[str, str, date, str], list[RelativeDate]] = {}
    out = []
    for item in items:
        key = (item.conversation, item.dia_id, item.session_date, item.text)
        if key not in cache:
            cache[key] = find_relative_dates(item.text, item.session_date, rules=rules)
        found = match(item, cache[key])
        out.append(Outcome(item, found, judge(item, found)))
    return tuple(out)


def score(results: Iterable[Outcome]) -> Coverage:
    """Counts and rates of a set of outcomes."""
    results = list(results)
    verdicts = [r.verdict for r in results]
    return Coverage(items=len(results), resolvable=sum(r.item.resolvable for r in results),
                    resolved=verdicts.count("correct") + verdicts.count("wrong"),
                    correct=verdicts.count("correct"), wrong=verdicts.count("wrong"))


def half_of(conversation: str) -> str:
    """The ``HALVES`` name a conversation belongs to ("other" for one in neither)."""
    return next((name for name, convs in HALVES.items() if conversation in convs), "other")


def by_half(results: Sequence[Outcome]) -> dict[str, Coverage]:
    """The scores of each half, then ``"all"``."""
    names = [n for n in HALVES if any(half_of(r.item.conversation) == n for r in results)]
    if any(half_of(r.item.conversation) == "other" for r in results):
        names.append("other")
    table = {n: score(r for r in results if half_of(r.item.conversation) == n) for n in names}
    table["all"] = score(results)
    return table


# ---------------------------------------------------------------------------- the table
def _span(a: date, b: date) -> str:
    return a.isoformat() if a == b else f"{a.isoformat()}..{b.isoformat()}"


def describe(result: Outcome) -> str:
    """One line for a miss or a wrong date: where, the phrase, the gold and what the resolver said."""
    item = result.item
    gold = _span(*item.gold) if item.gold else AMBIGUOUS
    said = "-" if result.found is None else _span(result.found.span.start, result.found.span.end)
    return (f"{result.verdict:7} {item.conversation} {item.dia_id:7} {item.session_date} "
            f"{item.phrase!r}: gold {gold}, resolver {said}")


def report(items: Sequence[LabelledExpression], versions: Sequence[str]) -> str:
    """The table (one row per version and half) and, per version, its wrong dates and misses."""
    lines = [f"{'rules':9} {'half':9} {'items':>5} {'resolvable':>10} {'resolved':>8} {'correct':>7} "
             f"{'wrong':>5} {'precision':>9} {'coverage':>8}"]
    details: list[str] = []
    for version in versions:
        results = outcomes(items, version)
        for half, c in by_half(results).items():
            lines.append(f"{version:9} {half:9} {c.items:>5} {c.resolvable:>10} {c.resolved:>8} {c.correct:>7} "
                         f"{c.wrong:>5} {c.precision:>9.3f} {c.coverage:>8.3f}")
        bad = [describe(r) for r in results if r.verdict in ("wrong", "missed")]
        details.append(f"\n{version}: {len(bad)} wrong or missed")
        details.extend(f"  [{half_of(r.item.conversation)}] {describe(r)}"
                       for r in results if r.verdict in ("wrong", "missed"))
    return "\n".join(lines + details)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cbmemory_eval.resolver_coverage",
                                     description="Precision and coverage of the relative-date resolver.")
    parser.add_argument("paths", nargs="+", metavar="path", help="a labelled JSONL sample (one or more)")
    parser.add_argument("--rules", action="append", choices=sorted(RULE_TABLES),
                        help="a rules version (repeatable; default: every version)")
    args = parser.parse_args(argv)
    items = tuple(item for path in args.paths for item in load_sample(path))
    print(report(items, args.rules or sorted(RULE_TABLES)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
