"""Unit layer (langchain_cbmemory.legacy): without the langchain-classic extra, importing the legacy memory
names the extra to install."""

from __future__ import annotations

import importlib
import sys

import pytest

from cbmemory.errors import MissingDependencyError


def test_legacy_memory_without_langchain_classic_names_the_extra(monkeypatch):
    import langchain_cbmemory

    monkeypatch.setitem(sys.modules, "langchain_classic", None)
    monkeypatch.setitem(sys.modules, "langchain_classic.base_memory", None)
    monkeypatch.delitem(sys.modules, "langchain_cbmemory.legacy", raising=False)
    with pytest.raises(MissingDependencyError, match=r"pip install 'cbmemory\[langchain-classic\]'"):
        importlib.import_module("langchain_cbmemory.legacy")
    with pytest.raises(ImportError, match="langchain-classic"):
        langchain_cbmemory.CbMemoryLegacyMemory  # noqa: B018
    monkeypatch.delitem(sys.modules, "langchain_cbmemory.legacy", raising=False)
