"""What a user's statement claims: the kinds of personal fact a turn states as the user's own (``claims``), by
rules, no model. One ``SLOTS`` rule per kind (where one lives, works, a phone number, a school, a partner, a trip,
a habit ...) finds the phrase; the clause around it must be the user's own plain statement (``_stated``): a
first-person word (I, my, we ...), a subject left out as chat does ("Moved to Porto last week!"), or carried over
"and" from a clause the user opens ("I've left my old job and joined Quillon Labs"), or a label of news ("New
number: ..."), no third- or second-person subject ("she moved to Porto", "glad you moved to Porto"), no hedge or
wish ("I'd love to live in Lisbon", "if I moved"; a condition on the listener after the claim, "... if you ever need
me", is a clause of its own), no negation, nothing about the future ("I'm going to move"; trips excepted). ``CHANGE``:
the words that tell a change (moved, switched, no longer, these days ...). What values a turn or a claim names is
``cbmemory.values``.

Read by the write-time supersession rules (``cbmemory.ingest.updates``: which earlier statement a new one
changes) and by the read-time current-value stage (``cbmemory.retrieval.current_value``: a statement that claims
the question's kind of fact ranks first). Pure functions over text; below both. The rules were written looking at
the knowledge-update benchmark's train phrasings and at plain LoCoMo dev, and narrowed (cars, habits, wake-up times,
change words, hedges) after reading the links they made in LongMemEval's sample haystack, then widened for direct
changes told in everyday words (sets of our own, ``experiments/knowledge_updates/probes.py``; a held set of 69:
47 claimed before, 58 after, with plain LoCoMo's and that haystack's links unchanged), and for values and forms no
family had (a family with values of its own, ``blind``: the kept animals, homes of two words, the day's start, a
job's staff things; "The claim rules read what they were not written beside" in the experiments' README), and for
everyday words a family written blind to the rules used (``probe``: a partner's everyday words and a name told before
them, going in on the Tube, a laptop by its make; "Everyday words the claim rules did not know").
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import cache
from itertools import islice
from typing import NamedTuple

from .literals import phrases
from .text import PARTNER_WORDS

# "new place" is a home only told as one's own: not a place one is at or comes from ("dinner at a new place", "a
# cortado at the new place"), nor one found for something ("a new place for haircuts"): a home's phrase and a change
# word then (``SLOTS``, ``CHANGE``)
NEW_PLACE = r"(?<!\bat a )(?<!\bat the )(?<!\bfrom a )(?<!\bfrom the )new place(?! for\b)"

CHANGE = re.compile(
    r"\b(?:moved|moving (?:back )?to|relocat\w*|switch\w*|(?<!-)chang(?:e|ed|es|ing)\b(?!-)|no longer|not anymore|any ?more|"
    r"instead(?! of \w+ing)|lost my job|laid off|got fired|resigned|retired|left (?:my|the) (?:job|company|firm)|"
    r"from now on|these days|nowadays|quit|swapped|upgraded|transferred|promoted|replaced|new (?:job|number|address|home|"
    rf"flat|school|doctor|phone|laptop|car|partner|plan|role|title)|{NEW_PLACE}|(?:is|are|it's) \w+ now)\b", re.I)

# Kinds of one value at a time (a home, an employer): a new one replaces it. Others (pets, trips ...) hold several.
SINGLE = frozenset({"home", "work", "school", "phone", "email", "title", "partner", "doctor", "car", "diet", "coffee",
                    "wake", "commute", "household"})

# car makes, for a purchase that is a car ("bought a Kia"; "bought a new Instant Pot" is not); makes that are also
# common words (Mini, Seat) are left out: "bought a mini fridge" is no car
MAKES = (r"toyota|honda|ford|tesla|volkswagen|vw|skoda|škoda|bmw|audi|mercedes|kia|hyundai|nissan|mazda|subaru|volvo|"
         r"fiat|renault|peugeot|citro[eë]n|jeep|chevrolet|chevy|lexus|porsche|jaguar|land rover|range rover|dacia|"
         r"opel|vauxhall|suzuki|mitsubishi|polestar|rivian|dodge|cadillac|alfa romeo|saab|byd|lada")

# the words for one's partner (``text.PARTNER_WORDS``, longest first; not the short "bf" and "gf", which the claim rule
# has not read), for a partner named beside one: "my other half Callum"
PARTNERS = "|".join(re.escape(w) for w in sorted(PARTNER_WORDS - {"bf", "gf"}, key=lambda w: (-len(w), w)))

# the means of going in that the commute's phrases name ("by ferry", "I go in on the Tube")
MEANS = r"bike|bus|train|tram|tube|metro|underground|ferry|boat|coach|subway"

# laptops by maker or line, for a laptop told by its name ("my LG Gram", "a new ZenBook"): HP only before a line or
# "laptop" (alone it is many things)
LAPTOPS = (r"dell|lenovo|asus|acer|razer|xps|zenbook|vivobook|thinkbook|ideapad|matebook|elitebook|probook|"
           r"galaxy book|lg gram|hp (?:laptop|spectre|envy|pavilion|elitebook|probook|omen|chromebook|victus)")

# sports and languages by name, for a claim told with a verb of taking one up ("I've taken up badminton", "Italian
# classes"): the kind's own word ("sport", "language") is rarely said
SPORTS = (r"badminton|tennis|table tennis|padel|squash|pickleball|football|soccer|rugby|cricket|hockey|netball|"
          r"basketball|volleyball|handball|lacrosse|baseball|softball|golf|running|rowing|climbing|bouldering|"
          r"swimming|cycling|triathlons?|boxing|kickboxing|judo|karate|jiu-?jitsu|fencing|crossfit|water polo|"
          r"ultimate frisbee|frisbee|dodgeball|korfball|curling|archery|skiing|snowboarding|surfing|kayaking|"
          r"canoeing|paddleboarding|skateboarding|taekwondo|wrestling|gymnastics|athletics|hurling|ice hockey|"
          r"field hockey|lawn bowls|ten-pin bowling|darts|snooker|parkour|spikeball")
LANGUAGES = (r"spanish|french|german|italian|portuguese|japanese|korean|mandarin|chinese|cantonese|arabic|russian|"
             r"dutch|swedish|norwegian|danish|finnish|polish|greek|turkish|hindi|urdu|welsh|gaelic|irish|hebrew|"
             r"thai|vietnamese|czech|hungarian|swahili|sign language")
HOMES = (r"flat|apartment|house|bungalow|cottage|studio|houseboat|narrowboat|canal boat|maisonette|condo|semi|terrace|"
         r"townhouse|farmhouse|penthouse|loft|caravan|mobile home|barn conversion")
# the animals people keep at home, by name ("an axolotl called Pickle"): the kind's own word ("pet") is rarely said
# (not those one meets outdoors: "I saw a snake on the hike", a turtle, a hedgehog, the Canary Islands)
PETS = (r"dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|ferret|tortoise|guinea pig|gecko|bearded dragon|iguana|"
        r"corn snake|axolotl|goldfish|budgie|cockatiel|cockatoo|gerbil|chinchilla")
# what an employer's staff get or go through, said with the employer's name ("my Quillon Labs lanyard")
STAFF_THINGS = (r"lanyard|security pass|staff pass|staff badge|work badge|payslip|pay slip|induction|onboarding|"
                r"welcome pack")
# two people as a couple, not a couple of days: "we've been a couple since May", not "it's been a couple days"
COUPLE = r"a couple(?! of\b| (?:more|few)\b| \w+s\b)"
_NAME = r"(?-i:[A-Z])[\w&'.-]*(?: (?-i:[A-Z&])[\w&'.-]*){0,7}"  # at most eight words: a run of capitals is no name

SLOTS: dict[str, re.Pattern[str]] = {name: re.compile(p, re.I) for name, p in {
    "home": r"\b(?:live[sd]? in|living in|mov(?:ed|ing|e) (?:back )?to|relocat\w+ to|resident of|based in|settled "
            rf"in|moved into|new (?:flat|apartment|house|home)|{NEW_PLACE}|home (?:is|now is) in|our place in|"
            rf"(?:new |our |my )address|(?:renting|rent|bought|own) an? (?:\w+ )?(?:{HOMES})|downsized|moved out of|"
            r"swapped (?:the|our|my) (?:flat|house|apartment|place))\b",
    "work": r"\b(?:work(?:ing|s|ed)? (?:at|for)(?! (?:me|us|you|everyone|everybody|both|all|hours|years|months|"
            r"weeks|days|a while|ages)\b)|job at|hired by|contract with|employer|new job|started "
            r"(?:at|with)|my (?:company|firm|office)|new (?:company|firm|workplace)|join(?:ed|ing) (?-i:[A-Z])\w*|"
            r"offer from|first day (?:at|with|was)|"
            # a job told by its team: "on the data team at Orbital Foods", "at Orbital Foods, in the operations team"
            r"(?:on|in) (?:the|a|an) (?:[\w-]+ ){0,2}(?:team|department|division|unit) at (?-i:[A-Z])\w*|"
            rf"at {_NAME},? (?:in|on) (?:the|their|its) (?:\w+ ){{0,2}}"
            r"(?:team|department|division|unit)|"
            rf"(?:my|the|first) {_NAME} (?:{STAFF_THINGS})|(?:{STAFF_THINGS}) (?:from|at|with|for) (?-i:[A-Z])\w*)\b",
    "school": r"\b(?:school|academy|primary|enrolled|this term|term at|classes at|started at|first week at|goes "
              r"to)\b",
    "phone": r"\b(?:phone|(?:my|new|old|mobile|cell) number|digits|sim|text me|call me|reach me|ring me|my mobile|"
             r"number is)\b",
    "email": r"\b(?:e-?mail|inbox|mail me|write to me)\b|@",
    "title": r"\b(?:title|promoted|my role|made (?:a |the )?\w+ (?:lead|manager|head)|work as|(?:new|my) position|"
             r"i(?:'m| am) (?:now )?an? (?:\w+ ){1,3}(?:at|for)\b|job title|bumped up|promot(?:ed|ion) to|"
             r"i(?:'m| am) (?:now )?(?:the|an?) (?:[\w'’-]+ ){0,3}(?:lead|manager|head|director|engineer|analyst|"
             r"designer|nurse|officer|supervisor|editor|developer|consultant|architect|coordinator|owner|specialist|"
             r"administrator|associate)\b)",
    "trip": r"\b(?:trip|holiday|vacation|flights?|travel(?:l?ing)? to|heading to|going to \w+ (?:in|next|this)|"
            r"flying (?:out )?to)\b",
    # the partner named ("my partner Rafael"), not only mentioned ("my partner and I went ...")
    "partner": r"\b(?:(?:" + PARTNERS + r")(?:,| is| named| called|(?: is|['’]s) (?:called|named)|['’]s name is)? "
               r"(?-i:[A-Z])\w*|"
               # a name first, then who they are, the phrase ending there: "Callum, my new other half." (not "Ewan, my
               # business partner", nor "we saw Paris, my wife loved it")
               r"(?-i:[A-Z])\w+, (?:my|our) (?:(?:new|current) )?(?:" + PARTNERS + r")(?=\s*(?:[,.;:!?)—–]|$))|"
               r"seeing someone|seeing (?-i:[A-Z])\w*|dating|been (?:together|" + COUPLE + r"|an item)|in a relationship|"
               r"relationship with|"
               r"married to|engaged to|are (?:now )?(?:together|" + COUPLE + r"|an item)|"
               # the one seeing told in a relative clause or by what they are: "Oskar, who I'm seeing now"
               r"(?:who|whom|that) (?:I['’]m|I am|I['’]ve been|I have been) (?:now )?seeing|"
               r"(?:person|guy|girl|man|woman|lady|bloke|lad|fella) I['’]m (?:now )?seeing)\b",
    "device": r"\b(?:laptop|computer|macbook|thinkpad|notebook|pc|phone model|chromebook|ipad|imac|mac mini|"
              r"surface (?:pro|laptop|go)|my (?:main |work )?machine|" + LAPTOPS + r")\b",
    "car": r"\b(?:(?:my|new|old|the) car|drive an?|driving an?|bought an? (?:(?:new|used|second-?hand|electric) )?"
           r"(?:car|suv|hatchback|saloon|sedan|estate car|convertible|pick-?up|van|" + MAKES + r")|"
           r"traded (?:in )?(?:the|my|our)|(?:for|got|get|have) an? "
           r"(?:(?:new|used|second-?hand|electric|hybrid) )?(?:" + MAKES + r"))\b",
    "pet": rf"\b(?:pet|adopted|{PETS})\b",
    "diet": r"\b(?:diet|vegan|vegetarian|pescatarian|keto|gluten|eat(?:ing)? (?:no|only)|(?:cut out|given up|gave up|"
            r"stopped eating) (?:red )?(?:meat|dairy|sugar|gluten|alcohol|carbs|caffeine|fish|eggs))\b",
    "sport": r"\b(?:sport|court|league|weekend games?|play (?:\w+ ){1,2}on weekends|weekends i play|leisure "
             rf"cent(?:re|er)|(?:play|playing|took up|taken up|take up|joined|started|switched (?:from \w+ )?to) "
             rf"(?:a |the |some )?(?:local )?(?:{SPORTS}))\b",
    "coffee": r"\b(?:coffees?|lattes?|espressos?|cortados?|cappuccinos?|flat whites?|brew|barista|matcha|chai|"
              r"long blacks?|americanos?|mochas?|macchiatos?|green tea|my usual)\b",
    "language": r"\b(?:learning(?! (?:curve|experience|process|opportunit))|studying|language|lessons?|course|"
                rf"duolingo|vocab\w*|(?:{LANGUAGES}) (?:classes|class|tutor)|(?:taken up|took up|picked up|started) "
                rf"(?:{LANGUAGES}))\b",
    "doctor": r"\b(?:doctors?|gp|dr|physician|check-?up|clinic)\b",
    "wake": r"\b(?:wake|woke|alarm|get up|getting up|up at)\b",
    "commute": r"\b(?:commut\w*|(?:get|gets|got|go|goes|going|went|come|ride|riding|drive|driving|walk|walking|"
               r"cycle) (?:in )?to "
               r"(?:work|the office)|by (?:" + MEANS + r"|car|foot)|"
               # going in on the means itself: "I go in on the Tube these days", "getting in by ferry"
               r"(?:go|goes|going|went|get|gets|getting|got|come|comes|coming|head|heads|heading) in (?:on|by) "
               r"(?:the )?(?:" + MEANS + r")|"
               r"(?:cycle|cycling|ride|walk) to|(?:take|took|taking|catch|get|getting) the (?:bus|train|tram|tube|"
               r"metro|ferry|underground)|(?:bike|e-bike|scooter|car) to (?:work|the office)|drive in)\b",
    "household": r"\b(?:household|live with|living with|under (?:one|our) roof|people (?:at|in) (?:home|the house)|"
                 r"\w+ of us (?:living )?(?:in|at|under)|live alone|living alone|family of \w+|lives with "
                 r"(?:us|me)|just (?:me|us) and)\b",
    "habit": r"\b(?:every morning|each morning|first thing|(?:my|our|morning|daily|new) routine|my mornings|before "
             r"breakfast|(?:start|starting|started|begin|beginning|kick off|kicking off) (?:my|the|each|every) day|"
             r"(?:on|after|upon) waking|(?:when|once|as soon as) (?:I|we) (?:wake|get up)|(?:when|once|as soon as) "
             r"I['’]m up|at (?:dawn|daybreak|sunrise))\b",
    "favourite": r"\b(?:favou?rite|crave|craving|obsessed|best food|top food|can't stop|go-to|nothing beats|can't "
                 r"get enough|hooked on)\b",
    "schedule": r"\b(?:every (?:mon|tue|wed|thu|fri|sat|sun)\w*|(?:mon|tues|wednes|thurs|fri|satur|sun)day "
                r"(?:evenings?|nights?|mornings?|afternoons?)|(?:on|to) (?:mon|tues|wednes|thurs|fri|satur|sun)days|"
                r"weekly)\b",
}.items()}

# kinds whose claim must name its value where it is stated: a wake-up time is a time ("adjusting my wake-up time" is
# no claim of one)
NAMES_VALUE: dict[str, re.Pattern[str]] = {
    "wake": re.compile(r"\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}[:.]\d{2}\b|\b(?:o'clock|noon|"
                       r"dawn|sunrise|half past|quarter (?:past|to))\b|\b(?:at|for) \d{1,2}\b(?![:.]?\d)", re.I)}

FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|me|my|mine|we|we're|we've|us|our)\b|\bI['’]", re.I)
THIRD_PERSON = re.compile(r"\b(?:he|she|they|he's|she's|they're|they've|your|you're|you've|you'd)\b|\byou (?:\w+ )?"
                          r"(?:live|lived|moved|work|worked|started|got|have|had|are|were|go|went|play|drive)\b", re.I)
HEDGE = re.compile(r"\b(?:if|would|could|might|(?-i:may)|maybe|perhaps|someday|one day|wish\w*|hop(?:e|es|ed|ing)|wanna|"
                   r"worr(?:y|ies|ied|ying)|afraid|desir\w*|"
                   r"(?:want|wanted|wants|plan|plans|planning|thinking|think|considering|dream\w*|trying|try) "
                   r"(?:to|of|about)|used to|can't wait|should|imagine|pretend)\b|['’]d\b", re.I)
NEGATED = re.compile(r"\b(?:not|never|no one|nobody)\b|n['’]t\b(?! stop)", re.I)
FUTURE = re.compile(r"\b(?:will|going to|gonna|soon|next (?:week|month|year))\b|['’]ll\b", re.I)
# a past that no longer holds, in a claim's own clause ("I lived in Aberdeen", "My old number was ...", "back then";
# not "I've lived", which still holds, "I moved to", a change, nor "I quit my old sport", what one leaves: "my old"
# only as the clause's subject): the links (``ingest.updates``) take no such claim for the fact that holds now
# (``in_the_past``); the read-time stage reads claims as they are
PAST = re.compile(r"^\W*(?:my|our) (?:old|previous|former|last|ex)\b|"
                  r"\b(?:(?:I|we) (?:lived|worked|studied|was (?:living|working|based)|were (?:living|working|based))|"
                  r"ex-\w|back (?:when|then)|years ago|growing up|grew up|"
                  r"as an? (?:kid|child|student|teenager)|in my (?:teens|twenties|thirties|forties|fifties|youth)|"
                  r"when (?:I|we) (?:was|were) |before (?:I|we) (?:moved|came|left|joined|started|retrained))\b", re.I)
MAX_PHRASES = 32  # a kind's phrases read per sentence (a sentence has a few; a pasted text may have thousands)
CLAUSE_CHARS = 400  # the most of a claim read before and after its slot phrase (a clause is a few dozen characters)
# a condition on the listener ("... if you ever need me") is a clause of its own, its "if" in it: it hedges nothing
# the user states before it
_CLAUSE = re.compile(r"[,;:—–]\s*|\s-\s|\b(?:and|but|so|because|while|when|after|before)\s|(?=\bif you\b)", re.I)

# a run of marks ("...", "?!") is tried from its start only: from inside a long run every try would scan the rest
_SENTENCE = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)(?<![.!?])[.!?]+\s+")


def slots(text: str) -> frozenset[str]:
    """The slot rules that match anywhere in ``text`` (first person or not)."""
    return frozenset(name for name, rule in SLOTS.items() if rule.search(text))


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, each with its closing marks ("?" tells a question wherever it is)."""
    out, start = [], 0
    for m in _SENTENCE.finditer(text):
        out.append(text[start:m.end()].rstrip())
        start = m.end()
    out.append(text[start:])
    return [s for s in out if s.strip()]


