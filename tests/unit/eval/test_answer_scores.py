"""Unit layer: automatic answer scores (LoCoMo's official token F1 rules, exact match, date distance and
its misses)."""

from datetime import date

import pytest

from cbmemory_eval.answer_scores import (
    DATE_METRICS,
    abstained,
    answer_scores,
    contains,
    date_error_days,
    exact_match,
    extract_date,
    locomo_f1,
    multi_answer_f1,
    normalize_answer,
    token_f1,
)


def test_normalisation_follows_locomo():
    assert normalize_answer("The cat, and the Hat!") == "cat hat"
    assert normalize_answer("  7 May, 2023. ") == "7 may 2023"


def test_token_f1_by_hand():
    # prediction stems [sunris, over, lake], gold [sunris]: P = 1/3, R = 1, F1 = 0.5
    assert token_f1("a sunrise over the lake", "A sunrise") == pytest.approx(0.5)
    assert token_f1("running", "runs") == 1.0  # Porter stems agree
    assert token_f1("blue", "red") == 0.0


def test_multi_hop_f1_averages_each_gold_part():
    assert multi_answer_f1("camping, charity race", "charity race, camping, pottery") == pytest.approx(2 / 3)


def test_locomo_f1_per_category_rules():
    assert locomo_f1("likely yes", "Likely yes; counselor", 3) == 1.0  # gold cut at ';'
    assert locomo_f1("Not mentioned in the conversation", None, 5) == 1.0
    assert locomo_f1("The information is not available.", None, 5) == 0.0  # the official phrases only
    assert locomo_f1("camping, race", "camping", 1) == 1.0
    assert locomo_f1("7 May 2023", "7 May 2023", 2) == 1.0


def test_exact_match_contains_abstained():
    assert exact_match("The Lake sunrise", "sunrise lake") == 1.0
    assert exact_match("sunrise", "sunrise lake") == 0.0
    assert contains("She painted a sunrise over the lake.", "A sunrise over the lake") == 1.0
    assert contains("sunrises", "sunrise") == 0.0
    assert abstained("The information is not available in the memories.")
    assert abstained("I don\u2019t know.")
    assert not abstained("She painted a sunrise.")


@pytest.mark.parametrize("text, expected", [
    ("7 May 2023", date(2023, 5, 7)),
    ("It was on May 7th, 2023.", date(2023, 5, 7)),
    ("on the 7th of May", date(2023, 5, 7)),
    ("2023-05-07", date(2023, 5, 7)),
    ("2023/05/07 (Sun)", date(2023, 5, 7)),
    ("The sunday before 25 May 2023", date(2023, 5, 21)),  # resolved, not read as 25 May
    ("Sept 3, 2022 and then 1 May 2023", date(2022, 9, 3)),
    ("June 2023", None),
    ("30 February 2023", None),
    ("I may go there", None),
])
def test_extract_date(text, expected):
    assert extract_date(text, default_year=2023) == expected


def test_date_distance_and_buckets():
    assert date_error_days("It was on 6 May 2023", "7 May 2023") == 1
    assert date_error_days("It was in June", "7 May 2023") is None
    s = answer_scores("She went on 30 April 2023.", "7 May 2023", dataset="locomo", category_id=2,
                      unanswerable=False, temporal=True, default_year=2023)
    assert s["date_error_days"] == 7.0 and s["date_answered"] == 1.0 and s["date_gold_usable"] == 1.0
    assert (s["date_within_1"], s["date_within_7"], s["date_within_31"]) == (0.0, 1.0, 1.0)


def _temporal(answer: str, gold: str) -> dict:
    return answer_scores(answer, gold, dataset="locomo", category_id=2, unanswerable=False, temporal=True,
                         default_year=2023)


def test_relative_golds_are_resolved_before_the_distance():
    # issue 15 (a): both answers used to score as (nearly) exact against the gold's anchor date
    s = _temporal("Friday, 9 June 2023", "The week before 9 June 2023")
    assert s["date_error_days"] == 5.0 and s["date_within_1"] == 0.0 and s["date_within_7"] == 1.0
    s = _temporal("2023-05-26", "The sunday before 25 May 2023")
    assert s["date_error_days"] == 5.0 and s["date_within_1"] == 0.0
    assert _temporal("On 1 June 2023.", "The week before 9 June 2023")["date_error_days"] == 0.0
    assert _temporal("the week before 9 June 2023", "The week before 9 June 2023")["date_within_1"] == 1.0


def test_an_answer_without_a_date_is_a_miss_not_left_out():
    # issue 15 (b): within-N is defined for every question whose gold has a usable date
    s = _temporal("The information is not available.", "7 May 2023")
    assert s["date_answered"] == 0.0 and s["date_error_days"] is None
    assert (s["date_within_1"], s["date_within_7"], s["date_within_31"]) == (0.0, 0.0, 0.0)
    answers = ["7 May 2023", "8 May 2023", "6 May 2023", "no idea", "not mentioned", "sometime", "?", "x"]
    within = [_temporal(a, "7 May 2023")["date_within_1"] for a in answers]
    assert sum(within) / len(within) == 3 / 8  # not 3 / 3


@pytest.mark.parametrize("gold", ["2022", "The summer of 2022", "four months", "Seattle", "A few years ago"])
def test_golds_without_a_usable_date_are_counted_not_scored(gold):
    s = _temporal("7 May 2022", gold)
    assert s["date_gold_usable"] == 0.0
    assert all(s[k] is None for k in ("date_answered", "date_error_days", "date_within_1", "date_within_7",
                                      "date_within_31"))


def test_date_scores_only_for_temporal_questions():
    s = answer_scores("7 May 2023", "7 May 2023", dataset="locomo", category_id=4, unanswerable=False,
                      temporal=False, default_year=2023)
    assert all(s[k] is None for k in DATE_METRICS)


def test_answer_scores_for_unanswerable_questions():
    s = answer_scores("Not mentioned.", None, dataset="locomo", category_id=5, unanswerable=True, temporal=False)
    assert s["f1"] == 1.0 and s["abstained"] == 1.0 and s["em"] is None and s["date_within_1"] is None
    s = answer_scores("The information is not available.", "x", dataset="longmemeval", category_id="ABS",
                      unanswerable=True, temporal=False)
    assert s["f1"] == 1.0  # LongMemEval abstention: abstaining is the right answer
    s = answer_scores("Business Administration", "Business Administration", dataset="longmemeval",
                      category_id="SSU", unanswerable=False, temporal=False)
    assert s["f1"] == 1.0 and s["em"] == 1.0 and s["abstained"] == 0.0
