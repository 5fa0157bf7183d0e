"""Unit layer: the knowledge-update benchmark's generator (deterministic, every phrasing family for every
kind, non-changes labelled, quiet statements that share no content word with the question) and its metrics
on hand-worked cases."""

import dataclasses
import re
from datetime import UTC, datetime, timedelta
from importlib import import_module

import pytest

from cbmemory import Message
from cbmemory.text import stems
from cbmemory_eval.datasets.locomo import LocomoConversation, LocomoSession
from cbmemory_eval.updates import (
    FAMILIES,
    KINDS,
    VARIANTS,
    appended,
    case_metrics,
    generate,
    make_case,
    summarise,
)
from cbmemory_eval.updates.generate import as_agent, family_values
from cbmemory_eval.updates.kinds import BY_NAME
from cbmemory_eval.updates.metrics import table

SLOTS = ("state", "change", "quiet", "passing", "other")
MODULES = {f: import_module(f"cbmemory_eval.updates.phrasings_{f}") for f in FAMILIES}  # each family's module


def _conv(sample_id: str, sessions: int = 20, mention: str = "") -> LocomoConversation:
    t0 = datetime(2023, 1, 1, tzinfo=UTC)
    out = []
    for i in range(sessions):
        msgs = (Message("user", f"Hello from session {i}. {mention}", "Ann", f"D{i + 1}:1"),
                Message("assistant", "Hi Ann.", "Bob", f"D{i + 1}:2"))
        out.append(LocomoSession(f"session_{i + 1}", t0 + timedelta(days=7 * i), msgs))
    return LocomoConversation(sample_id, "Ann", "Bob", tuple(out), ())


CONVS = [_conv(f"c{i}") for i in range(6)]


def test_at_least_twenty_kinds_each_with_every_family_and_every_slot():
    assert len(KINDS) >= 20 and set(FAMILIES) == set(MODULES)
    for kind in KINDS:
        assert set(kind.questions) == set(FAMILIES) and len(set(kind.values)) >= 4
        for mod in MODULES.values():
            assert set(mod.PHRASINGS[kind.name]) == set(SLOTS), kind.name


@pytest.mark.parametrize(("one", "other"), [(a, b) for i, a in enumerate(FAMILIES) for b in FAMILIES[i + 1:]])
def test_two_families_share_no_sentence_and_no_question(one, other):
    a, b = MODULES[one], MODULES[other]
    assert not {t for k in a.PHRASINGS.values() for t in k.values()} & {t for k in b.PHRASINGS.values()
                                                                         for t in k.values()}
    assert not set(a.REPLIES + a.CONFIRMS) & set(b.REPLIES + b.CONFIRMS)
    assert not set(a.WHO) & set(b.WHO)
    assert not set(a.ASKS) & set(b.ASKS)
    assert all(k.questions[one] != k.questions[other] for k in KINDS)


@pytest.mark.parametrize("family", FAMILIES)
def test_quiet_statements_repeat_no_content_word_of_the_question(family):
    mod = MODULES[family]
    for kind in KINDS:
        quiet = mod.PHRASINGS[kind.name]["quiet"].replace("{v}", "")
        shared = stems(quiet) & stems(kind.questions[family])
        assert not shared, (kind.name, shared)


def test_generation_is_deterministic_and_seeded():
    a, b = generate(CONVS, "train", seed=3), generate(CONVS, "train", seed=3)
    assert a == b
    c = generate(CONVS, "train", seed=4)
    assert [x.current for x in a] != [x.current for x in c]


def test_every_kind_is_told_every_way_over_six_conversations():
    cases = generate(CONVS, "test")
    assert len(cases) == len(CONVS) * len(KINDS)
    for kind in KINDS:
        assert {c.variant for c in cases if c.kind == kind.name} == set(VARIANTS)
    assert all(c.family == "test" and c.question == BY_NAME[c.kind].questions["test"] for c in cases)


