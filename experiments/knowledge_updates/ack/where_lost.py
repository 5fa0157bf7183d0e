"""A look (`dev` only; README, "A relative named as the object of someone's act"): where each ×10 miss's current
statement is lost in the current-value stage, from a run's work stores (``eval locomo-updates --keep-text``): not
found by either search, found but not the user's own (``statements.own``) or past ``EMBEDDED``, in the pool off the
slot, on the slot outside ``TOP``, in ``TOP`` outside ``LATEST``.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/ack/where_lost.py RUN dev
"""

import json
import sys
from collections import Counter
from dataclasses import replace
from itertools import islice

import numpy as np

from cbmemory import AgentMemory, SearchFilters
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.models import conversation_order
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval import slot_head
from cbmemory.retrieval.about import in_first_person
from cbmemory.retrieval.slots import ABOUT_PEOPLE, KINDS
from cbmemory.retrieval.statements import own
from cbmemory.store.signals import Signal
from cbmemory.text import people
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate


def lost(mem: AgentMemory, c) -> tuple[str, str]:
    """Where the current statement of case ``c`` is lost in ``mem`` (a label and a detail)."""
    def embed(t: str) -> np.ndarray:
        return mem.embedder.embed_query(t, user_id=c.user_id)

    st, protos = mem.store, C.prototypes(embed)
    slot = C.slot_of(embed(in_first_person(c.question)), protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN)
    if slot is None:
        return "no slot", ""
    names, owner, rows = protos
    filt = replace(SearchFilters(), kinds=("turn",))
    found = st.search_candidates(Signal.VECTOR, c.user_id, C.unit(rows[owner == names.index(slot)].mean(axis=0)),
                                 C.DEPTH, filt, None)
    recs = [x for x in st.read_candidates(found, list(range(len(found)))) if x is not None]
    head = slot_head.matching(rows[0])
    assert head is not None
    more = st.search_candidates(Signal.VECTOR, c.user_id, head.direction(slot), C.HEAD_DEPTH, filt, None)
    mrecs = [x for x in st.read_candidates(more, list(range(len(more)))) if x is not None]
    ids = set(c.current_turns)
    cur = [x for x in recs + mrecs if x.turn_id in ids and x.role == "user"]
    asked, matter, kind = people(c.question), ABOUT_PEOPLE.get(slot, frozenset()), KINDS.get(slot)
    pool = list(islice(((x, s) for x in recs if (s := own(x, asked, matter, kind))), C.EMBEDDED))
    seen = {x.record_id for x, _ in pool}
    pool += islice(((x, s) for x in mrecs if x.record_id not in seen and (s := own(x, asked, matter, kind))),
                   C.HEAD_EMBEDDED)
    if not cur:
        return "not found", ""
    at = [i for i, (x, _) in enumerate(pool) if x.turn_id in ids]
    if not at:
        mine = own(cur[0], asked, matter, kind)
        return "found, not in pool" + (" (past EMBEDDED)" if mine else " (not own)"), ""
    i, saids = at[0], [s for _, s in pool]
    vecs = np.stack([embed(s) for s in saids])
    scores = C.statement_scores(vecs, saids, protos, slot)
    if scores[i] is None:
        p = head.probabilities(vecs[i:i + 1])[0, head.names.index(slot)]
        return "in pool, off slot", f"p={p:.3f} {saids[i][:70]}"
    scored = sorted([(x, s) for (x, _), s in zip(pool, scores, strict=True) if s is not None], key=lambda t: -t[1])
    rank = [x.record_id for x, _ in scored].index(pool[i][0].record_id)
    if rank >= C.TOP:
        return "on slot, outside TOP", f"rank {rank} of {len(scored)}"
    top = sorted([x for x, _ in scored[:C.TOP]], key=conversation_order)
    pos = [x.record_id for x in top].index(pool[i][0].record_id)
    return "in TOP, outside LATEST", f"{len(top) - 1 - pos} newer"


def main(run: str, fam: str) -> None:
    rows = [json.loads(line) for line in open(f"{run}/cases-{fam}-x10.jsonl")]
    cases = {c.case_id: c for c in generate(load_locomo("../shared/data/locomo/locomo-dev.json"), fam)}
    emb, mems, where = MiniLMEmbedder(), {}, Counter()
    for r in rows:
        if not r["is_change"] or r["new_shown"]:
            continue
        c = cases[r["case_id"]]
        if c.user_id not in mems:
            mems[c.user_id] = AgentMemory.open(f"{run}/work/{c.user_id}-x10-{fam}.db", embedder=emb)
        label, detail = lost(mems[c.user_id], c)
        where[label] += 1
        print(c.case_id, label, detail)
    print(dict(where))


if __name__ == "__main__":
    assert sys.argv[2] == "dev", "a look at dev only: test's phrasings are not read"
    main(sys.argv[1], sys.argv[2])
