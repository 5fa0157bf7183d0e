"""Unit layer (eval.peers): peer groups expand to the peers they name."""

import pytest

from cbmemory_eval.peers import PEERS, expand


def test_expand_groups():
    assert expand(["langchain"]) == ("langchain_vector", "langchain_ensemble")
    assert expand(["all", "llamaindex_vector"]) == PEERS
    with pytest.raises(ValueError, match="unknown peer"):
        expand(["haystack"])
