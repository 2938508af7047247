"""Words of a text as comparable terms: lemmas, compound parts and weekdays.

Pure: no ORM, no I/O. A term is what the subject rule compares:

| written | term(s) |
|---|---|
| an inflected word ("dagars", "bilen", "prices") | its lemma (simplemma, in the text's language) |
| a noun made from a verb, by an ending of the lexicon's ``VERB_NOUNS`` ("arrival", "departure") | also the verb, when the dictionary knows it ("arrive", "depart") |
| a word the dictionary lacks with a definite or plural ending ("Routern") | the word and its stem ("router") |
| a compound unknown to the lexicon ("medlemsavgiften") | the whole lemma plus its parts ("medlem", "avgift"), split where both sides are words of simplemma's dictionary (a linking "s" allowed; a head whose final "a" became a linking vowel is the word with its "a": "kennelhostevaccin" has "kennelhosta") |
| a capitalised compound of a name no dictionary has and a known word of five letters or more ("Enköpingskontoret") | also the name and the word's lemma ("enköping", "kontor") |
| a weekday, or a range of them ("måndag–torsdag", "Monday to Friday") | ``weekday:1`` ... ``weekday:7`` for every day covered, in either language |
| a lone capital letter inside a sentence or alone in a cell ("rad B", "Plan A") | ``#b`` |
| a stopword written with a capital inside a sentence ("Hem Mellan", "Plan Over") | the word: part of a name |
| an abbreviated weekday after "/" ("kr/mån") | nothing: a period, not a weekday |
| the other language's weekday in lower case ("fri tid", "sat") | its word: a weekday of the other language only when capitalised |
| an ordinal word ("andra", "third") | ``n:2``, ``n:3``: the number it stands for |
| a month, or a range of them ("November–March", "from April to October") | ``month:11`` ... for every month covered ("may" only capitalised) |
| a period adverb ("hourly", "månatligen") | the word: "the hourly price" names a plan; as a period it is read by :mod:`grounding.notation` |
| a period that is also a thing (the lexicon's ``THING_PERIODS``: "the site visit", "tillfället") | its lemma: "per visit" is still read as the period |
| stopwords, units, currencies, other periods, per-markers, cardinal number words ("två", "twenty"), a deadline's words and what completes a bound's phrase ("no later than", "senast", the "least" of "at least"; not the compared "större" of "och större") | nothing: values, units and conditions are compared by the rule itself |
| an e-mail or web address ("hello@pulseworks.se", "https://...") | nothing: its domain is every address's, not a subject |
| an English possessive ("Kungsholmen's") | the name's terms |

Numbers are not terms here; facts and claims add the values next to a number as ``n:<value>``.
"""

import re
from functools import lru_cache

from grounding.lemma_tables import LEMMAS
from grounding.lexicon import LEXICONS, merged, other_names
from grounding.numerals import EN_PARTS, SV_PARTS
from grounding.text import ENGLISH, STOPWORDS, SWEDISH, marked_language, remove_invisible

# A word; letters written together with digits ("SE4") are an identifier, not a word. An
# English possessive's "'s" is not part of it ("Kungsholmen's" is "Kungsholmen").
_TOKEN = re.compile(
    r"[^\W\d_]+(?:['’](?!s\b)[^\W\d_]+)?(?![^\W\d_]|\d)|[–—-]|\bto\b|\btill\b",
    re.IGNORECASE,
)
# An e-mail address or a web address names no subject: "hello@pulseworks.se" and
# "foretag@pulseworks.se" share the words of their domain, not what they are for.
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\bhttps?://\S+|\bwww\.\S+", re.IGNORECASE)


def _blank(match: re.Match) -> str:
    return " " * len(match.group())


_MIN_COMPOUND = 7
_A_LINKING = "eou"  # the linking vowels that stand for a dropped final "a"
_MIN_PART = 3
_MIN_KNOWN_HEAD = 4


def _noise() -> frozenset[str]:
    words: set[str] = set()
    for field in ("currencies", "units", "periods"):
        words |= set(merged(field))
    words -= merged("thing_periods")  # "the site visit": a subject as well
    for field in ("per_markers", "clock_markers", "time_suffixes", "answer_words"):
        words |= set(merged(field))
    words |= {word for phrase in merged("percent_words") for word in phrase.split()}
    # A deadline's words and what completes a bound's phrase are the number's condition, not
    # its subject: "no later than", "senast", the "least" of "at least" say nothing of what
    # the number is about ("late", "sen", "less"). A bound's own word stays a word: a name
    # ("Max", "Över") or what is compared ("21 tum och större", "older than").
    for phrase in merged("deadline_latest") + merged("deadline_earliest"):
        words |= set(phrase.split())
    for phrase in merged("lower_bounds") + merged("upper_bounds"):
        words |= set(phrase.split()[1:])
    words |= set(SV_PARTS) | set(EN_PARTS)  # a number in words is a value, not a subject
    return frozenset(words) | STOPWORDS


