"""Read time: the current value of a fact of the user's that the question asks about (``current_value``).

A question about the user themself ("Which city do I live in these days?") often matches the user's
earlier statement of the fact better than the later one that changed it, which may share no word with the
question ("Tomorrow is my first morning as a resident of Porto"). The matter is found by meaning, not by
words: ``SLOTS`` (``cbmemory.retrieval.slots``) holds a few generic descriptions per kind of personal fact
(written for this stage, no benchmark sentence), embedded with the memory's own query embedder (its cache keeps
them after the first search of a user). A text's slot is the slot of its nearest description, when that is
close enough (``*_FLOOR``) and nearer than any other slot's (``*_MARGIN``); with the offline MiniLM a question is read
first by the question head (``question_slot``: a small softmax learned from questions written by hand), whose
reading of questions worded apart from every description held up on question sets it was not trained on.

When the question is about the user (``about.about_the_user``: in the first person, "we" included unless it is what
the user and the assistant said, or about "the user", as an agent's tool asks, or by a name the user's turns among
the hits carry: ``about.named_as_the_user``) and has a slot, one extra vector search (``DEPTH`` records, the slot's
mean description as the query; with the slot head a second, along the head's direction for the kind: ``HEAD_DEPTH``
records, ``HEAD_EMBEDDED`` statements; and, for a kind the claim rules know, a full-text search for the phrases of its
rule, whose claims join them: ``followed.claimed_by_words``, as a claim in a long memory may lie past the vector
searches, whose vectors also hold the date and the turn answered; for a slot whose values' shape is told by words, a
company's or a school's name, a full-text search for those words, whose statements naming such a value join them:
``followed.shaped_by_words``) finds the user's statements on that matter: what
the user's own turns state (``text.stated``: a turn that tells news and then asks back, "I moved to Porto! How
have you been?", states the news; a request states what it says, "Could you remind me to pack my kit on Monday, since
that's my climbing night now?"; one that only asks states nothing), naming no person the question does not ("my
cousin moved to Glasgow" is not the user's home; a statement that names one is read as its clauses that name no one and are in the first person,
when they claim the kind of fact: "I got vaccinated for Peru, our trip now, and the nurse asked about your sister",
someone named as the user's company naming no one else: "I moved to Leeds with my sister"; ``statements.own``; but
for the kinds of fact about the people in one's life, ``slots.matter``, those people are the matter: "since my mum
moved in we are six at dinner", "my boyfriend cooked tonight"), whose own words (what they state, embedded alone:
the stored vector also holds the date and the turn answered; without a name they say to the person they talk to,
"Thanks, Maria!", which is no person of their life: ``statements.unaddressed``) are near the slot's descriptions
(``slot_match``), that claim the slot's kind of fact by the write-time rules (``cbmemory.claims``, a precise
first-person statement of it) or that the slot head reads as of the slot's kind (``slot_head``: learned from a local
LLM's sentences and clues written by hand, for the offline MiniLM's vectors). Of those, the ``TOP`` nearest the slot
are kept, a claim, a change word or the head's reading counting nearer (``statement_score``: in a long memory many
statements touch the matter, and the newest of them would crowd out the one that changed it), and the latest
``LATEST`` of them, by conversation date (both growing with a memory past 50 sessions, as k does: ``selection``),
with the latest ``RESERVED`` of the others that one of their clauses puts on the matter (``passing``: a change told in
passing, "Work was hectic, but the view from our new flat in Bilbao makes up for it"), the latest ``ACK_PLACES`` of the
others that the assistant acknowledged by naming them back in a short reply and that the head reads as of the kind
from a lower floor (``acknowledged_places``: a change told by a clue, "Got a Fernhill Analytics hoodie in my welcome pack",
answered "Noted, Fernhill Analytics."), the newest ``HEARD`` statements that only such a reply among the records
the vector searches read brought (``acknowledged.answered``, ``heard_places``: a change confirmed, "Noted: Fenwick
Analytics.", lies deeper in the searches than the reply naming it back; a place of their own, taking none of the
others') and the newest that names again a value a claim of the matter gave
(``followed.named_again``: a change back told in other words), the newest that names again a name the statement ranked
nearest the matter gave (``followed.best_named_again``: a change back told quietly, "Callum burnt the toast again"
after "My partner's called Callum", where no claim read the name) and the newest claim that names a value no claim
before it named (``followed.claimed_anew``: a change told as a claim, ranked low) and the newest that name a value
first after the statement ranked nearest the matter (``followed.named_anew``: a change told by a clue, "The canteen
at Quillon Labs does a great curry on Fridays"), join the first hit's context (as a window's turns do: the ranked
hits, their number and order stay as they were; the context shows every line in date order), so the newest statements of the
matter are in what the reader gets. Nothing is marked as changed here (marking the older statements of the slot was
measured and left off: it would mark the current statement itself in 7 of ~180 questions per family); marks come
from write-time links. Cost, for such a question only: a vector search of ``DEPTH`` (and one of ``HEAD_DEPTH``) and
the embedding of up to ``EMBEDDED`` (and ``HEAD_EMBEDDED``) statements they find and of their clauses, newest first
until ``RESERVED`` are found (the embedder's cache keeps them for the user's later questions), one read of the
replies to the statements not chosen that are on the slot or clear ``ACK_FLOOR`` (``acknowledged``), one list of the
user's sessions (their number), one full-text search for the claim rule's phrases (``CLAIM_DEPTH`` records), one
for the words of the slot's shape (``SHAPE_DEPTH``; an employer's and a school's questions only), one read of the
turns before the short replies the vector searches read (``answered``) and one when those statements claim a value.
A store that
``keeps_derived`` (the embedded one) keeps the statements' vectors from each user turn's write (``kept_texts``), and
the embedder's cache finds them there: only turns written before that (later writes give them theirs, a few at a
time), or to a store that keeps none, are embedded when a question first reads them. The stage only adds to the
recipe's hits: when one of its embedder calls fails (a hosted model's rate limit), the hits stay as they are and a
warning is logged (``with_current``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache, partial
from itertools import islice
from typing import ParamSpec, TypeVar

import numpy as np

from ..claims import CHANGE, claims
from ..models import Hit, MemoryRecord, SearchFilters, conversation_order
from ..store.base import MemoryStore
from ..store.signals import Signal
from ..text import people
from . import slot_head
from .about import about_the_user, in_first_person, named_as_the_user, users_names
from .acknowledged import acknowledged_places, answered, heard_places
from .config import K_BASE, K_MAX, growth
from .followed import (
    best_named_again,
    claimed_anew,
    claimed_by_words,
    claimed_values,
    named_again,
    named_anew,
    shaped,
    shaped_by_words,
)
from .passing import told_in_passing
from .slot_match import Embed, EmbedMany, Protos, by_slots, clear_rows, prototypes, slot_of, unit
from .slots import KINDS, NAMES_ONLY
from .slots import matter as slot_matter
from .statements import CACHED_CHARS, addressees, own, unaddressed

LOG = logging.getLogger("cbmemory.retrieval")  # the stage's embedder faults (``with_current``)
_P = ParamSpec("_P")
_R = TypeVar("_R")

# Chosen by leave-one-conversation-out CV on the knowledge-update benchmark's train phrasings (LoCoMo dev, 8
# conversations): the floors and margins at x1 (every fold; experiments/knowledge_updates/current_cv.py), DEPTH,
# EMBEDDED, TOP and LATEST at x1 and x10 together (experiments/knowledge_updates/scale_cv.py). At x10 the newest
# of all the statements near the matter were mostly other talk, newer than the change: keeping the TOP nearest
# first took held-out train newest shown at x10 from 0.45 to 0.66. Re-chosen when the stage began to read what
# turns state (text.stated: a quarter more candidates), over plain and asking-back phrasings weighted by LoCoMo's
# share of turns that ask back: 5 folds of 8 chose (400, 200, 15, 8), over (400, 100, 10, 6) before.
QUESTION_FLOOR = 0.5  # cosine of a question to its slot's nearest description
QUESTION_MARGIN = 0.0  # ... and how much nearer than any other slot's
# With the offline MiniLM, a question's reading of each slot also gains QUESTION_LIFT_WEIGHT times the slot head's
# probability of that kind for the question's own vector, and the sum must reach QUESTION_LIFT_FLOOR and lead by
# QUESTION_LIFT_MARGIN: the two readings miss different questions ("Who do I work for these days?" is nearest the
# commute's descriptions, the head reads it as job title's). Chosen together on five question sets (the train, dev and
# fresh families' questions, probes written on 5 December, asked.py's), a question read as another slot counting
# against as much as one read right gains, first-person questions about no such fact as negatives
# (experiments/knowledge_updates/question_reading.py; README, "The question reading chosen again with asked.py in the
# sets"). Left out of each set in turn it reads them no better than the descriptions alone (257 against 258 right, 4
# and 4 as another slot); on the benchmark, test x1 142 / 3 -> 144 / 2 and x10 116 / 8 -> 121 / 7 (newest shown /
# stale only of 154; own value as before), train, dev and fresh as before.
QUESTION_LIFT_WEIGHT = 0.25
QUESTION_LIFT_FLOOR = 0.55
QUESTION_LIFT_MARGIN = 0.02
# Before that, with MiniLM, the question head (``slot_head.QUESTION_FILE``: trained on questions written by hand and
# first-person questions about no such fact) reads the question as its most probable kind when that is not "none" and
# at least ASKED_FLOOR. Chosen leaving one of six question sets out in turn (experiments/knowledge_updates/
# question_head.py): held out, 304 read right of 318, 5 as another slot, 9 of 105 negatives read, against the reading
# without it 293, 5 and 9.
ASKED_FLOOR = 0.4
STATEMENT_FLOOR = 0.3  # cosine of a statement's own words to the question's slot's nearest description
STATEMENT_MARGIN = -0.1  # ... minus its cosine to any other slot's (negative: a statement may be nearer another)
DEPTH = 400  # records the slot's search reads
EMBEDDED = 200  # of the user's statements among them, the first (nearest by the stored vectors) looked at
# A second search (MiniLM only), its query the slot head's direction for the kind: its first HEAD_EMBEDDED user
# statements not found above join them. Set before any run (experiments/knowledge_updates/README.md, "A second
# search along the head's reading of the kind"); test once: x10 newest shown / stale only 94 / 17 -> 107 / 14 of
# 154, own value 17 -> 17 of 30; x1 as it was.
HEAD_DEPTH = 400  # records the second search finds
HEAD_EMBEDDED = 50
READ_BATCH = 64  # ... read this many at a time (those the first found left out), until HEAD_EMBEDDED are the user's
# Re-chosen with the slot head (experiments/knowledge_updates/head/select_cv.py: train and dev together, 5 folds of 8
# chose (20, 12) over (15, 8)); test once: newest shown / stale only x1 122 / 16 -> 127 / 14 of 154, x10 84 / 22 -> 92 /
# 22, own value 23 -> 26 and 13 -> 17 of 30; about 50 (x1) and 140 (x10) more tokens a question.
TOP = 20  # the statements looked at nearest the slot's descriptions ...
LATEST = 12  # ... of which the newest are shown
# ... in a memory of up to 50 sessions; in a larger one both grow by ``scale_k``'s law (``config.growth``: doubling
# with each tenfold growth of the sessions), at most GROW_MAX times (``scale_k``'s own bound: k at most 50 of its
# 10). Taken as it is, no constant chosen (experiments/knowledge_updates/README.md, "The stage's selection grows with
# the haystack"); test once: x10 newest shown / stale only 109 / 13 -> 115 / 11 of 154, own value 17 -> 17 of 30, about
# 134 more tokens a question; x1 (19-32 sessions) as it was.
GROW_MAX = K_MAX / K_BASE
# In that ranking a statement that claims the question's kind of fact (``cbmemory.claims``: a slot phrase in a
# first-person clause with no hedge, negation or future) counts CLAIMED nearer, and is on the slot even below the
# floor or margin; one with a change word (``cbmemory.claims.CHANGE``) counts CHANGED nearer. Chosen by the same CV
# (experiments/knowledge_updates/claims_cv.py; every fold chose a bonus): held-out train x10 newest shown 0.682 ->
# 0.734, stale only 0.169 -> 0.143; test once: x10 0.474 -> 0.487 and 0.182 -> 0.162, x1 0.747 -> 0.740 (the rules
# were written looking at train's phrasings). A claim of a kind two slots share (``KINDS``: the home's city and its
# kind) counts CLAIMED nearer only on the one whose descriptions it is nearer: "We moved into a farmhouse" outranked
# the city's change on a question of the city (experiments/knowledge_updates/README.md, "A claim counts nearer on the
# slot it is of"; test once: x1 and x10 as they were, train x1 stale only 2 -> 1).
CLAIMED = 0.1
CHANGED = 0.05
# With the offline MiniLM, the slot head (``slot_head``: a softmax over the kinds learned from a local LLM's sentences
# and clues written by hand) also puts a statement on the slot when it gives the slot's kind at least HEAD_FLOOR, and
# each statement ranks HEAD_WEIGHT times that probability nearer. Chosen by leave-one-conversation-out on the train
# and dev phrasings together (experiments/knowledge_updates/head/cv.py; 8 folds chose HEAD_FLOOR 0.2, 6 of them
# HEAD_WEIGHT 0.2): test once, newest shown / stale only x1 119 / 19 -> 122 / 16 of 154, x10 80 / 23 -> 84 / 22, own
# value not lower. Then retrained with clue sentences written by hand (head/clue_cv.py, the setting kept): test once,
# x1 127 / 14 -> 132 / 11, x10 92 / 22 -> 94 / 17, own value 26 -> 25 and 17 -> 17 of 30.
HEAD_FLOOR = 0.2
HEAD_WEIGHT = 0.2



def _marks(said: str, kind: str | None) -> tuple[bool, bool]:
    """Whether a statement claims ``kind`` (``cbmemory.claims``; ``None``: no rule, never) and whether it has a change
    word (``CHANGE``): the same statements are ranked on each question of their matter."""
    return _cached_marks(said, kind) if len(said) <= CACHED_CHARS else _read_marks(said, kind)


def _read_marks(said: str, kind: str | None) -> tuple[bool, bool]:
    return kind is not None and bool(claims(said, kind)), bool(CHANGE.search(said))


# a (statement, kind) pair per entry: a user's 30 kinds' pools of up to 250 statements each fit
_cached_marks = lru_cache(maxsize=8192)(_read_marks)


def statement_score(vec: np.ndarray, said: str, protos: Protos, slot: str) -> float | None:
    """How near the slot a user's statement ranks (``nearest``), or ``None`` when it is not on the slot. It is on the
    slot when its cosine to the slot's nearest description clears the statement floor and margin (``clear_rows``),
    when it claims the slot's kind of fact (``KINDS``, ``cbmemory.claims``), when it names a value of the slot's shape
    (an email address, a phone number, a school's, a city's or a company's name: ``followed.shaped``), or when the slot
    head (``slot_head``, MiniLM only) gives it the slot's kind with probability at least ``HEAD_FLOOR``. Its rank is that
    cosine, plus ``HEAD_WEIGHT`` times the head's probability, plus ``CLAIMED`` when it claims the kind (of a kind
    another slot shares, when it is at least as near this slot's descriptions as that one's) and ``CHANGED`` when it has
    a change word (neither bonus for a statement only the head puts on the slot). ``vec``: what it states (``said``),
    embedded."""
    return statement_scores(np.asarray(vec)[None, :], [said], protos, slot)[0]


def question_slot(vec: np.ndarray, protos: Protos) -> str | None:
    """The slot a question (its vector, put in the first person) asks about: with MiniLM, the question head's reading
    (``SlotHead.most_probable``, from ``ASKED_FLOOR``), if any; else by its nearest descriptions (``slot_of``: at least
    ``QUESTION_FLOOR``, ``QUESTION_MARGIN`` ahead of every other slot), with the slot head (MiniLM) each slot lifted by
    ``QUESTION_LIFT_WEIGHT`` times the head's probability of it, at least ``QUESTION_LIFT_FLOOR`` and
    ``QUESTION_LIFT_MARGIN`` ahead."""
    asked = slot_head.matching(protos[2][0], slot_head.QUESTION_FILE)
    read = asked.most_probable(vec, ASKED_FLOOR) if asked is not None else None
    if read is not None:
        return read
    head = slot_head.matching(protos[2][0])
    if head is None:
        return slot_of(vec, protos, QUESTION_FLOOR, QUESTION_MARGIN)
    lift = QUESTION_LIFT_WEIGHT * head.probabilities(np.asarray(vec)[None, :])[0]
    return slot_of(vec, protos, QUESTION_LIFT_FLOOR, QUESTION_LIFT_MARGIN, lift)


def head_reading(vecs: np.ndarray, protos: Protos, slot: str) -> np.ndarray:
    """Per row of ``vecs`` (statements' vectors), the slot head's probability of ``slot``'s kind (``slot_head``;
    zeros for a model the head was not trained on)."""
    head = slot_head.matching(protos[2][0]) if len(vecs) else None
    return head.probabilities(vecs)[:, head.names.index(slot)] if head is not None else np.zeros(len(vecs))


def statement_scores(vecs: np.ndarray, saids: Sequence[str], protos: Protos, slot: str,
                     learned: np.ndarray | None = None) -> list[float | None]:
    """``statement_score`` of each statement (``saids``, their vectors the rows of ``vecs``), the cosines in one
    product with the descriptions; ``learned``: their ``head_reading``, when the caller has it already."""
    kind = KINDS.get(slot)
    i = protos[0].index(slot)
    best = by_slots(vecs, protos)
    clear = clear_rows(best, i, STATEMENT_FLOOR, STATEMENT_MARGIN).tolist()
    read = (head_reading(vecs, protos, slot) if learned is None else learned).tolist()
    # a claim of a kind another slot shares counts nearer only when the statement is as near this slot as that one
    shared = [j for j, name in enumerate(protos[0]) if j != i and kind is not None and KINDS.get(name) == kind]
    its_own = (best[:, i] >= best[:, shared].max(axis=1)).tolist() if shared else [True] * len(saids)
    out: list[float | None] = []
    for said, cosine, on, p, mine in zip(saids, best[:, i].tolist(), clear, read, its_own, strict=True):
        claimed, changed = _marks(said, kind)
        if on or claimed or shaped(said, slot):
            out.append(cosine + CLAIMED * (claimed and mine) + CHANGED * changed + HEAD_WEIGHT * p)
        else:  # on the slot by the head alone: no change word's bonus (as measured)
            out.append(cosine + HEAD_WEIGHT * p if p >= HEAD_FLOOR else None)
    return out


def nearest(scored: Sequence[tuple[MemoryRecord, float]], top: int | None) -> list[MemoryRecord]:
    """The ``top`` records of ``scored`` (record, its rank toward the slot: ``statement_score``) nearest the
    slot (all: ``None``; a tie keeps the earlier in ``scored``), in conversation order: the newest of those most
    clearly on the matter, not the newest of every statement that touches it (in a long memory many do, and the
    newest of them crowd out the statement that changed the fact)."""
    kept = sorted(scored, key=lambda rs: -rs[1])[:top] if top is not None else scored
    return sorted((r for r, _ in kept), key=conversation_order)


def latest_statements(store: MemoryStore, embed: Embed, user_id: str, query: str, filters: SearchFilters,
                      now: datetime | None, embed_texts: EmbedMany | None = None,
                      embed_queries: EmbedMany | None = None, names: Collection[str] = (),
                      addressed: frozenset[str] = frozenset()) -> list[MemoryRecord]:
    """For a first-person question with a slot, the user's latest statements of that slot, in conversation
    order (the newest ``LATEST`` of the ``TOP`` nearest the slot, and the newest ``RESERVED`` others that a clause
    puts on it: ``passing.told_in_passing``, and the newest that names again a value a claim among them gave:
    ``followed.named_again``, the newest claim naming a value no claim before it named: ``followed.claimed_anew``,
    and the newest that name a value first: ``followed.named_anew``; see the module docstring); none otherwise.
    ``embed_texts``: the same embedder for many texts at once (the found statements are embedded in one batch;
    ``None``: one by one with ``embed``); ``embed_queries``: ``embed`` for many texts at once (``prototypes``);
    ``names``: the user's names (``about.users_names``), a question naming one is about the user; ``addressed``: the
    names of those the user talks to (``statements.addressees``), left out of what the statements' vectors are of."""
    query = named_as_the_user(query, names)
    if not about_the_user(query):
        return []
    protos = prototypes(embed, embed_queries)
    slot = question_slot(embed(in_first_person(query)), protos)
    if slot is None:
        return []
    names, owner, rows = protos
    probe = unit(rows[owner == names.index(slot)].mean(axis=0))
    turns = replace(filters, kinds=("turn",))  # the user's statements are turns: each search and read keeps to them
    found = store.search_candidates(Signal.VECTOR, user_id, probe, DEPTH, turns, now)
    asked, matter, kind = people(query), slot_matter(slot), KINDS.get(slot)

    def mine(r: MemoryRecord) -> str:  # what a found turn states of the user's own (``statements.own``)
        return own(r, asked, matter, kind)

    # the first EMBEDDED of the user's own statements, nearest by their stored vectors: only theirs are embedded
    read = [r for r in store.read_candidates(found, list(range(len(found)))) if r is not None]  # None: gone since
    pool = list(islice(((r, said) for r in read if (said := mine(r))), EMBEDDED))
    # and the first HEAD_EMBEDDED others along the head's reading of the kind (``slot_head.SlotHead.direction``)
    head = slot_head.matching(rows[0])
    if head is not None and HEAD_DEPTH > 0:
        more = store.search_candidates(Signal.VECTOR, user_id, head.direction(slot), HEAD_DEPTH, turns, now)
        seen = {r.record_id for r, _ in pool}
        unseen = [i for i, rid in enumerate(more.ids.tolist()) if rid not in seen]
        extra = (r for at in _batches(unseen, READ_BATCH) for r in store.read_candidates(more, at) if r is not None)
        pool += islice(((r, said) for r in _kept(extra, read) if (said := mine(r))), HEAD_EMBEDDED)
    if kind is not None:  # and the user's claims of the kind, found by the phrases of its claim rule
        def claim(r: MemoryRecord) -> str:
            said = mine(r)
            return said if said and _marks(said, kind)[0] else ""
        pool += claimed_by_words(store, user_id, kind, {r.record_id for r, _ in pool}, claim, filters, now)
    # and the user's statements naming a value of the slot's shape, found by its words (a company's, a school's name)
    pool += shaped_by_words(store, user_id, slot, {r.record_id for r, _ in pool}, mine, filters, now)
    # the statements short replies among what the searches read acknowledge (a change confirmed lies deep): scored as
    # the pool's are, ranked with none of them, shown only in a place of their own (``heard_places``)
    heard = answered(store, user_id, read, {r.record_id for r, _ in pool}, mine, turns, now)
    # a statement's slot by its own words (its stored vector also holds its date and the turn it answers)
    many = embed_texts if embed_texts is not None else (lambda ts: np.stack([embed(t) for t in ts]))
    saids = [said for _, said in (*pool, *heard)]
    embedded = [unaddressed(s, addressed) for s in saids]  # what is embedded: not the names the user addresses
    vecs = many(embedded) if saids else np.empty((0, 0))
    learned = head_reading(vecs, protos, slot)  # the head's reading of each, for the ranking and the replies' places
    scores = statement_scores(vecs, saids, protos, slot, learned) if saids else []
    n = len(pool)  # the pool's statements first, then those the replies brought: each part's readings
    ranks, heard_ranks, read_as, heard_read_as = scores[:n], scores[n:], learned[:n], learned[n:]
    top, latest = selection(len(store.list_sessions(user_id)))
    picked = nearest([(r, s) for (r, _), s in zip(pool, ranks, strict=True) if s is not None], top)[-latest:]
    chosen = {r.record_id for r in picked}
    passing = told_in_passing([(r, text) for (r, _), text in zip(pool, embedded[:n], strict=True)
                               if r.record_id not in chosen], protos, slot, many)
    chosen |= {r.record_id for r in passing}
    acked = acknowledged_places(store, user_id, pool, read_as, ranks, chosen, turns, now)
    acked += heard_places(heard, heard_read_as, heard_ranks, chosen)  # a place of their own
    chosen |= {r.record_id for r in acked}
    # a value the user's claims of the matter gave, named again (followed.py); the claims as ranked above (cached)
    claimed = [(r, said) for r, said in pool if _marks(said, kind)[0]]
    words = slot not in NAMES_ONLY  # the kind's words are values (a home's kind, not its city)
    again = named_again(store, user_id, claimed, partial(claimed_values, kind=kind, words=words), chosen, mine, filters,
                        now) if kind is not None and claimed else []
    chosen |= {r.record_id for r in again}
    # a name the statement ranked nearest the matter gave, named again (a change back told quietly, where no claim
    # read the name: "Callum burnt the toast again" after "My partner's called Callum")
    again += best_named_again(store, user_id, pool, ranks, chosen, mine, filters, now)
    chosen |= {r.record_id for r in again}
    changed = claimed_anew(claimed, kind, chosen, words) if kind is not None else []  # a change told as a claim
    chosen |= {r.record_id for r in changed}
    # a value named first after the best-ranked statement
    anew = named_anew(pool, read_as, ranks, chosen, kind if words else None)
    return sorted([*picked, *passing, *acked, *again, *changed, *anew], key=conversation_order)


