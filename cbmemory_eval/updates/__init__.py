"""The knowledge-update benchmark (issue 31): fact changes generated into LoCoMo conversations, asked after
the last session, scored on what ``AgentMemory.recall`` shows (``cbmemory eval locomo-updates``)."""

from .generate import VARIANTS, Injection, UpdateCase, appended, generate, make_case
from .kinds import FAMILIES, KINDS, Kind
from .metrics import case_metrics, summarise, table

__all__ = ["FAMILIES", "KINDS", "VARIANTS", "Injection", "Kind", "UpdateCase", "appended", "case_metrics",
           "generate", "make_case", "summarise", "table"]
