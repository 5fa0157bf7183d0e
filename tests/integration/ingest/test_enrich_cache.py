"""Integration layer (a real SQLite file): the LLM runner's SQLite cache persists across runners and is
keyed by model as well as by prompt version and input."""


from cbmemory.ingest.enrich.cache import SQLiteCache
from tests.support.enrich_llm import (
    EVENTS_REPLY,
    events_spec,
    make_scripted_chat,
    quick_runner,
)


def test_sqlite_cache_persists_across_runners_and_keys_by_model(tmp_path):
    path = tmp_path / "cache.db"
    llm = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    quick_runner(llm, cache=SQLiteCache(path)).run([events_spec()])
    fresh = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    [out] = quick_runner(fresh, cache=SQLiteCache(path)).run([events_spec()])
    assert out.status == "cached" and fresh.calls == 0 and out.value[0].what == "Mel ran a 5k"
    other = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY, name="another-model")
    assert quick_runner(other, cache=SQLiteCache(path)).run([events_spec()])[0].status == "ok"
    assert len(SQLiteCache(path)) == 2
