"""Turning Swedish and English text into search terms.

Pure: no ORM, no I/O. A document is normalised in its own language; a query
is normalised in both languages, because a short question cannot be
language-detected reliably and a Swedish page may use English product words
(``Premium``, ``Business``). Terms of the two languages rarely collide, so
the union costs little precision.

Snowball leaves three Swedish gaps that matter for support questions:

- definite forms: ``fakturan``, ``räntan``, ``kontot``, ``abonnemanget`` do
  not reach the stem of ``faktura``, ``ränta``, ``konto``, ``abonnemang``.
  :func:`normalize_word` also stems the word with its definite ending removed
  and keeps the shorter stem, recursively, so every form lands on one term.
- verbal nouns: ``betalning`` and ``kryptering`` do not meet ``betala`` and
  ``krypterade``; a final ``-ning``/``-ing`` is dropped from the stem.
- compounds: ``telefonnummer`` must meet ``Telefon:`` and ``nummer``.
  :func:`split_compound` splits a word into two parts that both occur in the
  index vocabulary (optionally joined by a linking ``s``), and the parts are
  added as extra terms on both the document and the query side.
"""

import itertools
import re
import unicodedata
from collections.abc import Container
from functools import lru_cache

import Stemmer
from bm25s.stopwords import STOPWORDS_EN, STOPWORDS_SWEDISH

from grounding.lexicon import other_names

SWEDISH = "sv"
ENGLISH = "en"
LANGUAGES = (SWEDISH, ENGLISH)

# Question and filler words the bm25s lists lack; they carry no topic.
_EXTRA_SV = {"finns", "ska", "vill", "får", "går", "gör", "hej", "tack", "snälla", "kanske"}
_EXTRA_EN = {
    "what", "how", "when", "where", "which", "who", "whom", "why", "do", "does", "did", "can",
    "could", "would", "should", "may", "might", "must", "shall", "i", "me", "my", "mine",
    "you", "your", "yours", "we", "our", "us", "he", "she", "him", "her", "his", "its", "them",
    "much", "many", "have", "has", "had", "am", "been", "being", "were", "about", "above",
    "after", "again", "against", "all", "also", "any", "because", "before", "below",
    "between", "both", "during", "each", "few", "from", "further", "here", "more", "most",
    "other", "out", "over", "own", "same", "so", "some", "than", "too", "very", "just",
    "only", "up", "down", "off", "once", "tell", "please", "hello", "hi", "thanks", "thank",
    "there", "get", "got", "know", "want", "need", "like",
}  # fmt: skip
STOPWORDS: frozenset[str] = frozenset(STOPWORDS_SWEDISH) | frozenset(STOPWORDS_EN)
STOPWORDS |= _EXTRA_SV | _EXTRA_EN

# Words that only one of the two languages uses, for language detection.
_SV_MARKERS = (frozenset(STOPWORDS_SWEDISH) | _EXTRA_SV) | {
    "ja", "nej", "ok", "okej", "gärna", "imorgon", "idag", "ring", "ringa", "kostar", "kostnad",
    "pris", "priset", "mitt", "hur", "vad", "när", "varför", "kan", "jag", "mig", "du",
    "nummer", "faktura", "fakturan", "tid", "bra", "också", "hjälp", "öppet",
}  # fmt: skip
_EN_MARKERS = (frozenset(STOPWORDS_EN) | _EXTRA_EN) | {
    "yes", "ok", "okay", "call", "cost", "costs", "price", "phone", "number", "invoice",
    "help", "open", "tomorrow", "today", "the", "is", "are", "it", "of", "and", "to",
}  # fmt: skip
_AMBIGUOUS_MARKERS = _SV_MARKERS & _EN_MARKERS  # "i", "man", "under", "ok", ...
_SWEDISH_LETTERS = re.compile(r"[åäöÅÄÖ]")