class Claim(NamedTuple):
    """Where a turn states one of the user's facts: the ``sentence`` and the ``span`` that holds its value (the
    clause of the slot phrase and the clause after it: "I changed my number, it's 0752 ...")."""

    sentence: str
    span: str


def _boundaries(sentence: str) -> tuple[list[int], list[int]]:
    """Where each clause boundary (``_CLAUSE``) of ``sentence`` starts and ends, in order."""
    found = [(m.start(), m.end()) for m in _CLAUSE.finditer(sentence)]
    return [a for a, _ in found], [b for _, b in found]


def _clauses(sentence: str, bounds: tuple[list[int], list[int]], start: int, end: int) -> tuple[str, str]:
    """The clause of ``sentence`` around the slot phrase at ``start:end`` (to a few words after it; at most
    ``CLAUSE_CHARS`` before it), and the span from that clause's start to the end of the clause after it (at most
    ``CLAUSE_CHARS`` after the phrase). ``bounds``: the sentence's ``_boundaries``, found once (a long message with
    many slot phrases stays linear)."""
    starts, ends = bounds
    i = bisect_right(ends, start)  # the boundaries that end by the phrase's start
    lo = max(ends[i - 1] if i else 0, start - CLAUSE_CHARS)
    j = bisect_left(starts, end)  # the first boundary after the phrase
    stop = starts[j] if j < len(starts) else len(sentence)
    clause = sentence[lo:min(stop, end + 24)]
    k = bisect_left(starts, ends[j]) if j < len(starts) else len(starts)
    return clause, sentence[lo:min(starts[k] if k < len(starts) else len(sentence), end + CLAUSE_CHARS)]


