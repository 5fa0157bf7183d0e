"""The values a user's turn or claim names (``values``, ``claim_values``): capitalised names, numbers, emails, days;
for diets, commutes and households their ordinary words (``VALUE_TERMS``); at read time also a pet's, a sport's, a
home's kind, a job title, a dish, a means of getting about or a coffee in plain words (``KIND_WORDS``). One value
written two ways is one (``value_form``), and a name's shorter openings (``name_openings``) are how the write-time
links tell "Quillon" from "Quillon Labs". Read by the write-time
supersession rules (``cbmemory.ingest.updates``: the values two claims of a matter name) and by the read-time stage
(``cbmemory.retrieval.followed``: a value named again, or for the first time). Pure functions over text, beside the
claim rules (``cbmemory.claims``: which turns claim a kind of fact), whose claims and sentences they read.
"""

from __future__ import annotations

import re

from .claims import HOMES, MEANS, PETS, SPORTS, Claim, sentences
from .text import WHO_WORDS

# A value: an email is tried first ("Quinn.Reyes@Mail.com" is no name), from the start of its run of name characters
# only (from inside a long run of "-" or "+" every try would scan the rest); then a run of capitalised words, a number.
VALUE = re.compile(r"(?<![\w@.])(?:(?<![+-])[\w.+-]+@[\w.-]+|[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*|\d[\d:.,\s]*\d|\d)")
_STARTS = {"I", "I'm", "I've", "I'll", "I'd", "My", "We", "Our", "The", "A", "An", "It", "It's", "So", "And",
           "But", "Big", "Oh", "Yes", "No", "Hey", "Hi", "Well", "Just", "Also", "Now", "Since", "Before", "After",
           "These", "This", "That", "Speaking", "Tomorrow", "Today", "Yesterday", "Change", "Booked", "Signed",
           "New", "Quick", "Guess", "Anyway", "Honestly", "Actually", "Sure", "Thanks", "Noted", "Ok", "Okay", "Here",
           "Here's", "There", "There's", "Let's", "What", "When", "Wow", "Yeah", "Thank", "You", "Your"}
_MONTHS_DAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
_CALENDAR = frozenset({d.lower() for d in _MONTHS_DAYS} | {
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "last", "next"})

# slots whose values are ordinary words, not names or numbers
VALUE_TERMS = {name: re.compile(p, re.I) for name, p in {
    "diet": r"\b(?:vegan|vegetarian|pescatarian|keto|paleo|gluten-free|dairy-free|halal|kosher|carnivore|"
            r"low-carb|plant-based|flexitarian)\b",
    "commute": r"\b(?:by (?:bike|bicycle|bus|train|tram|car|tube|metro|underground|subway|ferry|scooter)|on foot|"
               r"walk(?:ing)?|cycl(?:e|ing)|driv(?:e|ing))\b",
    "household": r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                 r"sixteen|seventeen|eighteen|nineteen|twenty|\d+) of us\b",
}.items()}
# a job title in plain words: a role's noun with up to two of the words that narrow it ("senior analyst", "head chef"),
# a lead with one or two ("team lead": "I lead the choir" names none), or the head of a department ("head of design");
# a word before those is no part of it ("made staff engineer" names "staff engineer")
_ROLES = (r"engineer|manager|director|analyst|designer|developer|architect|consultant|officer|editor|"
          r"supervisor|coordinator|specialist|administrator|nurse|teacher|lecturer|professor|accountant|scientist|"
          r"researcher|technician|producer|planner|chef|founder|ceo|cto|cfo|coo|president|intern|apprentice|trainee|"
          r"paralegal|solicitor|pharmacist|librarian|curator|copywriter|strategist|recruiter|controller|executive|"
          r"representative|adviser|advisor|instructor|foreman|inspector|surveyor|therapist|registrar")