def test_a_change_a_revert_and_a_non_change_are_labelled():
    conv = CONVS[0]
    kind = BY_NAME["city"]
    direct = make_case(conv, kind, "direct", "train", 0, 0)
    assert direct.is_change and direct.current != direct.stale
    assert [i.step for i in direct.injections] == ["old", "new"]
    old, new = direct.injections
    assert direct.stale in old.messages[0].content and direct.current in new.messages[0].content
    assert direct.current_turns == ("upd|city|new|0",) and direct.stale_turns == ("upd|city|old|0",)
    revert = make_case(conv, kind, "revert", "train", 0, 0)
    assert [i.step for i in revert.injections] == ["old", "new", "back"]
    assert revert.injections[0].messages[0].content.count(revert.current) == 1  # A, B, then A again
    assert revert.current_turns == ("upd|city|back|0",) and revert.stale_turns == ("upd|city|new|0",)
    other = make_case(conv, kind, "other", "train", 0, 0)
    assert not other.is_change and other.current_turns == ("upd|city|old|0",)
    said = other.injections[1].messages[0].content
    assert other.stale in said and any(f"My {w}" in said for w in MODULES["train"].WHO)
    confirmed = make_case(conv, kind, "confirmed", "train", 0, 0)
    assert confirmed.current in confirmed.injections[1].messages[1].content  # the assistant repeats it
    assert confirmed.current_turns == ("upd|city|new|0", "upd|city|new|1")


def test_statements_are_dated_in_order_and_asked_after_the_last_session():
    conv = CONVS[1]
    dates = {s.session_id: s.date for s in conv.sessions}
    for kind in KINDS:
        case = make_case(conv, kind, "revert", "train", 0, KINDS.index(kind))
        days = [dates[i.session_id] for i in case.injections]
        assert days == sorted(days) and len(set(days)) == 3
        assert case.question_date == conv.last_date >= days[-1]


def test_asks_back_ends_every_statement_with_a_question_and_changes_nothing_else():
    plain, asking = generate(CONVS, "train", seed=1), generate(CONVS, "train", seed=1, asks_back=True)
    assert [(c.current, c.stale, c.current_turns) for c in plain] == [(c.current, c.stale, c.current_turns)
                                                                      for c in asking]
    for p, a in zip(plain, asking, strict=True):
        for pi, ai in zip(p.injections, a.injections, strict=True):
            said, asked = pi.messages[0].content, ai.messages[0].content
            assert asked.startswith(said + " ") and asked.endswith("?")
            assert asked[len(said) + 1:] in MODULES["train"].ASKS
            assert pi.messages[1] == ai.messages[1]  # the assistant's turn is as without it


@pytest.mark.parametrize(("question", "asked"), [
    ("Which city do I live in these days?", "Which city does the user live in these days?"),
    ("What is my phone number now?", "What is the user's phone number now?"),
    ("Where am I going on my next big trip?", "Where is the user going on the user's next big trip?"),
    ("What do we drive?", "What does the user drive?"),
    ("How many of us live at home?", "How many in the user's household live at home?"),
    ("My doctor's name?", "The user's doctor's name?"),
])
def test_as_agent_puts_a_question_about_the_user_in_the_third_person(question, asked):
    assert as_agent(question) == asked


def test_as_agent_names_the_user_when_given_their_name():
    assert as_agent("Which city do I live in these days?", "John") == "Which city does John live in these days?"
    assert as_agent("My doctor's name?", "John") == "John's doctor's name?"


@pytest.mark.parametrize("family", FAMILIES)
def test_asked_by_name_every_question_names_the_user_and_nothing_else_changes(family):
    user, named = generate(CONVS, family, seed=1), generate(CONVS, family, seed=1, ask_as="name")
    for u, n in zip(user, named, strict=True):
        speaker = next(c.speaker_a for c in CONVS if c.sample_id == u.user_id)
        assert re.search(rf"\b{speaker}\b", n.question) and not re.search(r"\b(?:I|my|me|we|our|us)\b", n.question,
                                                                           re.I)
        assert dataclasses.replace(n, question=u.question) == u


@pytest.mark.parametrize("family", FAMILIES)
def test_asked_as_an_agent_every_question_says_the_user_and_nothing_else_changes(family):
    user, agent = generate(CONVS, family, seed=1), generate(CONVS, family, seed=1, ask_as="agent")
    for u, a in zip(user, agent, strict=True):
        assert "the user" in a.question and not re.search(r"\b(?:I|my|me|we|our|us)\b", a.question, re.I)
        assert dataclasses.replace(a, question=u.question) == u
    with pytest.raises(ValueError, match="ask_as"):
        generate(CONVS, family, ask_as="robot")


def test_values_the_conversation_mentions_are_avoided():
    kind = BY_NAME["city"]
    conv = _conv("m", mention=" ".join(kind.values[:-2]))  # only the last two are free
    for seed in range(5):
        case = make_case(conv, kind, "direct", "train", seed, 0)
        assert {case.current, case.stale} == set(kind.values[-2:])