# A sentence that opens with a participle's clause and goes on with its subject, the user ("Going in by tram each
# day, I got through a novel"; "Coming in by bike, my route now, I passed the cinema"): the opening clause is theirs.
_OPENER = re.compile(r"\W*[A-Za-z]+ing\b")
_THEN_I = re.compile(r"[,;:]\s*(?:I|[Ww]e)\b")


# A sentence whose subject is left out, as chat often does ("Moved to Porto last week!", "Started a new job at Globex
# today."): after at most two opening adverbs, a verb in the past tense (a regular one of five letters or more, or a
# common irregular one) and a word that follows a verb (a preposition, an article, "my"), not one that follows a
# subject ("Ahmed lives in Leeds", "Red is my colour"). An -ing word is left out: as often a gerund subject ("Losing a
# pet is tough") as a statement ("Living in Leeds now").
_LEADS = r"just|finally|also|recently|today|yesterday|so|well|oh|btw|anyway|plus|then|officially|already|now|and"
_PAST = (r"[a-z]{3,}ed|got|went|bought|made|took|left|found|began|became|sent|sold|spent|met|came|wrote|built|paid|"
         r"quit|won|lost|kept|brought|drove|flew|gave|had|did")
_AFTER_VERB = r"to|into|in|at|for|with|a|an|the|my|our|up|out|back|over|from|on|off|by|this|last|some|two|three|four"
_DROPPED = re.compile(rf"\W*(?:(?:{_LEADS})\b[,!\s]*){{0,2}}(?:{_PAST})\s+(?:{_AFTER_VERB})\b", re.I)