_NARROWING = (r"senior|junior|lead|principal|staff|chief|head|deputy|assistant|associate|managing|executive|general|"
              r"regional|product|project|programme|program|account|accounts|marketing|sales|software|data|design|"
              r"engineering|operations|finance|financial|team|tech|technical|office|store|shift|art|creative|"
              r"research|clinical|charge|ward|sous|pastry|front-end|back-end|full-stack|ux|ui|web|mobile|security|"
              r"content|brand|community|customer|support|legal|medical|quality|test|site|hr|qa|devops|systems|"
              r"network|business|digital|graphic|interior|civil|mechanical|electrical|structural|lab|practice|"
              r"dental|veterinary|school|vice|editorial|news|copy|development|training|learning|people|policy")
TITLES = (rf"(?:(?:{_NARROWING}) ){{0,2}}(?:{_ROLES})|(?:(?:{_NARROWING}) ){{1,2}}lead(?:er)?|"
          r"(?:head|director|vp|vice president) of [a-z]+")
# dishes people name as the food they love, in plain words (a longer name first: "green curry" before "curry")
DISHES = (r"pizza|pasta|lasagne|lasagna|spaghetti|carbonara|bolognese|risotto|gnocchi|ravioli|tortellini|paella|tapas|"
          r"gazpacho|sushi|sashimi|ramen|udon|soba|tempura|katsu curry|katsu|teriyaki|bento|gyoza|dim sum|dumpling|"
          r"bao|pho|banh mi|pad thai|green curry|red curry|thai curry|butter chicken|tikka masala|chicken tikka|"
          r"korma|vindaloo|biryani|dhal|dal|samosa|dosa|thali|curry|kebab|shawarma|falafel|hummus|houmous|tagine|"
          r"couscous|shakshuka|moussaka|souvlaki|gyros|spanakopita|pierogi|borscht|goulash|schnitzel|bratwurst|"
          r"fondue|raclette|crepe|galette|quiche|ratatouille|bouillabaisse|cassoulet|burger|cheeseburger|hot dog|"
          r"fish and chips|steak|roast chicken|sunday roast|roast dinner|fried chicken|chicken wing|ribs|brisket|"
          r"barbecue|mac and cheese|meatloaf|chilli con carne|chili con carne|chilli|chili|taco|burrito|enchilada|"
          r"quesadilla|nachos|fajita|ceviche|empanada|arepa|feijoada|jollof|bibimbap|bulgogi|kimchi|tteokbokki|"
          r"japchae|laksa|rendang|nasi goreng|satay|adobo|poke bowl|poke|stir-fry|stir fry|fried rice|chow mein|"
          r"kung pao|mapo tofu|peking duck|hot pot|hotpot|chowder|shepherd's pie|cottage pie|pasty|haggis|"
          r"cheesecake|tiramisu|gelato|ice cream|brownie|pancake|waffle|omelette|porridge")
# the means of getting about, read only where they are the way one goes: after "by" or "on" (and "the", "a", "an" or
# "my"), or after taking or catching "the": "by river bus", "on the Tube", "on my bike", "catch the tram"; those the
# commute's claim phrases name (``claims.MEANS``) and more (a longer name first: "river bus" before "bus"); not "the
# car park", "by the bus stop", "walking" (``VALUE_TERMS`` reads it)
TRAVEL_MEANS = (r"(?:(?<=\bby )|(?<=\bon )|(?<=\bby the )|(?<=\bon the )|(?<=\bby a )|(?<=\bon a )|"
                r"(?<=\bon an )|(?<=\bby my )|(?<=\bon my )|(?<=\btake the )|(?<=\btook the )|(?<=\btaking the )|"
                r"(?<=\bcatch the )|(?<=\bcatching the ))"
                r"(?:push bike|e-bike|ebike|electric bike|cargo bike|folding bike|road bike|bicycle|tandem|night bus|"
                r"river bus|water bus|shuttle bus|school bus|minibus|shuttle|overground|light rail|monorail|cable car|"
                r"water taxi|river boat|kayak|canoe|taxi|minicab|cab|car|van|motorbike|motorcycle|moped|e-scooter|"
                r"electric scooter|scooter|skateboard|longboard|rollerblade|roller skate|inline skate|unicycle|horse|"
                r"foot|" + MEANS + r")"
                r"(?!s?\s+(?:stop|station|lane|park|driver|pass|route|seat|shelter|depot|terminal|ticket|fare))")
