"""Entity phrases from a query, without an LLM: quoted phrases, capitalised names (with the words that
continue them, e.g. "Nordstrom friends and family sale"), numbers and dates.

The phrases feed the ``entity`` signal: exact-phrase matches through the full-text index.
"""

from __future__ import annotations

import re

from ..text import STOPWORDS

_QUOTED = re.compile(r"\"([^\"]{2,120})\"|“([^”]{2,120})”|(?<!\w)'([^']{2,120})'(?!\w)")
_TOKEN = re.compile(r"[\w][\w'’&.-]*")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DATE = re.compile(rf"\b(?:\d{{1,2}}\s+(?:{_MONTHS})\b(?:,?\s+\d{{4}})?|(?:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}})?|(?:{_MONTHS})\s+\d{{4}})",
                   re.IGNORECASE)
_QUESTION_WORDS = frozenset("what when where who whom which why how did does do is are was were would could "
                            "can has have will should i".split())
_JOINERS = frozenset({"of", "the", "for", "de", "&"})  # inside a name: "Bank of America"
_CONNECTORS = frozenset({"of", "and", "the", "for", "de", "&"})  # inside its continuation
MAX_EXTENSION = 4


def _is_cap(tok: str) -> bool:
    return tok[:1].isupper() or (tok.isupper() and len(tok) > 1)


def extract_entities(query: str) -> list[str]:
    """Phrases worth matching exactly, most specific first, without repeats."""
    found: list[str] = []
    for m in _QUOTED.finditer(query):
        found.append(next(g for g in m.groups() if g).strip())
    for m in _DATE.finditer(query):
        found.append(m.group(0))
    names_text = _DATE.sub(" , ", query)  # month names inside dates are not names
    for sentence in re.split(r"[?!.;:,\n]+", names_text):
        toks = _TOKEN.findall(sentence)
        i = 0
        while i < len(toks):
            t = toks[i]
            if not _is_cap(t) or t.lower() in _QUESTION_WORDS or (i == 0 and t.lower() in STOPWORDS):
                i += 1
                continue
            j = i + 1  # the run of capitalised words, allowing connectors between them
            while j < len(toks) and (_is_cap(toks[j]) or (toks[j].lower() in _JOINERS and j + 1 < len(toks)
                                                       and _is_cap(toks[j + 1]))):
                j += 1
            name = " ".join(toks[i:j]).strip(".'’-")
            ext = j  # lower-case words that continue the name ("Nordstrom friends and family sale")
            while (ext < len(toks) and ext - j < MAX_EXTENSION and not _is_cap(toks[ext])
                   and (toks[ext].lower() not in STOPWORDS or (toks[ext].lower() in _CONNECTORS and ext > j))):
                ext += 1
            while ext > j and toks[ext - 1].lower() in _CONNECTORS:
                ext -= 1
            if ext - j >= 2:
                found.append(" ".join(toks[i:ext]))
            if name:
                found.append(name)
            i = j
    for m in _NUMBER.finditer(query):
        found.append(m.group(0))
    seen: dict[str, str] = {}
    for phrase in found:
        key = phrase.lower()
        if key and key not in seen and key not in STOPWORDS:
            seen[key] = phrase
    return list(seen.values())
