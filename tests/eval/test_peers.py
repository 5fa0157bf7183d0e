"""Eval layer (fast): the LangChain and LlamaIndex peers on the same texts, vectors and k as cbmemory.
Peers whose framework package is not installed are skipped, naming the package."""

import pytest

from cbmemory_eval.datasets import load_locomo
from cbmemory_eval.peers import PEERS, missing_packages
from cbmemory_eval.questions import from_locomo
from cbmemory_eval.report import write_reports
from cbmemory_eval.runner import read_jsonl, run_eval


@pytest.mark.parametrize("peer", PEERS)
def test_peer_runs_beside_the_recipes(peer, locomo_file, tmp_path, minilm):
    missing = missing_packages(peer)
    if missing:
        pytest.skip(f"peer {peer} needs {', '.join(missing)} (not installed)")
    es = from_locomo(load_locomo(locomo_file))
    out = tmp_path / "peers"
    run_eval(es, out, ["vector"], k=3, ks=(1, 3, 5), baselines=(), peers=(peer,), embedder=minilm, progress=False)
    ours = {r["question_id"]: r for r in read_jsonl(out / "questions" / "vector.jsonl")}
    theirs = {r["question_id"]: r for r in read_jsonl(out / "questions" / f"{peer}.jsonl")}
    assert set(ours) == set(theirs)
    for r in theirs.values():
        assert len(r["hits"]) == 3 and r["metrics"]["latency_total_ms"] > 0 and "recall@5" in r["metrics"]
    if peer.endswith("_vector"):  # same texts, same vectors, cosine: the same ranking as cbmemory's vector
        same = sum([h["turn_ids"] for h in ours[q]["hits"]] == [h["turn_ids"] for h in theirs[q]["hits"]]
                   for q in ours)
        assert same >= len(ours) - 1
    summary, text = write_reports(out)
    assert f"| {peer} |" in text and "recall@3" in summary["results"][peer]["overall"]