# the drinks of a coffee order, in plain words (a longer name first: "oat latte" before "latte")
COFFEES = (r"double espresso|espresso|ristretto|lungo|americano|long black|short black|flat white|cortado|"
           r"latte macchiato|macchiato|oat latte|soy latte|decaf latte|vanilla latte|iced latte|chai latte|"
           r"matcha latte|latte|cappuccino|iced mocha|mocha|iced coffee|nitro cold brew|cold brew|filter coffee|"
           r"drip coffee|pour-over|pour over|french press|piccolo|gibraltar|affogato|frappuccino|frappe|breve|"
           r"turkish coffee|greek coffee|vietnamese coffee|irish coffee|caf[eé] con leche|caf[eé] au lait|red eye|"
           r"babyccino|decaf|chai|matcha|green tea|black tea|mint tea|herbal tea")
# kinds whose values are also ordinary words (an animal, a sport, a home's kind: the words their claim rules list; a
# job title, a dish, a means of getting about, a coffee: the lists above), each read in the singular: read time only
# (``retrieval.followed``); the write-time links compare ``claim_values``, which leaves them out
KIND_WORDS = {name: re.compile(rf"\b({p})s?\b", re.I) for name, p in {
    "pet": PETS, "sport": SPORTS, "home": HOMES, "title": TITLES, "favourite": DISHES, "commute": TRAVEL_MEANS,
    "coffee": COFFEES}.items()}
# a word a kind's value must end with: a text without one is read no further (a title's each word would be tried
# against every word that narrows one)
KIND_ENDS = {"title": re.compile(rf"\b(?:{_ROLES}|lead|leader|(?:head|director|vp|president) of)s?\b", re.I)}
_GREETING = re.compile(r"\b(?i:hey|hi|hello|thanks|thank you|yeah|yes|wow|oh|congrats|sure|great|ok|okay|dear|"
                       r"bye|love you)\W+([A-Z]\w+)|,\s*([A-Z]\w+)\s*(?:[!.?]|$)")
# a name after a comma that ends a sentence is whom the turn speaks to ("Thanks for the tip, Maria."), unless the words
# before the comma say who the name is: "I live with my partner, Tobias.", "our dog, Rex!" (a possessive and a word for
# a person or a pet; "my business, Jon." speaks to Jon)
_APPOSITIVE = re.compile(rf"\b(?:my|our)\s+(?:{WHO_WORDS})$", re.I)
_CONTRACTION = re.compile(r"['’](?:re|ll|ve|d|m)$|n['’]t$")


def values(text: str, first_word: bool = False) -> frozenset[str]:
    """The value words of a turn: capitalised names (not a sentence's first word, not the name of whom the
    turn speaks to, not the usual capitalised words), numbers, emails; days of the week by their name.
    ``first_word``: the other reading of a run of two or more capitalised words that opens a sentence, its first
    word kept ("Quillon Labs is my employer" names "quillon labs"; read as now, "labs": "Visited Inverness" names
    "inverness"). ``opens_with_name`` says whether the two readings can differ."""
    addressed = {m.group(1) or m.group(2) for m in _GREETING.finditer(text)
                 if m.group(1) or not _APPOSITIVE.search(text, max(0, m.start() - 40), m.start())}
    out = set()
    for sentence in sentences(text):
        for m in VALUE.finditer(sentence):
            found = m.group(0).strip(" .,:;!?")
            words = [w for w in found.split() if not _CONTRACTION.search(w) and w not in addressed]
            if m.start() == 0 and words and words[0].isalpha() and words[0] == found.split()[0] and not (
                    first_word and len(words) > 1):
                words = words[1:]  # a sentence's first word
            first = next((i for i, w in enumerate(words) if w not in _STARTS), len(words))
            last = next((i for i in range(len(words), first, -1) if words[i - 1] not in _STARTS), first)
            words = words[first:last]  # the usual capitalised words trimmed off both ends (one pass: a run of
            # thousands is a pasted text's)
            if words:
                value = " ".join(w.removesuffix("'s").removesuffix("’s") for w in words)
                out.add(value.lower().rstrip("s") if value.rstrip("s") in _MONTHS_DAYS else value.lower())
    return frozenset(out)


