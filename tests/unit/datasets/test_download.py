"""Unit layer: ``download_official`` without a network says so in one typed error (``DownloadError``, a
``CbMemoryError``) and saves nothing; ``urlopen`` is replaced, so nothing is dialled."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from cbmemory import CbMemoryError
from cbmemory_eval.datasets import locomo


def test_no_network_is_a_typed_one_line_error(monkeypatch):
    def offline(*args, **kwargs):
        raise urllib.error.URLError(OSError(101, "Network is unreachable"))

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    dest = Path("never-written-locomo10.json")
    with pytest.raises(locomo.DownloadError, match=r"could not download LoCoMo .*Network is unreachable.*--data") as e:
        locomo.download_official(dest)
    assert isinstance(e.value, CbMemoryError) and "\n" not in str(e.value)
    assert not dest.exists()
