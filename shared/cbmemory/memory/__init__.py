"""``AgentMemory``, the one object users start from (``facade``), its async twins (``asyncs``) and how it
keeps a store's sparse vectors (``sparse``)."""

from .facade import AgentMemory

__all__ = ["AgentMemory"]
