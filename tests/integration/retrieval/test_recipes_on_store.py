"""Integration layer: recipe behaviour end to end on a real SQLite file with the real offline embedder."""


import pytest

from cbmemory import AgentMemory
from cbmemory.context import context_tokens, count_tokens, header, line_tokens
from cbmemory.recipes import all_recipes, recipe_hits
from cbmemory.retrieval import retrieve

# Every recipe, the study's too, searches one memory on purpose: those made for dated-off or date-resolved
# records warn that this memory's records are made otherwise (tests/integration/test_recipe_mismatch.py).
pytestmark = pytest.mark.filterwarnings("ignore::cbmemory.RecipeMismatchWarning")

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

TURNS = [
    ("s1", "2023-05-01", "I started pottery classes at the community centre."),
    ("s2", "2023-05-10", "My sister visited and we cooked lasagna together."),
    ("s3", "2023-05-20", "Pottery is going well, I made a blue vase."),
    ("s4", "2023-06-02", "I booked tickets for the Nordstrom friends and family sale."),
    ("s5", "2023-06-15", "I signed up for an advanced pottery workshop next month."),
]


def fill(memory):
    for sid, date, text in TURNS:
        memory.add_session("u", sid, [{"role": "user", "content": text, "turn_id": sid}], date=date)


def test_future_filter_keeps_the_reference_day_and_drops_later(memory):
    fill(memory)
    hits = memory.search("pottery", "u", k=10, recipe="future_filter", reference_date="2023-05-20T08:00:00")
    assert {h.record.turn_id for h in hits} == {"s1", "s2", "s3"}
    assert len(memory.search("pottery", "u", k=10, recipe="vector")) == 5


def test_recency_orders_newest_first_and_is_stable(memory):
    fill(memory)
    a = memory.search("pottery", "u", k=3, recipe="recency")
    b = memory.search("pottery", "u", k=3, recipe="recency")
    assert [h.record.turn_id for h in a] == ["s5", "s4", "s3"] == [h.record.turn_id for h in b]


def test_token_budget_is_never_exceeded_and_search_and_context_agree(memory):
    fill(memory)
    budgeted = RECIPES["vector"].with_(name="tight", token_budget=60)
    hits = memory.search("pottery", "u", k=5, recipe=budgeted)
    unbudgeted = memory.search("pottery", "u", k=5, recipe="vector")
    assert 1 <= len(hits) < 5
    assert [h.record.record_id for h in hits] == [h.record.record_id for h in unbudgeted[: len(hits)]]
    assert context_tokens(hits) <= 60 < context_tokens(unbudgeted[: len(hits) + 1])  # the next one would not fit
    ctx = memory.context("pottery", "u", k=5, recipe=budgeted)  # the same rule: the same memories
    assert {h.record.record_id for h in ctx.hits} == {h.record.record_id for h in hits}
    assert ctx.tokens == context_tokens(hits) == count_tokens(header()) + sum(line_tokens(h) for h in hits)
    # issue 32: the budget is the context stage's alone; the retrieval engine returns the recipe's k hits
    embed = lambda text: memory.embedder.embed_query(text, user_id="u")  # noqa: E731
    engine = retrieve(memory.store, embed, budgeted, "u", "pottery", k=5)
    assert [h.record.record_id for h in engine] == [h.record.record_id for h in unbudgeted]
    assert [h.record.record_id for h in recipe_hits(memory.store, embed, budgeted, "u", "pottery", k=5)] == [
        h.record.record_id for h in hits]


def test_hybrid_finds_what_vector_search_ranks_outside_its_pool(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "h.db", embedder=minilm, recipe="hybrid")
    filler = [{"role": "user", "content": f"I went shopping for clothes at the mall, trip number {i}.",
               "turn_id": f"f{i}"} for i in range(60)]
    needle = {"role": "user", "content": "Remember QX-7734 for later.", "turn_id": "needle"}
    m.add_session("u", "s", [*filler, needle], date="2023-01-01")
    query = "shopping trip code QX-7734"
    pool = RECIPES["hybrid"].retrieval.spec("vector").pool
    vector_ids = [h.record.turn_id for h in m.search(query, "u", k=pool, recipe="vector")]
    assert "needle" not in vector_ids[:pool] or vector_ids.index("needle") >= 10
    hybrid_ids = [h.record.turn_id for h in m.search(query, "u", k=10, recipe="hybrid")]
    assert "needle" in hybrid_ids
    m.close()


def test_every_hit_names_its_recipe_and_explains_signals(tmp_path, minilm):
    memory = AgentMemory.open(tmp_path / "all.db", embedder=minilm, recipe="default_sparse")  # sparse vectors too
    fill(memory)
    for name in RECIPES:
        if RECIPES[name].ingest.enrich is not None:  # LLM-made kinds: none in a raw store (integration/ingest)
            continue
        hits = memory.search("pottery vase", "u", k=3, recipe=name)
        assert hits and all(h.recipe == name for h in hits)
        assert all(h.ranks for h in hits)
    memory.close()
