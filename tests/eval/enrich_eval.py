"""Measuring the enrichment recipes on LoCoMo with the evaluation harness (an eval tool, not a test).

Two ingest-time models:

- ``--replay`` (no model run): LoCoMo ships, per session, a GPT-3.5 ``session_summary`` and
  ``observation`` facts linked to the turns they come from (``[fact, "D1:3"]``). ``LoCoMoReplayChat``
  answers cbmemory's summary and events prompts with exactly those, so the summary / events / raw+facts
  recipes can be measured on the whole dev file: the parsing, linking, record building, date resolution,
  indexing and retrieval are cbmemory's; the extraction is the dataset authors' (their prompts, not ours).
- ``--llm MODEL [--base-url URL]``: a real chat model (e.g. the local one in ../shared/tools/local-llm) on a
  fixed subset (``--conversation``, ``--sessions``: the first N sessions, and only the questions whose
  evidence lies in them).

    .venv/bin/python -m tests.eval.enrich_eval --replay --out /tmp/enrich_replay
    .venv/bin/python -m tests.eval.enrich_eval --llm local-gguf --base-url http://127.0.0.1:8765/v1 \
        --conversation conv-30 --sessions 3 --out /tmp/enrich_local
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from tests.support.enrich_llm import LINE

SESSION_DATE = re.compile(r"^Session date: (.+)$", re.MULTILINE)


class LoCoMoIndex:
    """Lines by (session date label, speaker) -> [(raw text, dia_id)]; summaries and observations by session."""

    def __init__(self, conversations: list[dict]):
        from cbmemory.dates import anchor_label, to_utc

        self.lines: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.summaries: dict[tuple[str, str], str] = {}  # (sample_id, "D<n>") -> summary
        self.facts: dict[tuple[str, str], list[tuple[str, str, tuple[str, ...]]]] = {}  # (sample, D<n>) -> facts
        self.sample_of: dict[str, str] = {}
        for c in conversations:
            sid, conv = c["sample_id"], c["conversation"]
            for key, turns in conv.items():
                m = re.fullmatch(r"session_(\d+)", key)
                if not m or not isinstance(turns, list) or not turns:
                    continue
                n = m.group(1)
                label = anchor_label(to_utc(conv[f"{key}_date_time"]))
                for t in turns:
                    self.lines.setdefault((label, t["speaker"]), []).append((t["text"], t["dia_id"]))
                    self.sample_of[t["dia_id"] + "@" + label] = sid
                self.summaries[(sid, f"D{n}")] = c.get("session_summary", {}).get(f"{key}_summary", "")
                obs = c.get("observation", {}).get(f"{key}_observation", {})
                out = []
                for speaker, items in obs.items():
                    for item in items:
                        text, ref = item[0], item[1]
                        refs = ref if isinstance(ref, list) else re.split(r"[,;\s]+", str(ref))
                        out.append((speaker, text, tuple(r for r in refs if r)))
                self.facts[(sid, f"D{n}")] = out

    def dia_id(self, label: str, speaker: str, text: str) -> str | None:
        for raw, dia in self.lines.get((label, speaker), []):
            if text == raw or text.startswith(raw + " [image caption:"):
                return dia
        return None


def make_replay_chat(index: LoCoMoIndex):
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class LoCoMoReplayChat(BaseChatModel):
        model_name: str = "locomo-replay-gpt-3.5-observations"

        @property
        def _llm_type(self) -> str:
            return "locomo-replay"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
            system, user = str(messages[0].content), str(messages[-1].content)
            label = SESSION_DATE.search(user).group(1)
            found = [(lb, index.dia_id(label, spk, txt)) for lb, spk, txt in LINE.findall(user.split("Lines:\n")[-1])]
            by_dia = {dia: lb for lb, dia in found if dia}
            sessions = {(index.sample_of[d + "@" + label], d.split(":")[0]) for d in by_dia}
            if "extract events" in system:
                events = []
                for key in sorted(sessions):
                    for speaker, text, refs in index.facts.get(key, []):
                        labels = [by_dia[r] for r in refs if r in by_dia]
                        if labels:
                            events.append({"who": speaker, "what": text, "when": None, "date": None,
                                           "where": None, "turns": labels})
                reply = json.dumps({"events": events})
            else:
                reply = json.dumps({"summary": " ".join(index.summaries.get(k, "") for k in sorted(sessions))})
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])

    return LoCoMoReplayChat()


def subset(conversations, sample_id: str | None, sessions: int | None):
    """The chosen conversation(s), cut to their first ``sessions`` sessions, with only the questions whose
    evidence lies in those sessions."""
    import dataclasses

    chosen = [c for c in conversations if sample_id is None or c.sample_id == sample_id]
    if not sessions:
        return chosen
    out = []
    for c in chosen:
        kept = c.sessions[:sessions]
        ids = {m.turn_id for s in kept for m in s.messages}
        qs = tuple(q for q in c.questions if q.evidence and set(q.evidence) <= ids)
        out.append(dataclasses.replace(c, sessions=kept, questions=qs))
    return out


def main(argv: list[str] | None = None) -> int:
    from cbmemory.ingest.enrich import Enricher, SQLiteCache
    from cbmemory_eval.datasets.locomo import load_locomo
    from cbmemory_eval.questions import from_locomo
    from cbmemory_eval.report import write_reports
    from cbmemory_eval.runner import run_eval

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared/data/locomo/locomo-dev.json"))
    p.add_argument("--out", required=True)
    p.add_argument("--recipes", default="hybrid,summary,events,events_raw,raw_facts")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--cache-dir", help="stores (and the extraction cache) live here; default OUT/stores")
    p.add_argument("--replay", action="store_true", help="replay LoCoMo's own summaries and observations")
    p.add_argument("--llm", help="a chat model name (ChatOpenAI)")
    p.add_argument("--base-url", help="its OpenAI-compatible server")
    p.add_argument("--conversation", help="one conversation (sample_id)")
    p.add_argument("--sessions", type=int, help="only the first N sessions")
    p.add_argument("--concurrency", type=int, default=1)
    args = p.parse_args(argv)
    if args.replay == bool(args.llm):
        p.error("choose one of --replay and --llm")
    stores = Path(args.cache_dir or Path(args.out) / "stores")
    cache = SQLiteCache(stores / "enrich_cache.db")
    if args.replay:
        llm = make_replay_chat(LoCoMoIndex(json.loads(Path(args.data).read_text())))
        label = "LoCoMo's own GPT-3.5 session summaries and observations, replayed"
    else:
        from cbmemory_eval.qa import make_chat_model

        llm = make_chat_model(args.llm, args.base_url)
        label = f"{args.llm} at {args.base_url or 'OpenAI'}"
    enricher = Enricher(llm, cache=cache, max_concurrency=args.concurrency, calls_per_session=1_000)
    es = from_locomo(subset(load_locomo(args.data), args.conversation, args.sessions))
    run_eval(es, args.out, [r for r in args.recipes.split(",") if r], k=args.k, baselines=("oracle",),
             store_dir=stores, memory_options={"enricher": enricher}, progress=False,
             settings={"data": args.data, "enrich_llm": label, "conversation": args.conversation,
                       "sessions": args.sessions})
    st = enricher.runner.stats
    print(f"ingest-time model ({label}): {st.calls} calls, {st.cached} cached, {st.ok} ok, {st.repaired} repaired, "
          f"{st.failed} failed; tokens in {st.input_tokens}, out {st.output_tokens}; JSON mode {st.json_mode}",
          file=sys.stderr)
    for f in enricher.failures()[-5:]:
        print(f"  failure: {f.task} {f.session_id} {f.source_ids[:3]}: {f.error[:200]}", file=sys.stderr)
    print(write_reports(args.out)[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
