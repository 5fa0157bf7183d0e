"""Unit layer (datasets): a file's parsed JSON that is not the dataset asked for is refused with a message
naming the file, what it holds and what was expected; the other dataset's file names the command that reads
it. (Reading real files, and loaders end to end: tests/integration/cli/test_cli_mistakes.py.)"""

import pytest

from cbmemory.errors import InvalidInputError
from cbmemory_eval.datasets.formats import LOCOMO, LONGMEMEVAL, DatasetFormatError, check_items, looks_like

LOCOMO_ITEM = {"sample_id": "conv-1", "conversation": {}, "qa": []}
LME_ITEM = {"question_id": "q1", "question": "?", "haystack_sessions": []}


def test_items_are_recognised_by_their_keys():
    assert looks_like(LOCOMO_ITEM) == LOCOMO and looks_like(LME_ITEM) == LONGMEMEVAL
    assert looks_like({"foo": 1}) is None and looks_like([1]) is None and looks_like("x") is None


def test_the_right_list_passes_through():
    assert check_items([LOCOMO_ITEM], "f.json", LOCOMO) == [LOCOMO_ITEM]
    assert check_items([], "f.json", LONGMEMEVAL) == []


@pytest.mark.parametrize("data, dataset, says", [
    ({"a": 1}, LOCOMO, "f.json holds a JSON object; expected a JSON list of LoCoMo conversations"),
    ("text", LOCOMO, "f.json holds the JSON value 'text'; expected"),
    (3, LONGMEMEVAL, "holds the JSON value 3; expected a JSON list of LongMemEval questions"),
    ([LME_ITEM], LOCOMO, "f.json looks like a LongMemEval file, not LoCoMo; read it with the longmemeval command"),
    (LME_ITEM, LOCOMO, "looks like a LongMemEval file"),
    ([LOCOMO_ITEM], LONGMEMEVAL, "looks like a LoCoMo file, not LongMemEval; read it with the locomo command"),
], ids=["object", "string", "number", "longmemeval list as locomo", "longmemeval object as locomo",
        "locomo as longmemeval"])
def test_another_format_is_a_dataset_format_error(data, dataset, says):
    with pytest.raises(DatasetFormatError) as info:
        check_items(data, "f.json", dataset)
    assert says in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, InvalidInputError)
