"""Benchmark datasets as typed records with explicit evidence."""

from .locomo import CATEGORIES, MEM0_LABELS, LocomoConversation, LocomoQuestion, LocomoSession, load_locomo

__all__ = ["CATEGORIES", "MEM0_LABELS", "LocomoConversation", "LocomoQuestion", "LocomoSession", "load_locomo"]
