"""The slot head's features: per question of a benchmark run (``eval locomo-updates --keep-text``), the stage's choice
and the statements it ranks (the first ``EMBEDDED`` of the user's own statements among the ``DEPTH`` records of the
slot's search: turn id, what it states, place in the conversation), and the MiniLM vectors of what they state.
``cv.py`` replays the stage's choice from these with any head setting.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/features.py FAMILY RUN SCALE OUT.pkl

``RUN``: the run's ``--out`` (its ``cases-FAMILY-SCALE.jsonl`` and ``work/`` stores); ``SCALE``: ``x1`` or ``x10``.
"""

from __future__ import annotations

import json
import pickle
import sys
from itertools import islice

import numpy as np

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.models import SearchFilters
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.statements import own
from cbmemory.store.signals import Signal
from cbmemory.text import people


def main(family: str, run: str, scale: str, out: str) -> None:
    emb = MiniLMEmbedder()
    cases = [json.loads(line) for line in open(f"{run}/cases-{family}-{scale}.jsonl")]
    protos = C.prototypes(emb.embed_query, emb.embed_queries)
    vec: dict[str, np.ndarray] = {}

    def vecs(texts):
        need = [t for t in dict.fromkeys(texts) if t not in vec]
        for i in range(0, len(need), 256):
            vec.update(zip(need[i:i + 256], emb.embed(need[i:i + 256]), strict=True))
        return np.stack([vec[t] for t in texts])

    feats, opened = [], None
    for case in cases:
        user = case["user_id"]
        path = f"{run}/work/{user}-{scale}-{family}.db"
        if opened is None or opened[0] != path:
            if opened:
                opened[1].close()
            m = AgentMemory.open(path, embedder=emb)
            opened = (path, m, {r.record_id: i for i, r in enumerate(m.session_records(user))})
        _, m, order = opened
        q = case["question"]
        stage = C.latest_statements(m.store, emb.embed_query, user, q, SearchFilters(), None, vecs,
                                    emb.embed_queries)
        slot = C.slot_of(emb.embed_query(C.in_first_person(q)), protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN)
        f = {"case_id": case["case_id"], "var": case["variant"], "is_change": case["is_change"],
             "new_shown": case["new_shown"], "stale_shown": case["stale_shown"], "slot": slot,
             "stage": [r.turn_id for r in stage], "pool": []}
        if slot is not None and C.about_the_user(q):
            names, owner, rows = protos
            probe = C.unit(rows[owner == names.index(slot)].mean(axis=0))
            found = m.store.search_candidates(Signal.VECTOR, user, probe, C.DEPTH, SearchFilters(kinds=("turn",)),
                                              None)
            read = [r for r in m.store.read_candidates(found, list(range(len(found)))) if r is not None]
            asked, matter, kind = people(q), C.ABOUT_PEOPLE.get(slot, frozenset()), C.KINDS.get(slot)
            pool = list(islice(((r, s) for r in read if (s := own(r, asked, matter, kind))), C.EMBEDDED))
            if pool:
                vecs([s for _, s in pool])
            f["pool"] = [(r.turn_id, s, order[r.record_id]) for r, s in pool]
        feats.append(f)
    if opened:
        opened[1].close()
    with open(out, "wb") as fh:
        pickle.dump((feats, vec), fh)


if __name__ == "__main__":
    main(*sys.argv[1:5])
