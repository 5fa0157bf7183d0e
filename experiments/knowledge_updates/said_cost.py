"""Issue 31: what keeping a vector of what each user turn states (``text.stated``) would add to ingest, the cost
side of moving the current-value stage's statement embedding from read time to write time: one LoCoMo conversation
at x1, the stated texts of the user's turns embedded a session at a time (as the ingest embeds), timed three times,
per turn of the conversation (compare ``write_cost.py``'s whole ingest per turn).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/said_cost.py [DATA] [CONVERSATION]
"""
import sys
import time

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.text import stated
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.scale import scaled_haystacks

data = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/locomo/locomo-dev.json"
conv = sys.argv[2] if len(sys.argv) > 2 else "conv-26"
convs = load_locomo(data)
hs = scaled_haystacks([c for c in convs if c.sample_id == conv], 1)[conv]
emb = MiniLMEmbedder()
emb.embed(["warm"])
sessions = []
for _, turns, _ in hs.batches():
    said = [stated(t.content) for t in turns if t.role == "user"]
    sessions.append([s for s in said if s])
n_turns = hs.turns
n_said = sum(len(s) for s in sessions)
for _ in range(3):
    t = time.perf_counter()
    for s in sessions:
        if s:
            emb.embed(s)
    took = time.perf_counter() - t
    print(f"{n_said} statements of {n_turns} turns: {took:.2f} s, {1000 * took / n_turns:.1f} ms a turn")