# A sentence that opens with a label of the user's news: "New number: 0771 ...", "New employer - Quillon Labs".
_LABEL = re.compile(r"\W*new (?:[\w'’-]+ ){0,2}[\w'’-]+\s*(?::|\s[-–—])\s", re.I)


# A clause joined by "and" or "but" with its subject left out ("I've left my old job and joined Northwind Logistics")
# is the user's when the clause before it opens with "I" or "we": its verb in the past tense, as ``_DROPPED``'s.
_JOINED = re.compile(r"\s*(?:and|but)\s*$", re.I)
_CARRIED = re.compile(rf"\W*(?:(?:{_LEADS})\b[,!\s]*){{0,2}}(?:{_PAST})\b", re.I)
_I_FIRST = re.compile(rf"\W*(?:(?:{_LEADS})\b[,!\s]*){{0,2}}(?:I|we)(?:['’](?:m|ve|re))?\b", re.I)


def _carried(sentence: str, bounds: tuple[list[int], list[int]], start: int) -> bool:
    """Whether the clause of the slot phrase at ``start`` follows "and" or "but", opens with a verb in the past tense
    and no subject, and the clause before it opens with "I" or "we" (``_JOINED``, ``_CARRIED``, ``_I_FIRST``)."""
    starts, ends = bounds
    i = bisect_right(ends, start)
    if not i or not _JOINED.match(sentence[starts[i - 1]:ends[i - 1]]) or not _CARRIED.match(sentence, ends[i - 1]):
        return False
    k = i - 2  # the clause before, past the empty ones between two boundaries (", and")
    while k >= 0 and not sentence[ends[k]:starts[k + 1]].strip():
        k -= 1
    return _I_FIRST.match(sentence, ends[k] if k >= 0 else 0) is not None


