"""Unit layer: what the LoCoMo harness gives a recipe to embed with (``cbmemory_eval.run_state._embedders``): the
question's precomputed vector for the question, the memory's own embedder for every other text (the current-value
stage embeds its descriptions and the statements it reads; a stub that returned the question's vector for any text
put every statement on every matter). The memory's embedder is a recording stub: what is under test is which
text goes where."""

from types import SimpleNamespace

import numpy as np

from cbmemory_eval.run_state import _embedders


class Recording:
    def __init__(self) -> None:
        self.calls: list[tuple[str, object, str]] = []

    def embed_query(self, text, user_id):
        self.calls.append(("query", text, user_id))
        return np.full(2, len(text), dtype=np.float32)

    def embed(self, texts, user_id):
        self.calls.append(("many", tuple(texts), user_id))
        return np.zeros((len(texts), 2), dtype=np.float32)

    def embed_queries(self, texts, user_id):
        self.calls.append(("queries", tuple(texts), user_id))
        return np.ones((len(texts), 2), dtype=np.float32)


def test_the_question_gets_its_own_vector_and_any_other_text_the_memorys_embedder():
    emb = Recording()
    q = SimpleNamespace(question="Where does Ana live now?", user_id="conv-1")
    qvec = np.array([0.6, 0.8], dtype=np.float32)
    embed, texts = _embedders(SimpleNamespace(embedder=emb), q, qvec)
    assert embed(q.question) is qvec and emb.calls == []  # made and timed before the search
    assert embed("the city where I live now").tolist() == [25.0, 25.0]
    texts["embed_texts"](["I moved to Porto"])
    texts["embed_queries"](["my new home town"])
    assert emb.calls == [("query", "the city where I live now", "conv-1"), ("many", ("I moved to Porto",), "conv-1"),
                         ("queries", ("my new home town",), "conv-1")]
