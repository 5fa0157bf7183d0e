"""Eval layer (fast): the LangChain and LlamaIndex peers on the same texts, vectors and k as cbmemory, and at
equal tokens as every row is (their list in rank order, as deep as the largest budget needs, apart from
--ks). Peers whose framework package is not installed are skipped, naming the package."""

from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import MemoryRecord
from cbmemory_eval.datasets import load_locomo
from cbmemory_eval.peers import PEERS, build_peer, missing_packages
from cbmemory_eval.questions import from_locomo
from cbmemory_eval.report import write_reports
from cbmemory_eval.run_state import BUDGET_DEPTH
from cbmemory_eval.runner import read_jsonl, run_eval

from ..support.embedders import FourDims


def _skip_missing(peer):
    missing = missing_packages(peer)
    if missing:
        pytest.skip(f"peer {peer} needs {', '.join(missing)} (not installed)")


@pytest.mark.heavy
@pytest.mark.parametrize("peer", PEERS)
def test_peer_runs_beside_the_recipes(peer, locomo_file, tmp_path, minilm):
    _skip_missing(peer)
    es = from_locomo(load_locomo(locomo_file))
    out = tmp_path / "peers"
    run_eval(es, out, ["vector"], k=3, ks=(1, 3, 5), baselines=(), peers=(peer,), embedder=minilm, progress=False)
    ours = {r["question_id"]: r for r in read_jsonl(out / "questions" / "vector.jsonl")}
    theirs = {r["question_id"]: r for r in read_jsonl(out / "questions" / f"{peer}.jsonl")}
    assert set(ours) == set(theirs)
    for r in theirs.values():
        assert len(r["hits"]) == 3 and r["metrics"]["latency_total_ms"] > 0 and "recall@5" in r["metrics"]
        # equal tokens from a list of its own depth (100 asked for, not --ks' 5): the whole small memory
        m = r["metrics"]
        turns = es.haystacks[r["user_id"]].turns
        assert m["budget_depth"] == BUDGET_DEPTH and m["hits@512t"] == m["hits@2048t"] == turns
        assert m["deep_enough@2048t"] == 1.0 and (not r["evidence"] or m["recall@2048t"] >= m["recall@5"])
        assert m["recall@2048t"] == ours[r["question_id"]]["metrics"]["recall@2048t"]  # both read all of it
    if peer.endswith("_vector"):  # same texts, same vectors, cosine: the same ranking as cbmemory's vector
        same = sum([h["turn_ids"] for h in ours[q]["hits"]] == [h["turn_ids"] for h in theirs[q]["hits"]]
                   for q in ours)
        assert same >= len(ours) - 1
    summary, text = write_reports(out)
    overall = summary["results"][peer]["overall"]
    assert f"| {peer} |" in text and "recall@3" in overall
    assert {"recall@512t", "recall@1024t", "recall@2048t", "hits@1024t", "deep_enough@2048t"} <= set(overall)
    table = text.split("**at equal tokens")[1].split("\n\n**")[0]
    assert f"| {peer} | " in table and "| vector | " in table


def _records(n):
    start = datetime(2023, 5, 8, tzinfo=timezone.utc)
    return [MemoryRecord(f"r{i}", "u", f"s{i // 20}", "turn", i, "user", f"turn {i} about hiking and {i % 7} dogs",
                         f"turn {i} about hiking and {i % 7} dogs", start + timedelta(minutes=i),
                         start + timedelta(minutes=i), f"h{i}", turn_id=f"D{i // 20}:{i % 20}", speaker="Ann")
            for i in range(n)]


@pytest.mark.parametrize("peer", PEERS)
def test_a_peer_returns_as_many_hits_as_an_equal_token_list_asks_for(peer):
    """A deep list (100 and the doublings past it) comes back whole, in order, without repeats."""
    _skip_missing(peer)
    records = _records(450)
    search = build_peer(peer, records, documents=FourDims(), queries=FourDims())
    for k in (BUDGET_DEPTH, 2 * BUDGET_DEPTH, 4 * BUDGET_DEPTH):
        ids = search("when did Ann go hiking with her dogs?", k)
        assert len(ids) == k == len(set(ids)) and set(ids) <= {r.record_id for r in records}