def _opened_by_me(sentence: str) -> bool:
    """Whether the subject of ``sentence``'s opening clause is the user, though it has no first-person word: it opens
    with an -ing word and goes on, after a comma (semicolon, colon), with "I" or "we"; its subject is left out
    (``_DROPPED``); or it opens with a label of news ("New number: ...", ``_LABEL``). Read once a sentence."""
    return (_OPENER.match(sentence) is not None and _THEN_I.search(sentence) is not None) or (
        _DROPPED.match(sentence) is not None) or _LABEL.match(sentence) is not None


def _stated(clause: str, slot: str, mine: bool = False) -> bool:
    """Whether ``clause`` states the user's own fact: a first-person word (or ``mine``: it opens a sentence that
    ``_opened_by_me``), no third-person subject, no hedge or wish, no negation, not about the future (but for
    trips)."""
    return ((mine or bool(FIRST_PERSON.search(clause))) and not THIRD_PERSON.search(clause)
            and not HEDGE.search(clause) and not NEGATED.search(clause) and (slot == "trip" or not FUTURE.search(clause)))


def own_clause(claim: Claim) -> str:
    """The clause of ``claim``'s slot phrase: its span's first clause (the span also holds the clause after it)."""
    end = _CLAUSE.search(claim.span)
    return claim.span[:end.start()] if end is not None and end.start() > 0 else claim.span