_WORD = re.compile(r"[^\W_]+")
# Definite endings and how much of each to drop: -an keeps its "a" (faktura-n),
# -ot keeps its "o" (konto-t); -en and -et go entirely (avgift-en, abonnemang-et).
_DEFINITE_ENDINGS = (("an", 1), ("ot", 1), ("en", 2), ("et", 2))
# Nouns in -mer/-ter/-der lose their "e" when definite: nummer -> numret, numren.
_CONTRACTED_ENDINGS = (
    ("mret", "mmer"), ("mren", "mmer"), ("tret", "ter"), ("tren", "ter"),
    ("dret", "der"), ("dren", "der"),
)  # fmt: skip
# Verbal nouns meet their verb: betalning/betala, kryptering/krypterade.
_NOMINAL_SUFFIXES = ("ning", "ing")
_MIN_BASE = 4  # shorter bases are too often whole words ("plan", "paket" stay)
_MIN_PART = 3  # compound parts: "tid" in "uppsägningstid"
_MIN_COMPOUND = 2 * _MIN_PART + 1
_MIN_LOOSE_PART = 4  # parts of a compound of which only one part is known


@lru_cache(maxsize=4)
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer("swedish" if language == SWEDISH else "english")


def words(text: str) -> list[str]:
    """Lowercase words (letters and digits) of ``text``, stopwords included."""
    return [w for w in _WORD.findall(text.lower()) if len(w) > 1 or w.isdigit()]


@lru_cache(maxsize=200_000)
def normalize_word(word: str, language: str = SWEDISH) -> str:
    """The search term of one lowercase word in ``language``."""
    if word.isdigit():
        return word
    stem = _stemmer(language).stemWord(word)
    if language != SWEDISH:
        return stem
    # Contracted forms first: on a tie the first candidate stays.
    bases = [word[: -len(end)] + base for end, base in _CONTRACTED_ENDINGS if word.endswith(end)]
    bases += [word[:-drop] for ending, drop in _DEFINITE_ENDINGS if word.endswith(ending)]
    for base in bases:
        if len(base) >= _MIN_BASE:
            shorter = normalize_word(base, SWEDISH)
            if len(shorter) < len(stem):
                stem = shorter
    for suffix in _NOMINAL_SUFFIXES:
        if stem.endswith(suffix) and len(stem) - len(suffix) >= _MIN_BASE:
            return stem[: -len(suffix)]
    return stem


def split_compound(word: str, vocabulary: Container[str]) -> tuple[str, ...]:
    """Terms of the parts of a Swedish compound that occur in ``vocabulary``.

    ``telefonnummer`` -> ``("telefon", "numm")`` and ``uppsägningstid`` ->
    ``("uppsägning", "tid")`` (linking s dropped). A split whose parts both
    occur in the vocabulary wins; failing that, a split with one known part
    counts when both parts are long, and gives only that part
    (``telefonnumret`` still finds ``Telefon:`` when the KB has no bare
    ``nummer``). Unknown parts are never returned, so a wrong split cannot
    seed the vocabulary with fragments. Among equals the most balanced split
    wins; a word that splits nowhere gives ``()``.
    """
    if len(word) < _MIN_COMPOUND or not word.isalpha():
        return ()
    best: tuple[str, ...] = ()
    best_rank = (0, 0)
    for cut in range(_MIN_PART, len(word) - _MIN_PART + 1):
        head, tail = word[:cut], word[cut:]
        if tail in STOPWORDS:
            continue
        tail_term = normalize_word(tail, SWEDISH)
        heads = [head]
        if head.endswith("s") and len(head) > _MIN_PART:
            heads.append(head[:-1])
        for candidate in heads:
            if candidate in STOPWORDS:
                continue
            head_term = normalize_word(candidate, SWEDISH)
            known = (head_term in vocabulary) + (tail_term in vocabulary)
            balance = min(len(candidate), len(tail))
            if known == 1 and balance < _MIN_LOOSE_PART:
                continue
            rank = (known, balance)
            if known and rank > best_rank:
                best = tuple(t for t in (head_term, tail_term) if t in vocabulary)
                best_rank = rank
    return best


def document_terms(text: str, language: str, vocabulary: Container[str] | None = None) -> list[str]:
    """Search terms of a document text (with repetitions, for term frequency).

    With a ``vocabulary`` the parts of Swedish compounds are added as well.
    """
    terms = []
    for word in words(text):
        if word in STOPWORDS:
            continue
        terms.append(normalize_word(word, language))
        if vocabulary is not None and language == SWEDISH:
            terms.extend(split_compound(word, vocabulary))
    return [term for term in terms if term not in STOPWORDS]


