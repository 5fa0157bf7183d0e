"""Benchmark datasets as typed records with explicit evidence."""

from .locomo import CATEGORIES, MEM0_LABELS, LocomoConversation, LocomoQuestion, LocomoSession, load_locomo
from .longmemeval import QUESTION_TYPES, LongMemEvalQuestion, LongMemEvalSession, load_longmemeval

__all__ = [
    "CATEGORIES", "MEM0_LABELS", "QUESTION_TYPES", "LocomoConversation", "LocomoQuestion", "LocomoSession",
    "LongMemEvalQuestion", "LongMemEvalSession", "load_locomo", "load_longmemeval",
]
