"""Unit layer (ingest): what the ingest step says: readable names of ingest settings, the tally of new and
unchanged records ("0 new, 4,805 unchanged" on a re-ingest, no throughput when nothing was embedded), and
one bar whose total is the data's turns."""

from cbmemory.ingest import EnrichConfig, IngestConfig, IngestTally, embed_rate, ingest_label, ingest_with_bar
from cbmemory.models import IngestResult
from cbmemory.recipes import all_recipes

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)


def test_labels_say_how_records_are_made():
    assert ingest_label(RECIPES["default"].ingest) == "dates on, previous turn on"
    assert ingest_label(RECIPES["vector_no_dates"].ingest) == "dates off, previous turn off"
    assert ingest_label(RECIPES["default_sparse"].ingest) == (
        "dates on, previous turn on, sparse vectors (splade-tiny-f16-top128)")
    cfg = IngestConfig(unit="round", date_rules="rules-v1", index_annotation_keys=(),
                       enrich=EnrichConfig(modes=("summary", "events")))
    assert ingest_label(cfg) == ("dates on, previous turn off, one record per round, relative dates resolved "
                                 "(rules-v1), annotations indexed: none, LLM summary+events")


def test_a_tally_counts_new_replaced_and_unchanged():
    t = IngestTally()
    t.add(IngestResult(3, 0, 0, ()))
    t.add(None)  # a user ingested earlier in the run
    t.add(IngestResult(0, 1, 4801, ()))
    assert (t.inserted, t.replaced, t.unchanged, t.embedded) == (3, 1, 4801, 4)
    assert str(t) == "3 new, 1 replaced, 4,801 unchanged"
    assert str(IngestTally(0, 0, 4805)) == "0 new, 4,805 unchanged"
    assert embed_rate(IngestTally(0, 0, 4805), 0.2, "turn") == ""  # a re-ingest embeds nothing: no rate
    assert embed_rate(IngestTally(100, 0, 0), 2.0, "turn") == ", 50 turns/s embedded"


def test_one_bar_over_the_users_turns(capsys):
    written = []

    def one(user):
        written.append(user)
        return IngestResult(0, 0, 2, ())

    tally = ingest_with_bar([("conv-1", 2), ("conv-2", 3)], one, label="dates on, previous turn on")
    assert written == ["conv-1", "conv-2"] and str(tally) == "0 new, 4 unchanged"
    err = capsys.readouterr().err
    assert "embedding conv-2: dates on, previous turn on" in err and "5/5 turns" in err
    assert "turns/s" not in err  # no throughput in the bar
    assert str(ingest_with_bar([("u", 1)], one, label="x", enabled=False)) == "0 new, 2 unchanged"
    assert capsys.readouterr().err == ""
