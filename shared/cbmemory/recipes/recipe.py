"""``Recipe``: a named way of storing, searching and showing memories, the three stages' settings in one
frozen, serialisable value (``to_json`` / ``from_json`` round-trip exactly). It sits above the stages it
bundles (``cbmemory.ingest``, ``cbmemory.retrieval``, ``cbmemory.context``): none of them imports it.

    custom = RECIPES["hybrid"].with_(name="hybrid_20", k=20)   # retrieval settings pass through
    text = custom.to_json()                                    # what the evaluation stamps on each row
    assert Recipe.from_json(text) == custom
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..context import ContextConfig
from ..errors import InvalidInputError
from ..ingest import DEFAULT_INGEST, IngestConfig
from ..retrieval.config import CHANGES as RETRIEVAL_CHANGES
from ..retrieval.config import RetrievalConfig

# A name is also a file name (the evaluation writes questions/<name>.jsonl) and a row label ("@" marks a
# haystack scale there): letters, digits, "_" and "-".
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
_DEFAULT_RETRIEVAL = RetrievalConfig()
_DEFAULT_CONTEXT = ContextConfig()
BUDGET = "token_budget"  # the one context setting recipe.with_ takes by name (it was a retrieval setting)


@dataclass(frozen=True, slots=True)
class Recipe:
    """A named way of storing and searching memories.

    - ``name``: letters, digits, ``_`` and ``-`` (at most 64); stamped on every hit it returns.
    - ``description``: one line for people (``cbmemory recipes``).
    - ``ingest``: the ``IngestConfig`` its records are made with (an ``AgentMemory`` opened with the recipe
      writes that way unless given its own ``ingest``).
    - ``retrieval``: the ``RetrievalConfig`` that searches them.
    - ``context``: the ``ContextConfig`` of what the answering model reads (date prefix, relative dates
      resolved in place, "Today is ...", and its ``token_budget``).
    """

    name: str
    description: str = ""
    ingest: IngestConfig = DEFAULT_INGEST
    retrieval: RetrievalConfig = _DEFAULT_RETRIEVAL
    context: ContextConfig = _DEFAULT_CONTEXT

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise InvalidInputError(f"a recipe name is 1 to 64 letters, digits, '_' or '-' (starting with a "
                                    f"letter or digit), got {self.name!r}")
        if not isinstance(self.description, str):
            raise InvalidInputError(f"description must be a string, got {type(self.description).__name__}")
        if not isinstance(self.ingest, IngestConfig):
            raise InvalidInputError(f"ingest must be an IngestConfig, got {type(self.ingest).__name__}")
        if not isinstance(self.retrieval, RetrievalConfig):
            raise InvalidInputError(f"retrieval must be a RetrievalConfig, got {type(self.retrieval).__name__}")
        if not isinstance(self.context, ContextConfig):
            raise InvalidInputError(f"context must be a ContextConfig, got {type(self.context).__name__}")

    def with_(self, **changes: Any) -> Recipe:
        """A copy with some fields changed (the original is untouched). Besides ``name``, ``description``,
        ``ingest``, ``retrieval`` and ``context``, what ``RetrievalConfig.with_`` takes may be given directly
        (its fields and flat names): ``recipe.with_(name="mine", k=20, vector_pool=100)`` changes the copy's
        ``retrieval``; and ``token_budget`` changes the copy's ``context`` (``recipe.with_(token_budget=None)``:
        no budget)."""
        own = {key: changes.pop(key) for key in FIELDS if key in changes}
        budget = {BUDGET: changes.pop(BUDGET)} if BUDGET in changes else None
        unknown = set(changes) - set(RETRIEVAL_CHANGES)
        if unknown:
            raise InvalidInputError(f"unknown Recipe or RetrievalConfig fields {sorted(unknown)}")
        for name, group, moved in (("retrieval", RetrievalConfig, changes), ("context", ContextConfig, budget)):
            if moved:
                base: Any = own.get(name, getattr(self, name))
                if not isinstance(base, group):
                    raise InvalidInputError(f"{name} must be a {group.__name__}, got {type(base).__name__}")
                own[name] = base.with_(**moved)
        return dataclasses.replace(self, **own)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"name", "description", "ingest": {...}, "retrieval": {...}, "context": {...}}``."""
        return {"name": self.name, "description": self.description, "ingest": self.ingest.to_dict(),
                "retrieval": self.retrieval.to_dict(), "context": self.context.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recipe:
        """The recipe ``to_dict`` wrote. ``name`` is required; a missing ``description``, ``ingest``,
        ``retrieval`` or ``context`` (or a missing field inside them) takes its default; unknown fields and
        values raise ``InvalidInputError``. ``retrieval`` may be in the flat form recipes were stamped with
        before its groups (``RetrievalConfig.from_dict``), and may hold the ``token_budget`` recipes were
        stamped with before it moved to ``context`` (read as the context's)."""
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"a recipe must be a JSON object, got {type(data).__name__}")
        unknown = set(data) - set(FIELDS)
        if unknown:
            raise InvalidInputError(f"unknown Recipe fields {sorted(unknown)}")
        if "name" not in data:
            raise InvalidInputError("a recipe needs a name")
        ingest = data.get("ingest")
        retrieval, context = _budget_moved(data.get("retrieval"), data.get("context"))
        return cls(data["name"], data.get("description", ""),
                   IngestConfig.from_dict(ingest) if ingest is not None else DEFAULT_INGEST,
                   RetrievalConfig.from_dict(retrieval) if retrieval is not None else _DEFAULT_RETRIEVAL,
                   ContextConfig.from_dict(context) if context is not None else _DEFAULT_CONTEXT)

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Recipe:
        """The recipe ``to_json`` wrote; text that is not JSON raises ``InvalidInputError`` too."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"a recipe must be JSON: {exc}") from None
        return cls.from_dict(data)


FIELDS = tuple(f.name for f in dataclasses.fields(Recipe))


def _budget_moved(retrieval: Any, context: Any) -> tuple[Any, Any]:
    """A stamped recipe's ``retrieval`` and ``context`` with a ``token_budget`` written in ``retrieval``
    (before it was the context stage's) moved to ``context``; given in both, it must agree."""
    if not isinstance(retrieval, Mapping) or BUDGET not in retrieval:
        return retrieval, context
    budget = retrieval[BUDGET]
    retrieval = {n: v for n, v in retrieval.items() if n != BUDGET}
    if budget is None:  # no budget: the context's own (or none) stands
        return retrieval, context
    if context is None:
        context = {}
    if not isinstance(context, Mapping):
        return retrieval, context  # ContextConfig.from_dict says what is wrong with it
    if BUDGET in context and context[BUDGET] != budget:
        raise InvalidInputError(f"token_budget given twice, {budget!r} in retrieval and {context[BUDGET]!r} "
                                "in context")
    return retrieval, {**context, BUDGET: budget}


__all__ = ["FIELDS", "Recipe"]
