"""Benchmark datasets as typed records with explicit evidence. A file in another format raises
``DatasetFormatError`` (an ``InvalidInputError``) naming the file, what it holds and what was expected."""

from .formats import DatasetFormatError
from .locomo import CATEGORIES, MEM0_LABELS, LocomoConversation, LocomoQuestion, LocomoSession, load_locomo
from .longmemeval import QUESTION_TYPES, LongMemEvalQuestion, LongMemEvalSession, load_longmemeval

__all__ = [
    "CATEGORIES", "MEM0_LABELS", "QUESTION_TYPES", "DatasetFormatError", "LocomoConversation", "LocomoQuestion",
    "LocomoSession", "LongMemEvalQuestion", "LongMemEvalSession", "load_locomo", "load_longmemeval",
]