def test_a_family_with_values_of_its_own_draws_only_those():
    own = MODULES["blind"].VALUES
    assert set(own) == {k.name for k in KINDS}
    for kind in KINDS:
        values = family_values("blind", kind)
        assert values == own[kind.name] and len(set(values)) >= 4
        if kind.name != "weekly_class":  # the weekdays are the weekdays
            assert not set(values) & set(kind.values), kind.name
        assert family_values("train", kind) == kind.values
    for case in generate(CONVS, "blind"):
        said = [m.content for i in case.injections for m in i.messages]
        assert {case.current, case.stale} <= set(own[case.kind])
        assert case.current in " ".join(said) and case.stale in " ".join(said)


def test_appended_groups_turns_by_user_and_session():
    cases = generate(CONVS[:1], "train")
    plan = appended(cases)
    assert list(plan) == ["c0"]
    ids = [m.turn_id for _, msgs in plan["c0"] for m in msgs]
    assert len(ids) == len(set(ids)) == sum(2 * len(c.injections) for c in cases)


def test_unknown_family_and_variant_are_refused():
    with pytest.raises(ValueError, match="family"):
        generate(CONVS, "holdout")
    with pytest.raises(ValueError, match="variant"):
        make_case(CONVS[0], KINDS[0], "maybe", "train", 0, 0)


# ---------------------------------------------------------------------------- metrics, worked by hand
def test_new_ranked_above_stale():
    m = case_metrics(["n"], ["o"], [{"x"}, {"n", "y"}, {"o"}], tokens=120)
    assert m == {"new_shown": True, "stale_shown": True, "stale_only": False, "new_above_stale": True,
                 "marked": None, "tokens": 120}


def test_stale_only_and_stale_above_new():
    assert case_metrics(["n"], ["o"], [{"o"}, {"x"}])["stale_only"] is True
    m = case_metrics(["n"], ["o"], [{"o"}, {"n"}])
    assert m["new_shown"] and not m["stale_only"] and m["new_above_stale"] is False
    same = case_metrics(["n"], ["o"], [{"o", "n"}])  # one passage shows both: not above
    assert same["new_above_stale"] is False


def test_neither_shown():
    m = case_metrics(["n"], ["o"], [{"x"}])
    assert not m["new_shown"] and not m["stale_only"] and m["new_above_stale"] is None


def test_new_shown_alone_is_above():
    assert case_metrics(["n1", "n2"], ["o"], [{"n2"}])["new_above_stale"] is True


def test_marked_needs_every_shown_stale_turn_marked_and_no_current_one():
    ranked = [{"n"}, {"o1", "o2"}]
    assert case_metrics(["n"], ["o1", "o2"], ranked, marks={"o1": True, "o2": True})["marked"] is True
    assert case_metrics(["n"], ["o1", "o2"], ranked, marks={"o1": True})["marked"] is False
    assert case_metrics(["n"], ["o1", "o2"], ranked, marks={"o1": True, "o2": True, "n": True})["marked"] is False
    assert case_metrics(["n"], ["o"], [{"n"}], marks={})["marked"] is None  # nothing stale shown: n/a


def test_summary_keeps_changes_and_non_changes_apart():
    rows = [
        {"variant": "direct", "is_change": True, "new_shown": True, "stale_only": False, "new_above_stale": True,
         "marked": None, "tokens": 100},
        {"variant": "direct", "is_change": True, "new_shown": False, "stale_only": True, "new_above_stale": None,
         "marked": None, "tokens": 300},
        {"variant": "other", "is_change": False, "new_shown": True, "stale_only": False, "new_above_stale": True,
         "marked": None, "tokens": 200},
    ]
    s = summarise(rows)["all"]
    assert s["n"] == 2 and s["n_other"] == 1
    assert s["new_shown"] == 0.5 and s["stale_only"] == 0.5 and s["new_above_stale"] == 1.0
    assert s["marked"] is None and s["own_shown"] == 1.0 and s["other_only"] == 0.0 and s["tokens"] == 200
    by = summarise(rows, "variant")
    assert by["direct"]["n"] == 2 and by["other"]["own_shown"] == 1.0 and by["other"]["new_shown"] is None
    assert "| all | 2 | 0.50 | 0.50 | 1.00 | n/a | n/a | 1 | 1.00 | n/a | 200 |" in table(summarise(rows), "x")


def test_wilson_interval_by_hand():
    from cbmemory_eval.updates.links import wilson

    assert wilson(0, 0) is None
    lo, hi = wilson(19, 20)  # p = 0.95, n = 20: 0.764 .. 0.991
    assert round(lo, 3) == 0.764 and round(hi, 3) == 0.991
    assert wilson(20, 20)[1] == 1.0
