"""Unit layer: the text rules on pasted text of hostile shapes, four times the longest message (256 KB), read in
time that grows with the text, not with its square. Each shape below once took time quadratic in its length in
the function named (at 64 KB: 35 s to split "...." into sentences, minutes to find the statement of ", so, so ...?",
23 s to read the claims of "I wake at 7 " repeated, 3.2 s those of "My " repeated at 15 KB, 107 s to compare two messages of many claims at 25 KB, 2.5 s to
part 8,000 spaces into clauses, 3.2 s to find whom "I friend " repeated names; the kinds' word lists, a job title's
and a dish's, are guarded from the start): a
memory's read path runs these on stored turns, so one pasted message stalled a recall. Pure functions; each test is a
hang guard (its timeout is tens of times what the linear code takes on 2 cores) and checks what is returned."""

from datetime import date

import pytest

from cbmemory.claims import claims, sentences
from cbmemory.dates.questions import question_span
from cbmemory.ingest.updates import changes
from cbmemory.retrieval.followed import kind_words, shaped
from cbmemory.retrieval.statements import own_clauses, statement, unaddressed
from cbmemory.text import clauses, stated
from cbmemory.values import claim_values, values

pytestmark = [pytest.mark.heavy, pytest.mark.timeout(60)]

N = 256_000


