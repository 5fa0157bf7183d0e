"""Fixtures of the evaluation tests: small synthetic files in the official LoCoMo and LongMemEval formats
(with each format's quirks), the real data paths, and a rule-driven fake chat model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
LOCOMO_DEV = DATA / "locomo" / "locomo-dev.json"
LME_SAMPLE = DATA / "longmemeval" / "samples" / "longmemeval_single.json"


def _turns(session: int, speakers: tuple[str, str], texts: list[str]) -> list[dict]:
    return [{"speaker": speakers[i % 2], "dia_id": f"D{session}:{i + 1}", "text": t} for i, t in enumerate(texts)]


def locomo_synthetic() -> list[dict]:
    """Two conversations in LoCoMo's format, with its quirks: a date key without a session, an integer
    answer, adversarial items without ``answer``, malformed and unknown evidence ids, an empty evidence list."""
    a = ("Caroline", "Melanie")
    conv_a = {
        "speaker_a": "Caroline", "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": _turns(1, a, [
            "Hey Melanie! I went to the LGBTQ support group yesterday and it was so powerful.",
            "That's great, Caroline! What did you do there?",
            "We shared stories. I also started reading a book about adoption agencies.",
            "I painted a sunrise over the lake last weekend.",
        ]),
        "session_2_date_time": "7:55 pm on 25 May, 2023",
        "session_2": _turns(2, a, [
            "I ran a charity race for mental health on Saturday.",
            "Wow, how far did you run, Caroline?",
            "It was a 5k. My kids cheered for me at the finish line.",
            "Melanie, I am planning to go camping in June with my family.",
        ]),
        "session_3_date_time": "10:37 am on 27 June, 2023",
        "session_3": _turns(3, a, [
            "We went camping at the beach last week and roasted marshmallows.",
            "Caroline, I signed up for a pottery class yesterday.",
            "My counselor said I should apply to be a foster parent.",
            "I have 3 kids and they all love the beach.",
        ]),
        "session_4_date_time": "1:00 pm on 1 July, 2023",  # date key without a session (conv-26 quirk)
    }
    qa_a = [
        {"question": "When did Caroline go to the LGBTQ support group?", "answer": "7 May 2023",
         "evidence": ["D1:1"], "category": 2},
        {"question": "What did Melanie paint?", "answer": "A sunrise over the lake", "evidence": ["D1:4"],
         "category": 4},
        {"question": "What activities does Melanie do with her family?", "answer": "camping, charity race",
         "evidence": ["D2:4; D3:1"], "category": 1},
        {"question": "How many kids does Melanie have?", "answer": 3, "evidence": ["D3:04"], "category": 1},
        {"question": "Would Caroline likely become a foster parent?", "answer": "Likely yes; counselor",
         "evidence": ["D3:3"], "category": 3},
        {"question": "When did Melanie sign up for a pottery class?", "answer": "26 June 2023",
         "evidence": ["D3:2", "D9:99"], "category": 2},
        {"question": "What did Caroline paint?", "adversarial_answer": "A sunrise", "evidence": ["D1:4"],
         "category": 5},
        {"question": "What is Melanie's favourite food?", "adversarial_answer": "pizza", "evidence": [],
         "category": 5},
    ]
    b = ("Jon", "Gina")
    conv_b = {
        "speaker_a": "Jon", "speaker_b": "Gina",
        "session_1_date_time": "4:04 pm on 20 January, 2023",
        "session_1": _turns(1, b, [
            "Gina, I lost my job as a banker so I want to open a dance studio.",
            "Jon, I lost my job too! I am starting an online clothing store.",
            "Dancing has always been my passion since I was a kid.",
        ]),
        "session_2_date_time": "2:32 pm on 29 January, 2023",
        "session_2": _turns(2, b, [
            "I found a great place for the studio downtown yesterday.",
            "Congrats Jon! My store got its first order from Paris.",
            "Thanks Gina, the grand opening is next month.",
        ]),
    }
    qa_b = [
        {"question": "Why did Jon open a dance studio?", "answer": "He lost his banking job; passion for dance",
         "evidence": ["D1:1", "D1:3"], "category": 4},
        {"question": "When did Jon find a place for the studio?", "answer": "28 January 2023",
         "evidence": ["D2:1"], "category": 2},
        {"question": "What kind of store did Jon start?", "adversarial_answer": "online clothing store",
         "answer": "No", "evidence": ["D1:2"], "category": 5},
    ]
    return [{"sample_id": "conv-a", "conversation": conv_a, "qa": qa_a},
            {"sample_id": "conv-b", "conversation": conv_b, "qa": qa_b}]


def lme_instance(qid: str, qtype: str, *, answer: Any = "Business Administration", dup: bool = False,
                 unsorted: bool = False) -> dict:
    """One LongMemEval question in the official format (optionally with a duplicated session id and
    haystack dates out of order, as in the oracle file)."""
    sessions = [
        [{"role": "user", "content": "Can you recommend some task management apps?", "has_answer": False},
         {"role": "assistant", "content": "Todoist and Trello are popular choices.", "has_answer": False}],
        [{"role": "user", "content": "I graduated with a degree in Business Administration.", "has_answer": True},
         {"role": "assistant", "content": "", "has_answer": False},
         {"role": "assistant", "content": "Congratulations on your Business Administration degree!",
          "has_answer": True}],
        [{"role": "user", "content": "What is a good recipe for banana bread?"},
         {"role": "assistant", "content": "Mash three bananas, mix with flour, sugar and butter, bake an hour."}],
    ]
    ids = ["sharegpt_abc_0", f"answer_{qid}", "ultrachat_123"]
    dates = ["2023/05/20 (Sat) 02:21", "2023/05/22 (Mon) 10:00", "2023/05/25 (Thu) 18:30"]
    if dup:
        ids[2] = ids[0]
    if unsorted:
        dates = [dates[2], dates[0], dates[1]]
    return {"question_id": qid, "question_type": qtype, "question": "What degree did I graduate with?",
            "answer": answer, "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": ids,
            "haystack_dates": dates, "haystack_sessions": sessions, "answer_session_ids": [f"answer_{qid}"]}


def lme_synthetic() -> list[dict]:
    return [
        lme_instance("q1", "single-session-user"),
        lme_instance("q2", "knowledge-update", answer=42, dup=True),
        lme_instance("q3_abs", "single-session-user", unsorted=True),
        lme_instance("q4", "temporal-reasoning"),
    ]


@pytest.fixture
def locomo_file(tmp_path) -> Path:
    path = tmp_path / "locomo-synthetic.json"
    path.write_text(json.dumps(locomo_synthetic()))
    return path


@pytest.fixture
def lme_file(tmp_path) -> Path:
    path = tmp_path / "longmemeval-synthetic.json"
    path.write_text(json.dumps(lme_synthetic()))
    return path


def make_fake_chat(respond: Callable[[list[tuple[str, str]]], str], name: str = "fake-rules"):
    """A real LangChain ``BaseChatModel`` whose replies come from ``respond(messages)``."""
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class RuleChatModel(BaseChatModel):
        model_name: str = name
        calls: int = 0

        @property
        def _llm_type(self) -> str:
            return "rule-fake"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
            self.calls += 1
            text = respond([(m.type, str(m.content)) for m in messages])
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    return RuleChatModel()