_NOISE = _noise()
_MIN_NAMED_TAIL = 5  # "kontoret", "butiken": a name's compound names a thing, not a suffix
_WEEKDAYS = merged("weekdays")
# Another language's weekday that is a word here ("fri tid", "tis" in English): only capitalised.
_OWN_WEEKDAYS = {language: lexicon.weekdays for language, lexicon in LEXICONS.items()}
_MONTHS = merged("months")
# Month names that are also words when written in lower case ("may"): a month only capitalised.
_LOWER_CASE_WORDS = frozenset(
    name
    for language, lexicon in LEXICONS.items()
    for name in lexicon.months
    if any(name not in other.months for other in LEXICONS.values())
    and LEMMAS.is_known(name, lang=language)
    and language == "en"
)
_ORDINALS = merged("ordinal_words")
_RANGE = frozenset({"–", "—", "-", "to", "till"})
# Languages that write compounds as one word, with the letters that may join their parts.
_LINKING = {
    language: lexicon.linking for language, lexicon in LEXICONS.items() if lexicon.compounds
}


@lru_cache(maxsize=65536)
def _known(word: str, language: str) -> bool:
    return len(word) >= _MIN_PART and LEMMAS.is_known(word, lang=language)


_VERB_NOUNS = {language: lexicon.verb_nouns for language, lexicon in LEXICONS.items()}


def _verb_of(noun: str, language: str) -> str | None:
    """The verb a noun is made from, when the dictionary knows it ("arrival" -> "arrive")."""
    for ending, verb_ending in _VERB_NOUNS.get(language, ()):
        if noun.endswith(ending) and len(noun) - len(ending) >= _MIN_PART:
            verb = noun[: -len(ending)] + verb_ending
            if _known(verb, language) and _lemma(verb, language) == verb:
                return verb
    return None


@lru_cache(maxsize=65536)
def word_terms(word: str, language: str) -> tuple[str, ...]:
    """The terms of one lower-case word (``_word_terms``), and the verb a noun of them is made
    from ("arrival": "arrival", "arrive")."""
    found = _word_terms(word, language)
    verbs = [verb for term in found if (verb := _verb_of(term, language)) and verb not in _NOISE]
    return tuple(dict.fromkeys((*found, *verbs)))


def _word_terms(word: str, language: str) -> tuple[str, ...]:
    """The terms of one lower-case word: its lemma, and its parts when it is a compound.

    A dictionary word is split as its lemma, so every form of it gives the same
    parts ("villkoren" and "villkor" alike), and only after a head of four
    letters or more; a word the dictionary lacks ("medlemsavgiften") is split
    as written, its tail lemmatised.
    """
    if word in _NOISE:
        return ()
    lemma = _lemma(word, language)
    if lemma in _NOISE:
        return ()
    if len(word) < _MIN_COMPOUND or _LINKING.get(language) is None:
        return _with_stem(word, lemma, language)
    if _known(word, language):
        split = _split(lemma, language, lemmatise_tail=False)
        if split is None or len(split[1]) < _MIN_KNOWN_HEAD:
            return (lemma,)
        _, head, tail = split
    else:
        split = _split(word, language)
        if split is None:
            return _with_stem(word, lemma, language)
        cut, head, tail = split
        lemma = word[:cut] + tail  # "medlemsavgiften" -> "medlemsavgift"
    return tuple(dict.fromkeys(t for t in (lemma, head, tail) if t not in _NOISE))


def _with_stem(word: str, lemma: str, language: str) -> tuple[str, ...]:
    stem = _definite_stem(word, lemma, language)
    return tuple(dict.fromkeys((lemma, stem, _lemma(stem, language)))) if stem else (lemma,)


def _definite_stem(word: str, lemma: str, language: str) -> str | None:
    """A word the dictionary lacks, in a definite or plural form: its stem ("routern" -> "router")."""
    lexicon = LEXICONS.get(language)
    if lexicon is None or lemma != word or _known(word, language):
        return None
    for ending in lexicon.definite_endings:
        stem = word[: -len(ending)]
        if word.endswith(ending) and len(stem) >= _MIN_KNOWN_HEAD and stem[-1] not in "aeiouyåäö":
            return stem
    return None


def _lemma(word: str, language: str) -> str:
    # An inflection is longer than its lemma ("bilen" -> "bil", "costs" -> "cost"). simplemma
    # sometimes takes a base form for a form of another word ("avgift" -> "avgifta"): a lemma no shorter than the word is not taken.
    # So is a lemma as long as the word when it has another stem (not the word's first three
    # letters): "lilla" -> "liten".
    lemma = LEMMAS.lemmatize(word, lang=language).lower()
    other_stem = len(lemma) == len(word) and lemma[:3] != word[:3]
    return lemma if len(lemma) < len(word) or other_stem else word


