"""Unit layer: recall at equal tokens (``run_state.budget_metrics``) on hand-made hits whose sizes are known:
hits are kept in rank order, each with its window, as long as each fits what is left of the budget (the context
stage's count: header plus each new line and its break); one that does not fit is kept without its window if
that fits, else skipped, and the later ones are still tried (issue 29); a turn two hits' windows share is paid
for once; recall is over the evidence turns the kept hits and their windows cover; the list is
deep enough to fill the largest budget (``budget_list``: asked again, twice as deep, while all of it fits)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cbmemory import Hit, MemoryRecord
from cbmemory.context import DEFAULT_CONTEXT, ContextConfig, context_tokens, count_tokens, header, line_tokens
from cbmemory_eval.run_state import BUDGET_DEPTH_MAX, TOKEN_BUDGETS, budget_list, budget_metrics

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


def _rec(pos: int, words: int, session: str = "s1") -> MemoryRecord:
    text = " ".join(["apple"] * words)
    return MemoryRecord(f"{session}#{pos}", "u", session, "turn", pos, "user", text, text, WHEN, WHEN, "h",
                        turn_id=f"{session}:{pos}", speaker="Ann")


HEAD = count_tokens(header(DEFAULT_CONTEXT))


def test_the_budget_keeps_what_fits_by_the_context_stages_count():
    a, b, c = _rec(1, 10), _rec(5, 30), _rec(9, 20)
    sizes = [line_tokens(r) for r in (a, b, c)]
    assert len(set(sizes)) == 3  # three different, known sizes
    hits = [Hit(a, 3.0), Hit(b, 2.0), Hit(c, 1.0)]
    exact = HEAD + sizes[0] + sizes[1]  # a and b fit exactly; c does not
    assert context_tokens(hits[:2]) == exact
    m = budget_metrics(["s1:5", "s1:9"], hits, budgets=(exact, exact - 1, HEAD + sizes[0] + sizes[2]))
    assert m[f"hits@{exact}t"] == 2 and m[f"recall@{exact}t"] == 0.5 and m[f"recall_all@{exact}t"] == 0.0
    # b does not fit exact - 1: it is skipped and c, smaller, is kept after a
    assert m[f"hits@{exact - 1}t"] == 2 and m[f"recall@{exact - 1}t"] == 0.5
    third = HEAD + sizes[0] + sizes[2]  # exactly a and c
    assert third < exact and m[f"hits@{third}t"] == 2 and m[f"recall@{third}t"] == 0.5
    assert budget_metrics(["s1:5"], hits, budgets=(third - 1,))[f"hits@{third - 1}t"] == 1  # only a
    big = budget_metrics(["s1:5", "s1:9"], hits, budgets=(10_000,))
    assert big == {"recall@10000t": 1.0, "recall_all@10000t": 1.0, "hits@10000t": 3, "deep_enough@10000t": 1.0}


def test_windows_are_paid_for_and_covered_and_a_shared_turn_counts_once():
    t = [_rec(i, 5 + i) for i in range(1, 6)]  # turns 1..5 of one session
    first = Hit(t[1], 2.0, context=(t[0], t[2]))  # turn 2, its window 1 and 3
    second = Hit(t[3], 1.0, context=(t[2], t[4]))  # turn 4, its window 3 (already shown) and 5
    one = HEAD + sum(line_tokens(r) for r in t[:3])
    both = one + line_tokens(t[3]) + line_tokens(t[4])  # turn 3 is not paid twice
    assert context_tokens([first, second]) == both
    m = budget_metrics(["s1:1", "s1:5"], [first, second], budgets=(one, both - 1, both))
    assert m[f"recall@{one}t"] == 0.5  # evidence in the window counts: the reader gets it
    # the second's window does not fit both - 1: it is kept alone (turn 4), so turn 5 is not covered
    assert m[f"hits@{both - 1}t"] == 2 and m[f"recall@{both - 1}t"] == 0.5
    assert m[f"hits@{both}t"] == 2 and m[f"recall@{both}t"] == 1.0 and m[f"recall_all@{both}t"] == 1.0
    bare = budget_metrics(["s1:1", "s1:5"], [Hit(t[1], 2.0), Hit(t[3], 1.0)], budgets=(both,))
    assert bare[f"recall@{both}t"] == 0.0  # the same hits without windows cover no evidence


def test_the_context_config_counts_as_it_renders():
    r = _rec(1, 12)
    undated = ContextConfig(dates=False, resolve_dates=False)
    assert line_tokens(r, undated) < line_tokens(r)
    budget = count_tokens(header(undated)) + line_tokens(r, undated)
    assert budget_metrics(["s1:1"], [Hit(r, 1.0)], undated, budgets=(budget,))[f"hits@{budget}t"] == 1
    assert budget_metrics(["s1:1"], [Hit(r, 1.0)], budgets=(budget,))[f"hits@{budget}t"] == 0


def test_deep_enough_says_whether_the_list_or_the_budget_ended_the_context():
    hits = [Hit(_rec(i, 8), 1.0 / i) for i in range(1, 4)]
    roomy = budget_metrics(["s1:1"], hits, budgets=(10_000,), depth=3)
    assert roomy["deep_enough@10000t"] == 0.0  # all 3 asked for fit with room: a deeper search shows more
    small = HEAD + line_tokens(hits[0].record)
    assert budget_metrics(["s1:1"], hits, budgets=(small,), depth=3)[f"deep_enough@{small}t"] == 1.0
    # fewer hits than asked (the recipe's own budget or the memory ended the list): not the depth's fault
    assert budget_metrics(["s1:1"], hits, budgets=(10_000,), depth=5)["deep_enough@10000t"] == 1.0


def test_no_evidence_and_no_hits():
    hits = [Hit(_rec(1, 4), 1.0)]
    m = budget_metrics([], hits)
    assert [m[f"recall@{b}t"] for b in TOKEN_BUDGETS] == [None, None, None]
    assert m["hits@512t"] == 1
    empty = budget_metrics(["s1:1"], [])
    assert empty["recall@1024t"] == 0.0 and empty["hits@1024t"] == 0


@pytest.mark.parametrize("budget", TOKEN_BUDGETS)
def test_default_budgets_named_by_tokens(budget):
    m = budget_metrics(["s1:1"], [Hit(_rec(1, 4), 1.0)])
    assert m[f"recall@{budget}t"] == 1.0 and m[f"hits@{budget}t"] == 1


def _searcher(hits):
    asked: list[int] = []

    def search(n):
        asked.append(n)
        return hits[:n]
    return search, asked


def test_the_budget_list_asks_deeper_while_all_it_got_fits_with_room():
    short = [Hit(_rec(i, 2), 1.0 / i) for i in range(1, 401)]  # ~10 tokens a line: 100 of them fit 2,048
    assert context_tokens(short[:100]) < 2048 < context_tokens(short[:200])
    search, asked = _searcher(short)
    hits, depth = budget_list(search, 100)
    assert asked == [100, 200] and len(hits) == depth == 200  # 200 fill 2,048: deep enough
    m = budget_metrics(["s1:1"], hits, depth=depth)
    assert m["deep_enough@2048t"] == 1.0 and 100 < (m["hits@2048t"] or 0) < 200


def test_the_budget_list_stops_at_the_cap_when_the_memory_ends_or_the_first_fills():
    short = [Hit(_rec(i, 2), 1.0 / i) for i in range(1, 401)]
    search, asked = _searcher(short)
    hits, depth = budget_list(search, 100, budget=10**6, cap=300)
    assert asked == [100, 200, 300] and depth == 300 and len(hits) == 300
    assert budget_metrics(["s1:1"], hits, budgets=(10**6,), depth=depth)["deep_enough@1000000t"] == 0.0
    search, asked = _searcher(short[:60])  # the memory holds 60: asking for more shows nothing more
    assert budget_list(search, 100)[0] == short[:60] and asked == [100]
    long = [Hit(_rec(i, 60), 1.0 / i) for i in range(1, 401)]  # 100 long hits are far over 2,048 tokens
    search, asked = _searcher(long)
    assert len(budget_list(search, 100)[0]) == 100 and asked == [100]
    search, asked = _searcher(short)
    assert budget_list(search, BUDGET_DEPTH_MAX)[1] == BUDGET_DEPTH_MAX and asked == [BUDGET_DEPTH_MAX]


def test_the_budget_list_counts_tokens_as_the_rows_context_renders():
    short = [Hit(_rec(i, 2), 1.0 / i) for i in range(1, 401)]
    undated = ContextConfig(dates=False, resolve_dates=False)
    budget = context_tokens(short[:100]) - 1  # 100 dated lines do not fit it; 100 undated ones do
    assert context_tokens(short[:100], undated) <= budget
    search, asked = _searcher(short)
    budget_list(search, 100, budget=budget)
    assert asked == [100]
    search, asked = _searcher(short)
    budget_list(search, 100, undated, budget=budget)
    assert asked[:2] == [100, 200]  # the same 100 hits leave room undated: it asks for more