def in_the_past(claim: Claim) -> bool:
    """Whether the clause of ``claim``'s slot phrase (``own_clause``) tells a past that no longer holds (``PAST``)."""
    return PAST.search(own_clause(claim)) is not None


@cache
def rule_phrases(kind: str) -> tuple[str, ...]:
    """The phrases of whole words ``kind``'s rule (``SLOTS``) matches (``literals.phrases``: "on tuesdays", "moved
    to", "work at"): a full-text search's query for the statements that may claim the kind
    (``retrieval.followed.claimed_by_words``)."""
    return phrases(SLOTS[kind])


@cache
def rule_words(kind: str) -> str:
    """The words of three letters or more of ``kind``'s phrases (``rule_phrases``), each once, space-separated: the
    search's query for a kind whose rule matches more phrases than a search may ask for."""
    return " ".join(dict.fromkeys(w for p in rule_phrases(kind) for w in re.findall(r"[^\W\d_]{3,}", p)))


def claims(text: str, only: str | None = None) -> dict[str, list[Claim]]:
    """Per slot (``only`` that one), where ``text`` (its sentences that are not questions) states the user's own
    fact of that kind: a slot rule matches, the clause around it is ``_stated`` and, for a kind in ``NAMES_VALUE``,
    the claim's span names a value of it."""
    out: dict[str, list[Claim]] = {}
    rules = SLOTS.items() if only is None else ((only, SLOTS[only]),)
    for sentence in sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        bounds, opened = _boundaries(sentence), _opened_by_me(sentence)
        for name, rule in rules:
            value = NAMES_VALUE.get(name)
            for m in islice(rule.finditer(sentence), MAX_PHRASES):
                clause, span = _clauses(sentence, bounds, m.start(), m.end())
                mine = (opened and sentence.startswith(clause)) or _carried(sentence, bounds, m.start())
                if _stated(clause, name, mine) and (value is None or value.search(span)):
                    out.setdefault(name, []).append(Claim(sentence, span))
                    break
    return out