def split_compound(word: str, language: str) -> tuple[str, ...]:
    """``word`` as (head, tail lemma) when both are dictionary words; else ()."""
    split = _split(word, language)
    return split[1:] if split else ()


@lru_cache(maxsize=65536)
def _split(word: str, language: str, *, lemmatise_tail: bool = True) -> tuple[int, str, str] | None:
    """(where the tail starts, head, tail lemma), or None.

    The longest known tail wins (the tail is what a compound names); the head
    may end in a linking letter of the language ("medlem-s-avgift", "lån-e-tid")
    and may itself be a compound.
    """
    linking = _LINKING.get(language)
    if linking is None:
        return None
    for cut in range(_MIN_PART, len(word) - _MIN_PART + 1):
        head, tail = word[:cut], word[cut:]
        if not _known(tail, language):
            continue
        head = _head(head, linking, language)
        if head is not None:
            return cut, _lemma(head, language), _lemma(tail, language) if lemmatise_tail else tail
    return None


def _head(head: str, linking: str, language: str) -> str | None:
    """The word a compound's head stands for, or None.

    | head | word |
    |---|---|
    | a known word, or one after a linking letter ("medlem-s", "lån-e") | that word |
    | a dropped final "a" ("kyrk-ogård", "flick-vän"), or an "a" turned into a linking vowel ("kennelhost-e-vaccin", "gat-u-kök") | the word with its "a": "kyrka", "flicka", "kennelhosta", "gata" |
    | a compound itself, of either form | the same, split |

    Known words first, then compounds, each in that order.
    """
    linked = head[-1] in linking
    first = [head[:-1]] if linked else []
    restored = [head[:-1] + "a"] if linked and head[-1] in _A_LINKING else []
    if "a" in linking:
        restored.append(head + "a")
    restored = [word for word in restored if len(word) > _MIN_KNOWN_HEAD]  # not "rou-tern"
    for candidate in (*first, head, *restored):
        if _known(candidate, language):
            return candidate
    for candidate in (*restored, *first, head):
        if len(candidate) >= _MIN_COMPOUND and _split(candidate, language):
            return candidate
    return None


def first_part(word: str, language: str) -> str | None:
    """The head of a compound ("års" in "årsavgift", "tim" in "timpris"), when one is known."""
    parts = split_compound(word.lower(), language)
    return parts[0] if parts else None


@lru_cache(maxsize=16384)
def terms(text: str, language: str) -> frozenset[str]:
    """Every term of ``text`` (see the module table)."""
    found: set[str] = set()
    text = _ADDRESS.sub(_blank, text)
    tokens = list(_TOKEN.finditer(text))
    previous_day = previous_month = None
    for index, match in enumerate(tokens):
        raw = match.group()
        word = raw.lower()
        day = _OWN_WEEKDAYS.get(language, _WEEKDAYS).get(word.rstrip("."))
        if day is None and raw[0].isupper():
            day = _WEEKDAYS.get(word.rstrip("."))
        if day is not None and text[match.start() - 1 : match.start()] == "/":
            day = None  # "kr/mån": a period, not Monday
        if day is not None:
            found.add(f"weekday:{day}")
            if (
                previous_day is not None
                and index >= 2
                and tokens[index - 1].group().lower() in _RANGE
            ):
                found.update(f"weekday:{d}" for d in _between(previous_day, day, 7))
            previous_day = day
            continue
        month = _MONTHS.get(word.rstrip("."))
        if month is not None and (raw[0].isupper() or word not in _LOWER_CASE_WORDS):
            found.add(f"month:{month}")
            if (
                previous_month is not None
                and index >= 2
                and tokens[index - 1].group().lower() in _RANGE
            ):
                found.update(f"month:{m}" for m in _between(previous_month, month, 12))
            previous_month = month
            continue
        if word not in _RANGE:
            previous_day = previous_month = None
        if len(raw) == 1:
            if raw.isupper() and (_inside_sentence(text, match.start()) or text.strip() == raw):
                found.add("#" + word)
            continue
        if word in _ORDINALS:
            found.add(f"n:{_ORDINALS[word]}")  # "andra året" is "År 2"
        if word in STOPWORDS and raw[0].isupper() and _inside_sentence(text, match.start()):
            found.add(word)  # "Hem Mellan", "Plan Plus": a capitalised word inside a sentence names
            continue
        parts = word_terms(word, language)
        if raw[0].isupper() and all(len(p) > len(word) - _MIN_NAMED_TAIL for p in parts):
            parts += _name_compound(word, language)  # not split: no part is a piece of it
        found.update(parts)
        found.update(name for part in parts if (name := _other_names(language).get(part)))
    return frozenset(found)