def _repeated(piece: str) -> str:
    return (piece * (N // len(piece) + 1))[:N]


@pytest.mark.parametrize("text", [_repeated("...."), "!" * N, _repeated("?!")])
def test_a_run_of_marks_is_one_sentence_end(text):
    # a run that ends the text (no space after it) was tried from each of its marks
    assert sentences("I moved to Porto. " + text) == ["I moved to Porto.", text]  # each keeps its closing marks
    assert sentences("I moved to Porto" + text[:10] + " Hello") == ["I moved to Porto" + text[:10], "Hello"]


@pytest.mark.parametrize("chain", [", so", ", and", ", well"])
def test_a_long_chain_of_connectors_is_read_once(chain):
    assert stated("I moved to Porto" + _repeated(chain) + "?") == ""  # no question word: a question, nothing stated
    assert stated("I moved to Porto, so, how are you?") == "I moved to Porto"


@pytest.mark.parametrize("piece", [" -", " - so", " — and then"])
def test_a_long_run_of_dashes_before_a_question_is_read_once(piece):
    # each dash may open a question after at most four joining words: read once, in linear time
    assert stated("I moved to Leith" + _repeated(piece) + " - how are you?").startswith("I moved to Leith")


@pytest.mark.parametrize(("piece", "asked"), [("please ", False), ("could ", False), ("can you ", True)])
def test_a_long_run_before_a_request_is_read_once(piece, asked):
    # a request opens after at most four joining words: a longer run is no request (a question: nothing stated)
    turn = _repeated(piece) + "could you help me?"
    assert stated(turn) == (turn[:-1].strip() + "." if asked else "")


@pytest.mark.parametrize(("piece", "kind"), [("I wake at last ", "wake"), ("she has my car, ", "car"),
                                             ("you live in Paris and ", "home"), ("a@b.c ", "email"),
                                             ("Going in by bus, ", "commute")])
def test_many_slot_phrases_in_one_sentence(piece, kind):
    assert kind not in claims(_repeated(piece))  # none is the user's claim (no time; another subject; no first person)


@pytest.mark.parametrize(("piece", "kept"), [("Thanks, Maria! ", 0), ("Maria, ", N // 7 - 1), (", Maria", N // 7),
                                             (". " + " " * 64, 0), ("Hi, ", 0)])
def test_names_said_to_someone_are_left_out_of_a_long_text_in_linear_time(piece, kept):
    left = unaddressed(_repeated(piece), frozenset({"Maria"}))
    # only the "Maria, " that opens the text opens a sentence; no ", Maria" ends one
    assert left.count("Maria") == kept
    assert unaddressed("I live in Inverness. " + piece * 3) == "I live in Inverness. " + unaddressed(piece * 3).lstrip()


@pytest.mark.parametrize(("piece", "kind", "found"), [
    ("senior staff ", "title", set()), ("head of ", "title", {"head of head"}), ("team lead ", "title", {"team lead"}),
    ("green curry ", "favourite", {"green curry"}), ("fish and ", "favourite", set()), ("canal ", "home", set())])
def test_a_kinds_words_in_a_long_text_are_read_in_linear_time(piece, kind, found):
    # each word tried against every word that narrows a title, or every dish, never from every later word
    assert kind_words(_repeated(piece), kind) == found


def test_a_long_run_of_name_characters_is_no_value():
    assert values(_repeated("a-")) == frozenset()
    assert values("+" * N + " mail me at ana@example.org") >= {"ana@example.org"}


def test_two_messages_of_many_claims_are_compared_in_linear_time():
    towns = " ".join(f"I live in Town{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}{chr(97 + i // 676 % 26)}."
                     for i in range(N // 20))
    # the same homes in both, and something new elsewhere: every pair of claims was compared, each saying nothing new
    assert not changes(towns + " I met Zed.", towns + " I met Quinn.", 0.5)
    assert changes("I live in Porto now. " + towns, "I live in Lisbon.", 0.5)  # the first claims tell a change


def test_a_question_of_many_dates():
    span = question_span(_repeated("May 7th "), date(2023, 8, 1))
    assert span is not None and span.start == span.end == date(2023, 5, 7)


@pytest.mark.parametrize("blank", [" ", "\t", "\n", " \u00a0"])
def test_a_long_run_of_spaces_is_parted_once(blank):
    # the statement's clauses, which the current-value stage embeds for a change told in passing
    run = _repeated(blank)
    assert clauses("I moved to Porto" + run + "and I love it, truly a great town") == [
        "I moved to Porto", "I love it", "truly a great town"]
    assert clauses(run + "x") == []


@pytest.mark.timeout(20)  # the quadratic reading took 48-50 s here on 2 cores; the linear one 0.2 s
@pytest.mark.parametrize("piece", ["I friend ", "we went with my friend ", "I met my friend on Sunday "])
def test_many_people_in_one_clause_are_read_once(piece):
    # each name looked back over the whole text for a "with" before it: 3.2 s at 64 KB, quadratic
    assert own_clauses(_repeated(piece), frozenset(), "home") == ""  # no claim of a home
    assert statement(_repeated(piece))[0]  # the people it names, each as company or object, read in linear time


def test_a_run_of_capitalised_words_is_compared_in_linear_time():
    # one value of a whole run of names: its shorter openings (values.name_openings) were all spelled out
    run = _repeated("Aa ")
    assert not changes("I work at " + run, "I work at Quillon Labs.", 0.5)
    assert not changes("I work at Quillon Labs.", "I work at " + run, 0.5)


@pytest.mark.parametrize("piece", ["My ", "The Quillon ", "my Quillon Labs ", "At Foo "])
def test_a_run_of_capitalised_words_is_no_employers_name(piece):
    # an employer's name (a staff thing's, a team's: "at Orbital Foods, in the data team") is of at most eight words:
    # read to the run's end from each "my", "the" or "at", the rules took time quadratic in the run (3.2 s for "My "
    # repeated to 15 KB, 1.7 s for "Foo At " to 28 KB)
    assert "work" not in claims(_repeated(piece))  # and no staff thing named: no claim



@pytest.mark.parametrize(("piece", "claimed"), [
    ("Callum and I have been a couple ", True), ("me and Callum and I ", False), ("It's been a couple ", False)])
def test_a_partner_told_with_the_speaker_is_read_in_linear_time(piece, claimed):
    # the partner's claims and their values: a name before "and I" or after "me and" (claims._WITH_ME), "a couple"
    # with nothing of a few after it (claims.COUPLE)
    found = claims(_repeated(piece)).get("partner", [])
    assert bool(found) is claimed and all("callum" in claim_values(c, "partner") for c in found)


@pytest.mark.parametrize(("piece", "slots"), [
    ("Quillon Labs ", set()),  # one run of capitalised words, too long to be a name: no company's name
    ("in Dundee, ", {"home_city"}),  # a city's name, many times
    ("St Brigid's ", set()),  # one long run again: no school's name
])
def test_a_values_shape_in_a_long_text_is_read_in_linear_time(piece, slots):
    text = "I moved. " + _repeated(piece)
    assert {s for s in ("employer", "home_city", "child_school", "email", "phone") if shaped(text, s)} == slots
