"""What the answering model reads, as frozen data: part of every ``Recipe`` (``recipe.context``).

The study's headline is at the answer level: session dates on every memory took temporal accuracy from
about 10 % to 74 % (REFERENCE.md). What the reader is shown is therefore a setting of the recipe, not a
detail of each integration:

- ``dates``: each memory starts with the date of its session (``[Monday, 8 May 2023] Caroline: ...``).
  ``False`` hands the model undated memories, the study's baseline.
- ``resolve_dates``: a relative expression in a memory is followed by the date it means, worked out by the
  rule-based resolver against the memory's session date (``yesterday [Sunday, 7 May 2023]``). Only in
  what the model reads: the stored text stays verbatim. Needs ``dates``.
- ``say_today``: the instructions say "Today is ..." (the question's date), so that the model does not
  resolve "last year" against its own training cut-off.
- ``order``: ``chronological`` (by session date, then position: reads like the conversation) or ``rank``
  (best first).
- ``layout``: where a memory's dates go when ``resolve_dates`` is on (``LAYOUTS``); a memory with no
  relative date starts with its session date in every layout. ``session_first``: the session date first,
  each resolved date in brackets after its expression (``[Saturday, 8 March 2025] user: I adopted a puppy
  last week [week of 24 February 2025]``). ``resolved_first``: the dates the memory is about first, then
  the day it was said (``[week of 24 February 2025; said Saturday, 8 March 2025] user: I adopted a puppy
  last week``). ``replace``: each resolved date in brackets in place of its expression (``[Saturday, 8
  March 2025] user: I adopted a puppy [week of 24 February 2025]``). ``session_last``: resolved dates after
  their expressions, the session date at the end (``user: I adopted a puppy last week [week of 24
  February 2025] [said Saturday, 8 March 2025]``), the default: with the local 1.5B reader it was right on
  47 of 68 week/weekend/month/day "when" questions against 45 for ``session_first`` (the default before;
  ``experiments/date_layout/``).
- ``date_rules``: the resolver's version (a name in ``DATE_RULES``), pinned so a recipe renders the same
  text tomorrow.
- ``token_budget``: the most tokens the memories may take (``None``: no limit). The best-ranked hits are
  kept while they fit (``render.fit``: a hit whose passage does not fit is kept alone if it fits so); a
  search with the recipe returns what its context would show, and ``recall`` fits once, after dropping what
  the prompt already shows. This stage alone reads it (it was ``RetrievalConfig.token_budget`` before 0.2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..dates.relative import LATEST_DATE_RULES, check_date_rules
from ..errors import InvalidInputError
from ..validation import known_fields

ORDERS = ("chronological", "rank")
LAYOUTS = ("session_first", "resolved_first", "replace", "session_last")


@dataclass(frozen=True, slots=True)
class ContextConfig:
    """How hits become the text an LLM reads (see the module docstring for each field)."""

    dates: bool = True
    resolve_dates: bool = True
    say_today: bool = True
    order: str = "chronological"
    date_rules: str = LATEST_DATE_RULES
    layout: str = "session_last"
    token_budget: int | None = None

    def __post_init__(self) -> None:
        for name in ("dates", "resolve_dates", "say_today"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInputError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.order not in ORDERS:
            raise InvalidInputError(f"order must be one of {ORDERS}, got {self.order!r}")
        check_date_rules(self.date_rules)
        if self.layout not in LAYOUTS:
            raise InvalidInputError(f"layout must be one of {LAYOUTS}, got {self.layout!r}")
        budget = self.token_budget
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
            raise InvalidInputError(f"token_budget must be an integer of at least 1 or None, got {budget!r}")
        if self.resolve_dates and not self.dates:
            raise InvalidInputError(
                "resolve_dates=True writes dates into the memories, which contradicts dates=False (undated "
                "memories, the study's baseline): pass ContextConfig(dates=False, resolve_dates=False)")

    def with_(self, **changes: Any) -> ContextConfig:
        """A copy with some fields changed (the original is untouched)."""
        unknown = set(changes) - set(FIELDS)
        if unknown:
            raise InvalidInputError(f"unknown ContextConfig fields {sorted(unknown)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContextConfig:
        """The config ``to_dict`` wrote (missing fields take their defaults; unknown ones are refused)."""
        return cls(**known_fields(cls, data))


FIELDS = tuple(f.name for f in dataclasses.fields(ContextConfig))

# What the reader is shown in the answer-level study (issue 15): the same retrieval, four ways to read it.
READINGS: Mapping[str, ContextConfig] = MappingProxyType({
    "undated": ContextConfig(dates=False, resolve_dates=False),
    "dated": ContextConfig(resolve_dates=False),
    "resolved": ContextConfig(),
    "resolved_no_today": ContextConfig(say_today=False),
})