def selection(sessions: int) -> tuple[int, int]:
    """``TOP`` and ``LATEST`` for a memory of ``sessions`` sessions: as they are up to 50 sessions, then times
    ``config.growth`` (``scale_k``'s law), at most ``GROW_MAX`` times."""
    grow = min(GROW_MAX, max(1.0, growth(sessions)))
    return round(TOP * grow), round(LATEST * grow)


def _kept(records: Iterable[MemoryRecord], into: list[MemoryRecord]) -> Iterator[MemoryRecord]:
    """``records``, each appended to ``into`` as it is read (the second search's records are read lazily)."""
    for r in records:
        into.append(r)
        yield r


def _batches(items: Sequence[int], size: int) -> Iterator[list[int]]:
    """``items`` in lists of ``size``: the second search's records are read a batch at a time, until enough are."""
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


class _ModelFailed(Exception):
    """A call of the embedder made for this stage failed (the cause is ``__cause__``)."""


def _guarded(call: Callable[_P, _R]) -> Callable[_P, _R]:
    """``call``, its failures raised as ``_ModelFailed``: the stage tells the model's faults from its own."""
    def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return call(*args, **kwargs)
        except Exception as exc:
            raise _ModelFailed from exc
    return guarded


def with_current(store: MemoryStore, embed: Embed, user_id: str, query: str, hits: list[Hit],
                 filters: SearchFilters, now: datetime | None, embed_texts: EmbedMany | None = None,
                 embed_queries: EmbedMany | None = None) -> list[Hit]:
    """``hits`` with the user's latest statements of the fact asked about (``latest_statements``; a question that
    names the user by a name their turns among ``hits`` carry counts as about them) that the first hit's passage does
    not show yet added to its context (also those another hit shows: the budget may leave that hit out); ``hits``
    unchanged when there are none. The stage adds to the search and must not undo it: when one of its embedder calls
    fails (a hosted model's rate limit, a timeout), ``hits`` come back as they are and a warning is logged on the
    ``cbmemory.retrieval`` logger; any other fault is raised."""
    if not hits:
        return hits
    try:
        latest = latest_statements(store, _guarded(embed), user_id, query, filters, now,
                                   _guarded(embed_texts) if embed_texts is not None else None,
                                   _guarded(embed_queries) if embed_queries is not None else None,
                                   names=users_names(hits), addressed=addressees(hits))
    except _ModelFailed as failed:
        cause = failed.__cause__  # its message may name a file or the user: only its type is logged (at DEBUG, all)
        LOG.warning("cbmemory: the latest statements on the matter asked about were not added: the embedder failed "
                    "(%s)", type(cause).__name__, exc_info=cause if LOG.isEnabledFor(logging.DEBUG) else None)
        return hits
    # every one the first hit's passage does not show: another hit that shows one may be left out by the context's
    # token budget (a context shows a record once, in the first passage that holds it, and the budget counts it once)
    shown = {r.record_id for r in (hits[0].record, *hits[0].context)}
    added = tuple(r for r in latest if r.record_id not in shown)
    return [replace(hits[0], context=(*hits[0].context, *added)), *hits[1:]] if added else hits
