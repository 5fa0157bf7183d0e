"""Unit layer: the agent-loop benchmark's pure parts (``cbmemory_eval.loop``, ``loop_report``): when a question
is asked, what the deterministic reply says, which answer a wrong reply gives, that loop records never count
as evidence (even under an evidence id), the slots, and the echo / wrong-echo accounting on hand-made rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cbmemory import Hit, MemoryRecord, Recall
from cbmemory.context import DEFAULT_CONTEXT, format_context
from cbmemory_eval.loop import (
    NOT_MENTIONED,
    NOTHING,
    LoopVariant,
    asked_at,
    hits_json,
    is_loop_record,
    loop_session,
    loop_turn_ids,
    loop_variants,
    reply_text,
    right_answer,
    score,
    shown_turn_ids,
    source_units,
    top_line,
    wrong_answer,
)
from cbmemory_eval.loop_report import echo_stats, group_stats, markdown, variant_summary
from cbmemory_eval.questions import EvalQuestion

LAST = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _q(i: int, answer: str | None, evidence: tuple[str, ...] = ("D1:1",), *, unanswerable: bool = False,
       user: str = "conv-x") -> EvalQuestion:
    return EvalQuestion(f"{user}:q{i}", user, f"question {i}?", answer, "single-hop", "4", evidence, ("session_1",),
                        LAST, "last_session", unanswerable=unanswerable)


def _rec(session: str, pos: int, turn_id: str, role: str = "user", text: str = "text") -> MemoryRecord:
    when = LAST - timedelta(days=1)
    return MemoryRecord(f"{session}#{pos}", "conv-x", session, "turn", pos, role, text, text, when, when, "h",
                        turn_id=turn_id, speaker="Caroline" if not session.startswith("loop-") else None)


def _recall(hits: list[Hit]) -> Recall:
    return Recall("", format_context(hits, DEFAULT_CONTEXT), tuple(hits))


# ---------------------------------------------------------------------------- one step
def test_each_question_is_asked_after_the_conversation_ten_minutes_apart():
    q = _q(12, "x")
    assert loop_session(q) == "loop-q12" and loop_turn_ids("loop-q12") == ("loop-q12:user", "loop-q12:agent")
    assert asked_at(q, 1) == LAST + timedelta(days=1)
    assert asked_at(q, 7) == LAST + timedelta(days=1, minutes=60)


def test_variants_and_which_replies_are_wrong():
    assert [v.name for v in loop_variants(None)] == ["no_loop", "loop"]
    assert [v.name for v in loop_variants(5)] == ["no_loop", "loop", "loop_wrong5"]
    v = LoopVariant("loop_wrong5", True, 5)
    assert [n for n in range(1, 16) if v.wrong(n)] == [5, 10, 15]
    assert not any(LoopVariant("loop", True).wrong(n) for n in range(1, 20))


def test_right_and_wrong_answers():
    qs = [_q(0, "7 May 2023"), _q(1, "7 may  2023"), _q(2, None, unanswerable=True), _q(3, "Paris")]
    assert right_answer(qs[0]) == "7 May 2023" and right_answer(qs[2]) == NOT_MENTIONED
    assert wrong_answer(qs, 0) == NOT_MENTIONED  # q1's answer is the same one, written otherwise: skipped
    assert wrong_answer(qs, 2) == "Paris"
    assert wrong_answer(qs, 3) == "7 May 2023"  # cyclically: the conversation's first question
    assert wrong_answer([_q(0, "a"), _q(1, "A")], 0) == "something else"


def test_the_reply_restates_the_top_memory_as_the_model_read_it():
    said = _rec("session_1", 0, "D1:1", text="I went to the support group yesterday.")
    found = _recall([Hit(said, 1.0)])
    line = top_line(found, DEFAULT_CONTEXT)
    assert line == "Caroline: I went to the support group yesterday [Saturday, 6 May 2023]. [said Sunday, 7 May 2023]"
    assert reply_text(line, "6 May 2023") == f"You told me: {line} So: 6 May 2023"
    assert top_line(_recall([]), DEFAULT_CONTEXT) is None
    assert reply_text(None, "x") == f"{NOTHING} So: x"


# ---------------------------------------------------------------------------- scoring
def test_loop_records_never_count_as_evidence_even_under_an_evidence_id():
    own = _rec("session_1", 3, "D1:4")
    fake = _rec("loop-q0", 0, "D1:1")  # a loop record carrying an evidence id: still no evidence
    reply = _rec("loop-q0", 1, "loop-q0:agent", role="assistant")
    assert is_loop_record(fake) and not is_loop_record(own)
    hits = [Hit(fake, 3.0, context=(reply,)), Hit(own, 2.0)]
    assert source_units(hits) == [frozenset(), frozenset({"D1:4"})]
    q = _q(0, "x", evidence=("D1:1", "D1:4"))
    m = score(q, _recall(hits), [1, 2])
    assert m["source_recall@1"] == 0.0 and m["source_recall@2"] == 0.5 and m["hit_source_recall@2"] == 0.5
    assert (m["hits"], m["loop_slots"], m["loop_user_slots"], m["loop_agent_slots"], m["top1_loop"]) == (2, 1, 1, 0, 1.0)
    assert (m["shown_records"], m["shown_loop_records"]) == (3, 2) and m["tokens"] > 0
    found = _recall(hits)
    assert shown_turn_ids(found) == ["D1:1", "loop-q0:agent", "D1:4"]
    assert [h["loop"] for h in hits_json(found)] == [True, False]
    assert hits_json(found)[0]["context_turn_ids"] == ["loop-q0:agent"]


def test_windows_count_as_what_the_reader_gets():
    before, hit, after = (_rec("session_1", i, f"D1:{i + 1}") for i in range(3))
    q = _q(0, "x", evidence=("D1:3",))
    m = score(q, _recall([Hit(hit, 1.0, context=(before, after))]), [1])
    assert m["source_recall@1"] == 1.0 and m["hit_source_recall@1"] == 0.0
    assert score(_q(1, "x", evidence=()), _recall([Hit(hit, 1.0)]), [1])["source_recall@1"] is None


# ---------------------------------------------------------------------------- echoes, on hand-made rows
def _row(n: int, evidence: list[str], shown: list[str], *, wrong: bool = False, user: str = "conv-x",
         loop: bool = True) -> dict:
    return {"user_id": user, "n": n, "question_id": f"{user}:q{n - 1}", "evidence": evidence,
            "session_id": f"loop-q{n - 1}" if loop else None, "shown_turn_ids": shown, "category": "single-hop",
            "reply": {"wrong": wrong, "text": "t", "answer": "a"} if loop else None,
            "metrics": {"hits": 2, "loop_slots": 1, "loop_user_slots": 0, "loop_agent_slots": 1, "top1_loop": 0.0,
                        "shown_records": 4, "shown_loop_records": 1, "tokens": 10, "latency_ms": 1.0,
                        "source_recall@2": 1.0}}


def test_wrong_echo_accounting_on_a_hand_made_conversation():
    rows = [
        _row(1, ["D1:1"], ["D1:1"], wrong=True),            # q0: wrong reply (its source: D1:1)
        _row(2, [], ["D2:1"], wrong=True),                  # q1: wrong but no evidence: never counted
        _row(3, ["D3:1"], ["loop-q0:agent", "D1:1"]),       # q0's wrong reply shown with its source
        _row(4, ["D4:1"], ["loop-q0:agent", "loop-q1:agent", "loop-q2:agent"]),  # q0's without source
        _row(5, ["D5:1"], ["D9:9"]),                        # nothing shown
        _row(1, ["D1:1"], ["D1:1"], wrong=True, user="conv-y"),
        _row(2, ["D2:2"], ["loop-q0:agent"], user="conv-y"),  # another conversation: its own replies only
    ]
    wrong = echo_stats(rows, wrong_only=True)
    assert wrong == {"replies": 2, "pairs": 3, "pairs_without_source": 2, "share_without_source": pytest.approx(2 / 3),
                     "questions": 5, "questions_with_echo_without_source": 2, "question_share": 0.4}
    every = echo_stats(rows, wrong_only=False)  # q2's right reply too, shown at q3 without D3:1
    assert (every["replies"], every["pairs"], every["pairs_without_source"]) == (6, 4, 3)
    assert every["questions_with_echo_without_source"] == 2


def test_a_later_question_never_sees_a_reply_saved_after_it():
    rows = [_row(1, ["D1:1"], ["loop-q1:agent"], wrong=True), _row(2, ["D2:1"], ["D2:1"], wrong=True)]
    assert echo_stats(rows, wrong_only=True)["pairs"] == 0


def test_slot_shares_pool_the_hits():
    rows = [_row(1, ["D1:1"], []), _row(2, ["D1:1"], [])]
    rows[1]["metrics"] |= {"hits": 8, "loop_slots": 0, "loop_agent_slots": 0, "top1_loop": 1.0}
    g = group_stats(rows, 2)
    assert g["loop_slot_share"] == pytest.approx(1 / 10) and g["loop_agent_slot_share"] == pytest.approx(1 / 10)
    assert g["top1_loop_share"] == 0.5 and g["shown_loop_share"] == pytest.approx(2 / 8) and g["n"] == 2


def test_the_report_shows_the_drop_per_category_fold_and_conversation():
    cats = [{"name": "single-hop", "code": "4", "alt_label": "open-domain", "unanswerable": False},
            {"name": "adversarial", "code": "5", "alt_label": "adversarial", "unanswerable": True}]
    base = [_row(1, ["D1:1"], [], loop=False, user="conv-26"), _row(2, ["D1:1"], [], loop=False, user="conv-30")]
    loop = [_row(1, ["D1:1"], [], user="conv-26"), _row(2, ["D1:1"], [], user="conv-30")]
    loop[1]["metrics"]["source_recall@2"] = 0.0
    res = {"no_loop": variant_summary(base, 2, cats), "loop": variant_summary(loop, 2, cats)}
    assert set(res["loop"]["by_fold"]) == {"A", "B"} and "echo" in res["loop"] and "echo" not in res["no_loop"]
    settings = {"dataset": "locomo", "k": 2, "embedder": "e", "loop_version": "1", "categories": cats}
    text = markdown({"settings": settings, "results": {"default": res}})
    assert "| Δ loop (points) | -50.0 | -50.0 | -50.0 |" in text  # single-hop, overall, overall w/o adversarial
    assert "| fold B | 1.000 | 0.000 | -100.0 |" in text and "| conv-26 | 1.000 | 1.000 | +0.0 |" in text
    assert "single-hop (4; mem0: open-domain)" in text
