"""Unit layer (embedding): how the offline embedder groups texts into model runs (``onnx.runs``, a pure function of
their token counts). That a text's vector does not depend on its run is the integration layer's test
(``tests/integration/embedding/test_minilm.py``, the real model)."""

from cbmemory.embedding.onnx import PAD_SLACK, runs


def test_every_text_is_in_one_run_shortest_first():
    lengths = [40, 7, 23, 7, 90, 41, 12]
    out = runs(lengths, 16)
    flat = [i for run in out for i in run]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)


def test_texts_of_unlike_lengths_run_apart():
    """One save's turn, its reply and what the turn states: padding the short ones to the longest costs more than
    a run of their own."""
    assert runs([60, 90, 9], 16) == [[2], [0], [1]]


def test_texts_of_like_lengths_share_a_run_up_to_the_size():
    assert runs([20, 21, 22, 20], 16) == [[0, 3, 1, 2]]
    assert [len(r) for r in runs([30] * 40, 16)] == [16, 16, 8]


def test_a_run_ends_where_its_padding_would_pass_the_slack():
    # four texts of 10 tokens: a fifth of 10 + s pads them by 4 * s tokens in all
    within, past = PAD_SLACK // 4, PAD_SLACK // 4 + 1
    assert len(runs([10, 10, 10, 10, 10 + within], 16)) == 1
    assert len(runs([10, 10, 10, 10, 10 + past], 16)) == 2
    assert runs([5, 6], 16, slack=0) == [[0], [1]]


def test_no_texts_no_runs():
    assert runs([], 16) == []