def query_terms(text: str, vocabulary: Container[str] | None = None) -> list[str]:
    """Distinct search terms of a query, in both languages, in order of appearance."""
    seen: dict[str, None] = {}
    for word in words(text):
        if word in STOPWORDS:
            continue
        for language in LANGUAGES:
            seen.setdefault(normalize_word(word, language))
        for language in LANGUAGES:
            other = _other_names(language).get(normalize_word(word, language))
            if other is not None:
                seen.setdefault(other)
        if vocabulary is not None:
            for part in split_compound(word, vocabulary):
                seen.setdefault(part)
    # A word that only normalises to a stopword ("owne" -> "own") searches for nothing.
    return [term for term in seen if term not in STOPWORDS]


@lru_cache(maxsize=4)
def _other_names(language: str) -> dict[str, str]:
    """A language's and country's name in ``language``, as a search term, to the other
    language's ("engelsk": "english", "norg": "norway"; ``lexicon.other_names``)."""
    other = next(code for code in LANGUAGES if code != language)
    return {
        normalize_word(name, language): normalize_word(translated, other)
        for name, translated in other_names()[language].items()
    }


def content_terms(text: str) -> list[str]:
    """Distinct terms of any text, comparable across texts without an index."""
    return query_terms(text)


def detect_language(text: str) -> str:
    """``"sv"`` or ``"en"``: by marker words, then by å/ä/ö; Swedish when unsure."""
    return marked_language(text) or SWEDISH


def marked_language(text: str) -> str | None:
    """``"sv"`` or ``"en"`` where marker words and å/ä/ö say more of one language than of the
    other; ``None`` where they do not (no markers, or as many of each)."""
    if not words(text):
        return None
    sv = 1 if _SWEDISH_LETTERS.search(text) else 0
    en = 0
    for word in words(text):
        if word in _AMBIGUOUS_MARKERS:
            continue
        sv += word in _SV_MARKERS
        en += word in _EN_MARKERS
    if sv != en:
        return SWEDISH if sv > en else ENGLISH
    return None


# -- invisible characters ------------------------------------------------------

# Default-ignorable code points that are not of category Cf (Unicode's
# DerivedCoreProperties.txt): fillers, variation selectors, the combining grapheme joiner.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip


@lru_cache(maxsize=1)
def _invisible() -> re.Pattern[str]:
    """Every format character (category Cf) and every other default-ignorable code point."""
    # Planes 0, 1 and 14 hold every format character (planes 2, 3 are ideographs only).
    scanned = itertools.chain(range(0x20000), range(0xE0000, 0xF0000))
    points = {p for p in scanned if unicodedata.category(chr(p)) == "Cf"}
    for low, high in _IGNORABLE_RANGES:
        points.update(range(low, high + 1))
    ranges: list[tuple[int, int]] = []
    for point in sorted(points):
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1] = (ranges[-1][0], point)
        else:
            ranges.append((point, point))
    return re.compile(
        "["
        + "".join(f"\\U{a:08x}-\\U{b:08x}" if a != b else f"\\U{a:08x}" for a, b in ranges)
        + "]"
    )


def remove_invisible(text: str) -> str:
    """``text`` without the characters that change what a reader sees but not what a check reads.

    Removed: every format character (Unicode category Cf: the bidirectional controls
    U+202A-U+202E and U+2066-U+2069, the marks U+200E, U+200F and U+061C, the zero-width
    space, joiners and no-break space U+200B-U+200D and U+FEFF, the soft hyphen U+00AD, the
    invisible operators U+2061-U+2064, tag characters, ...) and the other default-ignorable code
    points (variation selectors, Hangul fillers, the combining grapheme joiner). None is needed
    by Swedish or English; the joiners and selectors only shape emoji and scripts this product
    does not answer in, and any of them between two digits makes a check read two numbers
    where a reader sees one (or, reordered by a bidirectional control, another number).
    """
    return _invisible().sub("", text)
