"""Integration layer (offline; real SQLite memory and MiniLM embedder): the cases of LangGraph's own store
tests (``libs/checkpoint/tests/test_store.py``, ``test_store_namespace_validation.py``,
``test_store_ttl.py``, ``test_inmemory_store_dotted_filters.py`` in the langgraph repository), rewritten for
``CbMemoryStore``, plus ``PutOp.index`` as LangGraph's stores honour it.

LangGraph runs its vector cases on ``InMemoryStore`` with a character-count embedder; here the embedder is
MiniLM and the store's memory searches with the ``vector`` recipe (cosine similarity, no fusion), so the
same expectations hold where they are about meaning (which document wins), not about that embedder's
arithmetic. Cases of LangGraph behaviour this store does not have are kept, skipped with the reason.
"""

from __future__ import annotations

import asyncio

import pytest
from langgraph.store.base import InvalidNamespaceError, PutOp

from cbmemory import AgentMemory
from cbmemory.errors import InvalidInputError
from langchain_cbmemory import CbMemoryStore

NOT_BATCHED = ("CbMemoryStore is a BaseStore, not an AsyncBatchedBaseStore: its async API runs each call in a "
               "worker thread, with no queue that batches or deduplicates concurrent calls")


@pytest.fixture
def vector_memory(tmp_path, minilm, clock):
    mem = AgentMemory.open(tmp_path / "v.db", embedder=minilm, clock=clock, recipe="vector")
    yield mem
    mem.close()


@pytest.fixture
def store(vector_memory):
    return CbMemoryStore(vector_memory)


def put_all(store, namespaces):
    for i, namespace in enumerate(namespaces):
        store.put(namespace, f"id_{i}", {"data": f"value_{i:02d}"})


# ---------------------------------------------------------------- list_namespaces
def test_list_namespaces_prefix_suffix_depth_and_pages(store):
    put_all(store, [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"),
                    ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"), ("admin", "users", "789")])
    under_ab = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    ending_f = [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert store.list_namespaces(prefix=("a", "b")) == under_ab
    assert store.list_namespaces(suffix=("f",)) == ending_f
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == ending_f[:2]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == under_ab[:2]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == under_ab[2:]
    assert store.list_namespaces(prefix=("a", "*", "f")) == ending_f[:2]
    assert store.list_namespaces(suffix=("*", "f")) == ending_f
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]


def test_list_namespaces_with_wildcards(store):
    put_all(store, [("users", "123"), ("users", "456"), ("users", "789", "settings"), ("admin", "users", "789"),
                    ("guests", "123"), ("guests", "456", "preferences")])
    assert store.list_namespaces(prefix=("users", "*")) == [("users", "123"), ("users", "456"),
                                                             ("users", "789", "settings")]
    assert store.list_namespaces(suffix=("*", "preferences")) == [("guests", "456", "preferences")]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []
    store.put(("admin", "users", "settings", "789"), "foo", {"data": "some_val"})
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "789")) == [
        ("admin", "users", "789"), ("admin", "users", "settings", "789")]


def test_list_namespaces_pages_of_many(store):
    for i in range(20):
        store.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": f"value_{i:02d}"})
    for offset in (0, 5, 15):
        assert store.list_namespaces(prefix=("namespace",), limit=5, offset=offset) == [
            ("namespace", f"sub_{i:02d}") for i in range(offset, offset + 5)]


def test_list_namespaces_max_depth_no_conditions_and_empty(store):
    assert store.list_namespaces() == []
    put_all(store, [("a", "b", "c", "d"), ("a", "b", "c", "e"), ("a", "b", "f"), ("a", "g"), ("h", "i", "j", "k")])
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "g"), ("h", "i")]
    assert len(store.list_namespaces()) == 5