# one value written two ways (``value_form``): a time ("07:00", "7"), a number by its digits, a phone number by its last
# PHONE_DIGITS digits (a country code where the leading 0 was: "+44 7521 193387", "07521 193387")
_TIME = re.compile(r"0*(\d{1,2}):(\d{2})")
_NUMBER = re.compile(r"[\d\s.-]+")
PHONE_DIGITS = 9


def value_form(value: str) -> str:
    """One written form of a value of ``values`` (lower case), for telling whether two are one: a time without
    ":00" or a leading zero, a number's digits alone (a phone number's last ``PHONE_DIGITS``), an email as it is, a
    name without its dots ("dr. haddad" is "dr haddad")."""
    if "@" in value:
        return value
    if (time := _TIME.fullmatch(value)) is not None:
        return time.group(1) if time.group(2) == "00" else f"{time.group(1)}:{time.group(2)}"
    if _NUMBER.fullmatch(value) and any(c.isdigit() for c in value):
        digits = "".join(c for c in value if c.isdigit())
        return digits[-PHONE_DIGITS:] if len(digits) >= PHONE_DIGITS else digits.lstrip("0") or "0"
    return " ".join(value.replace(".", " ").split())


NAME_WORDS = 8  # the most words of a name read for its openings (a pasted text's run of capitals is no name)


def name_openings(form: str) -> list[str]:
    """The shorter names a name's ``value_form`` opens with, word for word ("quillon" of "quillon labs"), of its first
    ``NAME_WORDS`` words; none for a number or an email."""
    if "@" in form or form[:1].isdigit():
        return []
    words = form.split(maxsplit=NAME_WORDS)
    return [" ".join(words[:i]) for i in range(1, min(len(words), NAME_WORDS + 1))]


def opens_with_name(text: str) -> bool:
    """Whether a sentence of ``text`` opens with a run of two or more capitalised words: ``values`` reads it two
    ways (its first word a name's or only capitalised by its place)."""
    return any((m := VALUE.match(s)) is not None and len(m.group(0).split()) > 1 for s in sentences(text))


# a name told with the speaker ("Elodie and I", "me and Callum"); not a word for a person ("Mum and I")
_WITH_ME = re.compile(r"(?<![\w'’-])(?-i:([A-Z][\w'’-]*)\s+and\s+(?:I|me)\b|(?:[Mm]e)\s+and\s+([A-Z][\w'’-]*))")
_WHO = re.compile(rf"(?:{WHO_WORDS})s?", re.I)


def claim_values(claim: Claim, slot: str, first_word: bool = False) -> frozenset[str]:
    """The values a claim names: its sentence's ``values`` in its span (days and months only for a schedule), for a
    partner the name told with the speaker in its sentence ("Elodie and I", ``_WITH_ME``), and, for a slot whose
    values are ordinary words, those (``first_word``: as for ``values``)."""
    span = claim.span.lower()
    found = frozenset(v for v in values(claim.sentence, first_word)
                      if v in span and (slot == "schedule" or v not in _CALENDAR))
    if slot == "partner":  # the one told with the speaker: "Elodie and I have been a couple", "me and Callum"
        found |= {n.lower() for m in _WITH_ME.finditer(claim.sentence) if (n := m.group(1) or m.group(2))
                  and n not in _STARTS and not _WHO.fullmatch(n)}
    rule = VALUE_TERMS.get(slot)
    return found | ({m.group(0).lower() for m in rule.finditer(claim.span)} if rule else set())