@lru_cache(maxsize=4)
def _other_names(language: str) -> dict[str, str]:
    """A language's and country's name in ``language``, as a term, to the other language's
    ("engelsk": "english", "norge": "norway"; ``lexicon.other_names``)."""
    others = [code for code in LEXICONS if code != language]
    if not others:
        return {}
    return {
        word_terms(name, language)[0]: word_terms(translated, others[0])[0]
        for name, translated in other_names()[language].items()
        if word_terms(name, language) and word_terms(translated, others[0])
    }


@lru_cache(maxsize=16384)
def _name_compound(word: str, language: str) -> tuple[str, ...]:
    """A capitalised compound of a name the dictionary lacks and a known word: both parts.
    "Enköpingskontoret" is the Enköping office, "Västeråskontoret" the Västerås one."""
    linking = _LINKING.get(language)
    if not linking or len(word) < _MIN_COMPOUND:
        return ()
    for cut in range(_MIN_KNOWN_HEAD, len(word) - _MIN_NAMED_TAIL + 1):
        head, tail = word[:cut], word[cut:]
        if _known(tail, language):
            name = head[:-1] if head[-1] in linking and len(head) > _MIN_KNOWN_HEAD else head
            return tuple(t for t in (name, _lemma(tail, language)) if t not in _NOISE)
    return ()


def warm_up() -> None:
    """Map simplemma's dictionaries now (grounding.lemma_tables: built once a machine, seconds;
    then mapped), not in a customer's first turn.

    With words simplemma must look up: stopwords and units never reach it, and a warm-up
    of those alone left the load to the first question (0.5 s of a stalled event loop).
    """
    for language in LEXICONS:
        LEMMAS.lemmatize("priserna", lang=language)
    LEMMAS.langdetect("Priserna gäller hela året", lang=(SWEDISH, ENGLISH))
    remove_invisible("")  # its pattern of every format character (0.1 s to build)


def text_language(text: str) -> str:
    """``"sv"`` or ``"en"`` for reading an answer's numbers and words.

    The marker words and å/ä/ö first (``marked_language``); where they do not decide,
    simplemma's dictionaries decide by which language knows more of the words ("Payment
    terms: 30 days net"), and Swedish when those do not either. (Marker words that decide
    spare the dictionary look-up of every question: 4 % of the event loop in ``make bench``.)
    """
    language = marked_language(text)
    if language is not None:
        return language
    if not _SWEDISH_SIGNS.search(text):
        ranked = dict(LEMMAS.langdetect(text, lang=(SWEDISH, ENGLISH)))
        if ranked.get(ENGLISH, 0.0) > ranked.get(SWEDISH, 0.0):
            return ENGLISH
    return SWEDISH


_SWEDISH_SIGNS = re.compile(r"[åäöÅÄÖ]")


def sentence_language(text: str, hint: str | None = None) -> str:
    """The language of one sentence of an answer.

    Its own when its letters say so (a word with å, ä or ö that is not also an English
    currency or unit, as "öre" is, makes it Swedish), or its marker words ("The price is
    1,500 kr" is English after a Swedish question); else ``hint`` (the question's, which
    decides how "1,500" reads); else guessed from its words (``text_language``). A short
    question such as "Allrisk till Hem Start" reads as English, its Swedish answer does not.
    A capitalised word says nothing: a Swedish place or product name ("Malmö", "Storskär")
    stands in English sentences as well, so beside such names only, the sentence's marker
    words decide first.
    """
    own = [w for w in _SWEDISH_WORD.findall(text) if w.lower() not in _ENGLISH_WORDS]
    if any(word[0].islower() for word in own):
        return SWEDISH
    if own and (marked := marked_language(_SWEDISH_WORD.sub(" ", text))) is not None:
        return marked  # names only: the sentence's marker words decide, not the question's
    if hint is not None and (marked := marked_language(text)) is not None:
        return marked
    return hint or text_language(text)


_SWEDISH_WORD = re.compile(r"\w*[åäöÅÄÖ]\w*")
# Words with å, ä or ö that English text uses too: "85.40 öre/kWh".
_ENGLISH_WORDS = frozenset(
    word for field in ("currencies", "units") for word in getattr(LEXICONS[ENGLISH], field)
)


def _between(first: int, last: int, cycle: int) -> list[int]:
    """The days (or months) from ``first`` up to ``last``, round the week (or year)."""
    found, current = [], first
    while current != last:
        found.append(current)
        current = current % cycle + 1
    return found


def _inside_sentence(text: str, position: int) -> bool:
    before = text[:position].rstrip(" *_(\"'“")
    return bool(before) and before[-1] not in ".!?:\n|-"


__all__ = ["LEXICONS", "first_part", "split_compound", "terms", "word_terms"]