# ---------------------------------------------------------------- namespaces
def test_invalid_namespaces_are_refused_by_the_public_api(store):
    doc = {"foo": "bar"}
    for namespace in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(namespace, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            asyncio.run(store.aput(namespace, "foo", doc))
    # "langgraph" is only refused as the root label
    store.put(("foo", "langgraph", "foo"), "bar", doc)
    assert store.get(("foo", "langgraph", "foo"), "bar").value == doc
    assert store.search(("foo", "langgraph", "foo"), query="bar")[0].value == doc
    store.delete(("foo", "langgraph", "foo"), "bar")
    assert store.get(("foo", "langgraph", "foo"), "bar") is None


@pytest.mark.parametrize("namespace", [("foo.bar",), ("foo", ""), (123,)])
@pytest.mark.parametrize("method", ["get", "delete", "search", "prefix", "suffix"])
def test_invalid_labels_are_refused_before_anything_runs(store, vector_memory, namespace, method):
    calls = {"get": lambda: store.get(namespace, "key"), "delete": lambda: store.delete(namespace, "key"),
             "search": lambda: store.search(namespace), "prefix": lambda: store.list_namespaces(prefix=namespace),
             "suffix": lambda: store.list_namespaces(suffix=namespace)}
    with pytest.raises(InvalidNamespaceError):
        calls[method]()
    acalls = {"get": lambda: store.aget(namespace, "key"), "delete": lambda: store.adelete(namespace, "key"),
              "search": lambda: store.asearch(namespace), "prefix": lambda: store.alist_namespaces(prefix=namespace),
              "suffix": lambda: store.alist_namespaces(suffix=namespace)}
    with pytest.raises(InvalidNamespaceError):
        asyncio.run(acalls[method]())
    assert vector_memory.store.users() == []


@pytest.mark.skip(reason="InMemoryStore.batch() executes a PutOp whose root label is 'langgraph' (only put() "
                  "checks the root); CbMemoryStore.batch() checks every op's labels (validate_op_namespace) and "
                  "keeps refusing an empty namespace or a label with a '.', whichever way the op arrives; "
                  "test_store.py::test_bad_input_is_refused covers the refusal")
def test_ops_past_the_public_put_api_may_use_a_langgraph_root(store):
    store.batch([PutOp(("langgraph", "foo"), "bar", {"foo": "bar"})])
    assert store.get(("langgraph", "foo"), "bar").value == {"foo": "bar"}


# ---------------------------------------------------------------- semantic search
DOCS = [("doc1", {"text": "short text"}), ("doc2", {"text": "longer text document"}),
        ("doc3", {"text": "longest text document here"}), ("doc4", {"description": "text in description field"}),
        ("doc5", {"content": "text in content field"}), ("doc6", {"body": "text in body field"})]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_insert_is_embedded_and_searchable(store, mode):
    if mode == "sync":
        for key, value in DOCS:
            store.put(("test",), key, value)
        found = store.search(("test",), query="long text")
    else:
        async def scenario():
            for key, value in DOCS:
                await store.aput(("test",), key, value)
            return await store.asearch(("test",), query="long text")
        found = asyncio.run(scenario())
    keys = [r.key for r in found]
    assert {"doc2", "doc3"} <= set(keys) and len(keys) == len(DOCS)
    assert all(r.score is not None for r in found) and [r.score for r in found] == sorted(
        (r.score for r in found), reverse=True)


def test_update_re_embeds_and_index_false_is_not_searched(store):
    store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    store.put(("test",), "doc2", {"text": "something about dogs"})
    store.put(("test",), "doc3", {"text": "text about birds"})
    first = store.search(("test",), query="Zany Xerxes")
    assert first[0].key == "doc1"
    before = first[0].score

    store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = next(r.score for r in store.search(("test",), query="Zany Xerxes") if r.key == "doc1")
    assert after < before
    assert next(r.score for r in store.search(("test",), query="new text about dogs") if r.key == "doc1") > after

    store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert "doc4" not in {r.key for r in store.search(("test",), query="new text about dogs", limit=3)}
    assert store.get(("test",), "doc4").value == {"text": "new text about dogs"}  # stored all the same


FILTERED = [("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
            ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
            ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
            ("doc4", {"text": "blue car", "color": "blue", "score": 3.5})]


def test_search_with_filters(store):
    for key, value in FILTERED:
        store.put(("test",), key, value)
    red_apple = store.search(("test",), query="apple", filter={"color": "red"})
    assert [r.key for r in red_apple][0] == "doc1" and len(red_apple) == 2
    red_car = store.search(("test",), query="car", filter={"color": "red"})
    assert [r.key for r in red_car][0] == "doc2" and len(red_car) == 2
    # LangGraph's query here is the misspelt "bbbbluuu", which its character embedder maps near "blue car"
    assert {r.key for r in store.search(("test",), query="blue", filter={"score": {"$gt": 3.2}})} == {
        "doc1", "doc3", "doc4"}
    assert store.search(("test",), query="blue", filter={"score": {"$gt": 3.2}})[0].key == "doc4"
    assert [r.key for r in store.search(("test",), query="apple",
                                        filter={"score": {"$gte": 4.0}, "color": "green"})] == ["doc3"]


@pytest.mark.heavy
def test_concurrent_async_searches_each_respect_their_filter(store):
    colors, things, scores = ["red", "blue", "green", "yellow", "purple"], ["apple", "car", "house", "book",
                                                                          "phone"], [3.0, 3.5, 4.0, 4.5, 5.0]
    docs = [(f"doc{i}", {"text": f"{colors[i % 5]} {things[i % 5]}", "color": colors[i % 5], "score": scores[i % 5],
                         "index": i}) for i in range(50)]
    queries = [("apple", {"color": "red"}), ("car", {"color": "blue"}), ("house", {"color": "green"}),
               ("phone", {"score": {"$gt": 4.99}}), ("book", {"score": {"$lte": 3.5}}),
               ("apple", {"score": {"$gte": 3.0}, "color": "red"}), ("car", {"score": {"$lt": 5.1}, "color": "blue"}),
               ("house", {"index": {"$gt": 25}}), ("phone", {"index": {"$lte": 10}})]

    async def scenario():
        await asyncio.gather(*(store.aput(("test",), key, value) for key, value in docs))
        return await asyncio.gather(*(store.asearch(("test",), query=q, filter=f) for q, f in queries))

    checks = {"$gt": lambda a, b: a > b, "$gte": lambda a, b: a >= b, "$lt": lambda a, b: a < b,
              "$lte": lambda a, b: a <= b}
    for found, (query, flt) in zip(asyncio.run(scenario()), queries, strict=True):
        assert found, f"no results for {query!r} with {flt}"
        for r in found:
            for field, wanted in flt.items():
                if isinstance(wanted, dict):
                    assert all(checks[op](r.value[field], bound) for op, bound in wanted.items())
                else:
                    assert r.value[field] == wanted


@pytest.mark.skip(reason=NOT_BATCHED + "; so aput, adelete and aput of one key gathered together have no "
                  "order, and LangGraph's put/delete/put interleaving case has no defined outcome here")
def test_gathered_put_delete_put_of_one_key_ends_put(store):
    async def scenario():
        await asyncio.gather(store.aput(("t",), "k", {"v": 1}), store.adelete(("t",), "k"),
                             store.aput(("t",), "k", {"v": 1}))
    asyncio.run(scenario())
    assert store.get(("t",), "k") is not None


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_search_pagination(store, mode):
    for i in range(5):
        store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})

    def search(**kw):
        return store.search(("test",), query="test", **kw) if mode == "sync" else asyncio.run(
            store.asearch(("test",), query="test", **kw))

    page1, page2 = search(limit=2), search(limit=2, offset=2)
    assert len(page1) == len(page2) == 2 and not {r.key for r in page1} & {r.key for r in page2}
    assert len(search(limit=10)) == 5


