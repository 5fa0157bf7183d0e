"""Issue 31, a `train`-only look: multilingual-e5-small (the product's optional ``E5SmallEmbedder``) against MiniLM as
the current-value stage's slot detector, without a haystack's stores: for each `train` change, the rank of its
current statement (what it states, ``text.stated``) among the user's LoCoMo statements and the case's own injected
statements, by the cosine to the question's slot (its nearest description), and how often the statement's nearest
slot is the question's. Each model embeds the descriptions, the question and the statements itself (e5 with its
query prefix, as the product's ``embed_queries``).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/e5_rank.py
"""

import numpy as np

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.embedding.e5 import E5SmallEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.text import stated
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate


def unit(m):
    m = np.asarray(m, np.float32)
    return m / np.linalg.norm(m, axis=-1, keepdims=True)


def main() -> None:
    convs = load_locomo("../shared/data/locomo/locomo-dev.json")
    cases = [c for c in generate(convs, "train", seed=0) if c.is_change]
    plain = {}
    for conv in convs:
        msgs = [m for s in conv.sessions for m in s.messages]
        plain[conv.sample_id] = [t for m in msgs if m.speaker == msgs[0].speaker and (t := stated(m.content))]
    owner = np.array([i for i, n in enumerate(C.SLOTS) for _ in C.SLOTS[n]])
    for name, emb in (("minilm", MiniLMEmbedder()), ("e5", E5SmallEmbedder())):
        descriptions = unit(emb.embed_queries([t for n in C.SLOTS for t in C.SLOTS[n]]))

        def by_slot(texts, query=False, emb=emb, descriptions=descriptions):
            cos = unit(emb.embed_queries(texts) if query else emb.embed(texts)) @ descriptions.T
            return np.stack([cos[:, owner == j].max(axis=1) for j in range(len(C.SLOTS))], axis=1)

        base = {k: by_slot(v) for k, v in plain.items()}
        ranks, nearest = [], 0
        for c in cases:
            said = [stated(m.content) for inj in c.injections for m in inj.messages if m.role == "user"]
            cur = [m for inj in c.injections for m in inj.messages if m.turn_id in c.current_turns and m.role == "user"]
            if not cur:
                continue
            i = int(np.argmax(by_slot([c.question], query=True)[0]))
            v = by_slot([stated(cur[-1].content)])[0]
            others = np.concatenate([base[c.user_id][:, i], by_slot([t for t in said if t])[:, i]])
            ranks.append(int(np.sum(others > v[i])))
            nearest += int(np.argmax(v) == i)
        r = np.array(ranks)
        print(f"{name}: {len(r)} changes, median rank {np.median(r):.0f}, in the first 15 {np.mean(r < 15):.3f}, "
              f"first 50 {np.mean(r < 50):.3f}, nearest slot the question's {nearest}")


if __name__ == "__main__":
    main()
