"""Unit layer: the ``Enricher`` is a planner. Given raw records (and the session's stored ones as context),
it returns records, with a scripted fake chat model and no store, embedder or ``AgentMemory``; nothing in
``cbmemory.ingest`` imports the layers above it (memory, retrieval, store, embedding, eval)."""

import ast
import dataclasses
from datetime import datetime, timezone
from pathlib import Path

import cbmemory.ingest
from cbmemory.ingest import EnrichConfig, IngestConfig, build_records, validate_messages
from cbmemory.ingest.enrich import FACTS_MARK, Derivation, Enricher, EnrichReport, MemoryCache
from tests.support.enrich_llm import make_scripted_chat, rule_extractor

WHEN = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
MSGS = validate_messages([
    {"role": "user", "content": "I went to a support group yesterday.", "speaker": "Caroline", "turn_id": "D1:1"},
    {"role": "assistant", "content": "Lovely. How are the kids?", "speaker": "Melanie", "turn_id": "D1:2"},
    {"role": "user", "content": "We went camping last week.", "speaker": "Caroline", "turn_id": "D1:3"},
])


def _ingest(*modes):
    return IngestConfig(enrich=EnrichConfig(modes=modes, turns_per_call=8))


def _records(ingest, msgs=MSGS, start=0):
    return build_records("u", "s1", msgs, WHEN, NOW, config=ingest, start_position=start)


def test_derive_returns_records_given_only_records():
    llm = make_scripted_chat(rule_extractor)
    enricher = Enricher(llm, sleep=lambda s: None)
    ingest = _ingest("summary", "events")
    raw = _records(ingest)
    out = enricher.derive(raw, ingest=ingest, now=NOW)
    assert isinstance(out, Derivation) and out.augmented == ()
    assert sorted(r.kind for r in out.derived) == ["event", "event", "summary"]
    assert {r.ingested_at for r in out.records} == {NOW}
    events = [r for r in out.derived if r.kind == "event"]
    assert [e.source_ids for e in events] == [("D1:1",), ("D1:3",)]
    assert "6 May 2023" in events[0].text
    assert out.report == enricher.last_report and out.report.derived == 3 and out.report.write is None
    assert llm.calls == 2  # one extraction call, one summary call


def test_facts_are_prepared_from_the_cache_before_the_raw_write_and_derived_after():
    llm = make_scripted_chat(rule_extractor)
    enricher = Enricher(llm, cache=MemoryCache(), sleep=lambda s: None)
    ingest = _ingest("facts")
    raw = _records(ingest)
    assert enricher.prepare(raw, ingest=ingest) == raw and llm.calls == 0  # nothing cached: no call, unchanged
    out = enricher.derive(raw, ingest=ingest, now=NOW)
    assert out.derived == () and [r.turn_id for r in out.augmented] == ["D1:1", "D1:3"]
    assert all(FACTS_MARK in r.index_text and r.text == o.text for r, o in zip(out.augmented, raw[::2], strict=True))
    prepared = enricher.prepare(raw, ingest=ingest)  # a re-ingest: the cached facts, still no new call
    assert [r.index_text for r in prepared] == [out.augmented[0].index_text, raw[1].index_text,
                                                out.augmented[1].index_text]
    assert llm.calls == 1
    again = enricher.derive(prepared, ingest=ingest, now=NOW)
    assert again.records == () and again.report.cached == 1


def test_stored_records_are_context_passed_in_by_the_caller():
    prompts = []
    llm = make_scripted_chat(lambda m, kw, n: prompts.append(m[-1][1]) or rule_extractor(m))
    enricher = Enricher(llm, sleep=lambda s: None)
    ingest = _ingest("events")
    stored = _records(ingest)
    new = _records(ingest, validate_messages([{"role": "user", "content": "I bought a guitar yesterday!",
                                               "speaker": "Caroline", "turn_id": "D1:4"}]), start=3)
    out = enricher.derive(new, ingest=ingest, now=NOW, stored=stored)
    assert "C2 Caroline: We went camping last week." in prompts[-1] and "T1 Caroline: I bought" in prompts[-1]
    assert [e.source_ids for e in out.derived] == [("D1:4",)]


def test_no_modes_means_nothing_to_do():
    llm = make_scripted_chat(rule_extractor)
    enricher = Enricher(llm)
    raw = _records(IngestConfig())
    assert enricher.derive(raw, ingest=IngestConfig(), now=NOW) == Derivation(report=EnrichReport())
    assert enricher.prepare(raw, ingest=IngestConfig()) == raw and llm.calls == 0


def test_the_enricher_takes_no_memory_store_or_embedder():
    for method in (Enricher.prepare, Enricher.derive):
        params = method.__code__.co_varnames[:method.__code__.co_argcount + method.__code__.co_kwonlyargcount]
        assert set(params) <= {"self", "records", "ingest", "now", "stored"}, params
    assert {f.name for f in dataclasses.fields(Derivation)} == {"derived", "augmented", "report"}


def _imports(path: Path, package: str) -> set[str]:
    """Absolute names of the first-party modules ``path`` imports (relative imports resolved)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out |= {name} | {f"{name}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {n for n in out if n.startswith("cbmemory")}


def test_the_ingest_package_imports_nothing_above_it():
    root = Path(cbmemory.ingest.__file__).parent
    above = ("cbmemory.memory", "cbmemory.retrieval", "cbmemory.store", "cbmemory.embedding", "cbmemory_eval",
             "cbmemory.cli")
    checked = 0
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent).with_suffix("")
        parts = ["cbmemory", *rel.parts]
        package = ".".join(parts if path.name == "__init__.py" else parts[:-1]).removesuffix(".__init__")
        bad = {n for n in _imports(path, package) if n.startswith(above)}
        assert not bad, f"{path.name} imports {sorted(bad)}"
        checked += 1
    assert checked >= 10