@pytest.mark.parametrize("query", ["", None, "test " * 100, "test!@#$%^&*()"])
def test_search_edge_case_queries(store, query):
    store.put(("test",), "doc1", {"text": "test document"})
    found = store.search(("test",), query=query)
    assert [r.key for r in found] == ["doc1"]
    assert (found[0].score is None) == (not query)  # no query: listed, not scored


def test_non_ascii_text_finds_itself(store):
    texts = {"1": "这是中文", "2": "これは日本語です", "3": "이건 한국어야", "4": "Это русский", "5": "यह रूसी है"}
    for key, text in texts.items():
        store.put(("user_123", "memories"), key, {"text": text})
    for key, text in texts.items():
        assert store.search(("user_123", "memories"), query=text)[0].key == key


# ---------------------------------------------------------------- PutOp.index and index fields
def exact_score(store, text: str) -> float:
    """The score ``text`` gets as the query for an item that indexes exactly that text (in a namespace of its
    own, deleted after)."""
    store.put(("reference",), "r", {"t": text}, index=["t"])
    score = store.search(("reference",), query=text)[0].score
    store.delete(("reference",), "r")
    return score


def test_store_index_fields_embed_only_those_fields(vector_memory):
    store = CbMemoryStore(vector_memory, index_fields=["key0", "key1", "key3"])  # key2 is never indexed
    store.put(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})  # no key0: not an error
    store.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"})

    both = store.search(("test",), query="xxx")  # doc1.key1 and doc2.key3: the same text, the same best score
    assert {r.key for r in both} == {"doc1", "doc2"} and both[0].score == pytest.approx(both[1].score, abs=1e-5)
    assert both[0].score == pytest.approx(exact_score(store, "xxx"), abs=1e-5)
    uuu = store.search(("test",), query="uuu")
    assert [r.key for r in uuu][0] == "doc2" and uuu[0].score > uuu[1].score
    www = store.search(("test",), query="www")  # only in the unindexed key2: both score below an exact match
    assert len(www) == 2 and all(r.score < exact_score(store, "www") for r in www)
    assert {r.text for r in vector_memory.session_records("test")} == {"xxx", "zzz", "uuu", "vvv"}
    assert store.get(("test",), "doc2").value == {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"}


def test_put_index_names_the_fields_of_that_item(vector_memory):
    store = CbMemoryStore(vector_memory, index_fields=["key17"])
    store.put(("test",), "doc3", {"key0": "aaa", "key1": "bbb", "key2": "ccc", "key3": "ddd"}, index=["key0", "key1"])
    store.put(("test",), "doc4", {"key0": "eee", "key1": "bbb", "key2": "fff", "key3": "ggg"}, index=["key1", "key3"])
    for query, winner in (("aaa", "doc3"), ("ggg", "doc4")):
        found = store.search(("test",), query=query)
        assert [r.key for r in found][0] == winner and found[0].score > found[1].score
    bbb = store.search(("test",), query="bbb")
    assert {r.key for r in bbb} == {"doc3", "doc4"} and bbb[0].score == pytest.approx(bbb[1].score, abs=1e-6)
    assert all(r.score < exact_score(store, "ccc") for r in store.search(("test",), query="ccc"))

    store.put(("test",), "doc5", {"key0": "hhh", "key1": "iii"}, index=False)
    assert "doc5" not in {r.key for r in store.search(("test",), query="hhh")}
    assert {r.key for r in store.search(("test",))} == {"doc3", "doc4", "doc5"}  # listed without a query
    store.put(("test",), "doc6", {"other": "hhh"})  # the store's key17 finds no text: stored, not searched
    assert store.get(("test",), "doc6").value == {"other": "hhh"}
    assert "doc6" not in {r.key for r in store.search(("test",), query="hhh")}


@pytest.mark.skip(reason="InMemoryStore pads a query search that finds fewer indexed items than the limit with "
                  "unindexed ones (index=False), scored None; CbMemoryStore returns only indexed items, as "
                  "LangGraph's PostgresStore does (its query joins the vectors table)")
def test_unindexed_items_pad_a_short_query_search(store):
    store.put(("test",), "doc5", {"key0": "hhh"}, index=False)
    assert [r.score for r in store.search(("test",), query="hhh")] == [None]


def test_paths_reach_nested_values_and_list_items(vector_memory):
    store = CbMemoryStore(vector_memory)
    value = {"name": "test", "info": {"age": 25, "metadata": {"created": "2024-01-01", "updated": "2024-01-02"}},
             "items": [{"id": 1, "value": "first"}, {"id": 2, "value": "second"}, {"id": 3, "value": "third"}],
             "empty": None}
    cases = {"items[*].value": {"first", "second", "third"}, "items[-1].value": {"third"},
             "info.metadata.*": {"2024-01-01", "2024-01-02"}, "{name,info.age}": {"test", "25"},
             "items[*].{id,value}": {"1", "2", "3", "first", "second", "third"}}
    for i, (path, texts) in enumerate(cases.items()):
        store.put(("paths",), f"k{i}", value, index=[path])
        records = vector_memory.session_records("paths")
        assert {r.text for r in records if r.annotations["lg.key"] == f"k{i}"} == texts, path
        assert store.get(("paths",), f"k{i}").value == value
    store.put(("paths",), "none", value, index=["empty", "items[99].value", "missing"])
    assert store.get(("paths",), "none").value == value
    assert "none" not in {r.key for r in store.search(("paths",), query="third", limit=20)}
    best = store.search(("paths",), query="second", limit=20)
    assert best[0].key in {"k0", "k4"}  # an item ranks by its best text: these two index "second" alone


def test_index_survives_ttl_refresh_and_re_put(vector_memory, clock):
    store = CbMemoryStore(vector_memory)
    store.put(("m", "alice"), "pet", {"text": "Biscuit is a beagle", "secret": "zebra"}, index=["text"], ttl=10)
    store.put(("m", "alice"), "hidden", {"text": "Biscuit is a beagle"}, index=False, ttl=10)
    clock.advance(minutes=6)
    assert store.get(("m", "alice"), "pet").value["secret"] == "zebra"  # read: expires 10 minutes from now
    assert store.get(("m", "alice"), "hidden") is not None
    clock.advance(minutes=6)
    assert [r.key for r in store.search(("m", "alice"), query="beagle")] == ["pet"]
    assert {r.text for r in vector_memory.session_records("alice")} == {"Biscuit is a beagle",
                                                                         '{"text": "Biscuit is a beagle"}'}
    store.put(("m", "alice"), "pet", {"text": "Biscuit is a beagle", "secret": "zebra"})  # whole value again
    assert [r.key for r in store.search(("m", "alice"), query="beagle")] == ["pet"]
    assert len(vector_memory.session_records("alice")) == 2


def test_index_across_users_and_what_the_memory_itself_recalls(vector_memory):
    store = CbMemoryStore(vector_memory)
    store.put(("memories", "alice"), "pet", {"text": "Alice's beagle is called Biscuit", "id": 7}, index=["text"])
    store.put(("memories", "alice"), "note", {"text": "Alice's beagle eats carrots"}, index=False)
    store.put(("memories", "bob"), "pet", {"text": "Bob's beagle is called Rex"})
    store.put(("memories", "bob"), "vet", {"text": "Bob's beagle saw the vet"}, index=False)
    found = store.search(("memories",), query="beagle", limit=10)  # user by user, merged by score
    assert {(r.namespace[1], r.key) for r in found} == {("alice", "pet"), ("bob", "pet")}
    assert [(r.namespace[1], r.key) for r in store.search(("memories",), query="beagle", limit=1, offset=1)] == [
        (found[1].namespace[1], found[1].key)]
    # the memory (and so CbMemoryMiddleware's recall) reads a field-indexed item as its text, and still holds
    # the index=False item: it is left out of the store's query searches only
    recalled = {h.record.text for h in vector_memory.search("beagle", "alice", k=5)}
    assert recalled == {"Alice's beagle is called Biscuit", '{"text": "Alice\'s beagle eats carrots"}'}


def test_bad_index_arguments_are_refused(vector_memory):
    store = CbMemoryStore(vector_memory)
    for bad in ("text", [], [""], [3], True):
        with pytest.raises(InvalidInputError, match="index"):
            store.batch([PutOp(("m", "alice"), "k", {"text": "x"}, index=bad)])
    with pytest.raises(InvalidInputError, match="index_fields"):
        CbMemoryStore(vector_memory, index_fields="text")
    assert vector_memory.store.users() == []


# ---------------------------------------------------------------- TTL and filters of newer LangGraph releases
@pytest.mark.skip(reason="newer LangGraph converts a timedelta or datetime ttl to minutes in BaseStore.put; the "
                  "installed langgraph passes it through unchanged, and CbMemoryStore takes ttl as LangGraph's "
                  "PutOp types it, a number of minutes")
def test_put_ttl_as_a_timedelta(store):
    from datetime import timedelta

    store.put(("test",), "k1", {"a": 1}, ttl=timedelta(minutes=15))
    assert store.get(("test",), "k1") is not None


@pytest.mark.skip(reason="newer LangGraph's InMemoryStore reads a dotted filter key as a path into the value; "
                  "the installed InMemoryStore, whose filter semantics CbMemoryStore follows, reads it as one "
                  "field name")
def test_dotted_filter_keys_reach_nested_fields(store):
    store.put(("docs",), "hyphen", {"user": {"access-level": "nested"}})
    assert [r.key for r in store.search(("docs",), filter={"user.access-level": "nested"})] == ["hyphen"]


@pytest.mark.skip(reason=NOT_BATCHED + " (LangGraph's batching, cancellation and deduplication cases)")
def test_async_batched_store_batches_cancels_and_deduplicates(store):
    from langgraph.store.base.batch import AsyncBatchedBaseStore

    assert isinstance(store, AsyncBatchedBaseStore)


@pytest.mark.skip(reason="CbMemoryStore has no IndexConfig of dims and embed: it embeds with its memory's "
                  "embedder; index_fields is the one part of IndexConfig it takes")
def test_index_config_names_dims_and_embedder(vector_memory):
    store = CbMemoryStore(vector_memory, index={"dims": 384, "embed": "fake", "fields": ["text"]})
    assert store.index_config["dims"] == 384
