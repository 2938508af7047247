"""Subjects: the things a KB states numbers about (plans, products, services).

Pure: no ORM, no I/O. The vocabulary comes from the KB's own structure
(``Label:`` at the start of a line or list item, ``**bold**`` labels, first
cells of table rows, headings), so no list of products is hard-coded.
Verification (``grounding.verification``) finds the subjects an answer
attaches a number to and asks whether the supporting KB line, with the
headings above it, names them.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from grounding.text import aligned_lower

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_LINE_LABEL = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?(?P<label>[^\W\d_][^:|\n]{0,60}?)(?:\*\*|__)?\s*:(?![\d/])"
)
_BOLD = re.compile(r"\*\*([^*\n]{1,60}?)\*\*|__([^_\n]{1,60}?)__")
_TABLE_FIRST_CELL = re.compile(r"^\s*\|\s*([^|\n]+?)\s*\|")
_TABLE_RULE = re.compile(r"^:?-{2,}:?$")
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_LABEL_SHAPE = re.compile(r"^[^\W\d_][\w&'’.\-– ]*$")
_MAX_LABEL_WORDS = 4


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_STOPWORDS = _word_set(
    """
    och eller men att som en ett den det de dem du ni vi jag han hon man är var
    blir har hade för från till med utan på av om i över under vid per inte
    alla allt andra annan annat kan ska vill måste så här där hur vad när
    vår vårt våra er ert era din ditt dina min mitt mina sin sitt sina
    the a an and or but of to in on at for from with without by is are was be
    this that these those it its our your their we you they not all any
    how what when where which who why
    """
)
# Words that label many things at once; as a subject they would take a number
# away from the real subject before it ("Premium har ett pris på 99 kr").
_GENERIC = _word_set(
    """
    pris priser priset kostnad kostnader avgift avgifter belopp summa totalt
    price prices cost costs fee fees amount total
    info information obs observera notera not note notes exempel example examples
    tips fråga frågor svar faq översikt overview sammanfattning summary
    detaljer details övrigt other allmänt general innehåll contents
    beskrivning description kommentar comment
    plan planer plans paket package packages produkt produkter product products
    tjänst tjänster service services alternativ option options
    datum date tid time nummer number värde value typ type namn name
    kategori category status villkor terms
    title keywords lang language
    """
)

# Endings that keep a word the same subject: definite, plural, genitive
# ("Premiums", "planen", "Basic:s"); hyphenated compounds ("Basic-planen") too.
_ENDINGS = frozenset(
    {"", *_word_set("s n t en et na ns er ar or ens ets nas erna arna orna ernas arnas ornas")}
)
_MARKED_ENDING = re.compile(r"['’:](?:s|n|en|et)(?!\w)")  # "Premium's", "SMS:en"


def kb_subjects(texts: Iterable[str]) -> frozenset[str]:
    """The KB's subject vocabulary, lowercased, from the labels its markdown uses."""
    terms: set[str] = set()
    for text in texts:
        for line in _without_front_matter(text).split("\n"):
            for label in _line_labels(line):
                term = _normalise_label(label)
                if term:
                    terms.add(term)
    return frozenset(terms)


_FRONT_MATTER = re.compile(r"\A---\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)


def _without_front_matter(text: str) -> str:
    return _FRONT_MATTER.sub("", text, count=1)


def heading_text(line: str) -> tuple[int, str] | None:
    """(level, text) when ``line`` is a markdown heading, else None."""
    match = _HEADING.match(line)
    return (len(match.group(1)), match.group(2)) if match else None


def _line_labels(line: str) -> list[str]:
    labels = []
    heading = heading_text(line)
    if heading:
        labels.append(heading[1])
    else:
        label = _LINE_LABEL.match(line)
        if label:
            labels.append(label["label"])
        cell = _TABLE_FIRST_CELL.match(line)
        if cell and not _TABLE_RULE.match(cell.group(1).strip()):
            labels.append(cell.group(1))
    labels.extend(bold[0] or bold[1] for bold in _BOLD.findall(line))
    return labels


def _normalise_label(label: str) -> str | None:
    text = _PARENTHESES.sub(" ", label).replace("*", " ").replace("`", " ")
    text = " ".join(text.split()).strip(" .:;,!?-_'’").lower()
    if len(text) < 2 or not _LABEL_SHAPE.match(text) or any(ch.isdigit() for ch in text):
        return None
    words = text.split()
    if len(words) > _MAX_LABEL_WORDS or all(word in _STOPWORDS for word in words):
        return None
    if text in _GENERIC:
        return None
    return text


# A NamedTuple, not a frozen dataclass: one is made for every subject named in
# every sentence checked, and a tuple is several times cheaper to build.
class Mention(NamedTuple):
    """A vocabulary term named in a text."""

    start: int
    end: int
    term: str


_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True)
class _Term:
    term: str
    words: tuple[str, ...]  # letter runs of the term
    # Every word after the first with what joins it to the one before: " " (any
    # whitespace), "-", "–", "&", ...
    rest: tuple[tuple[str, str], ...]


def _term_shape(term: str) -> _Term:
    words, gaps, previous_end = [], [], None
    for match in _WORD.finditer(term):
        if previous_end is not None:
            gap = term[previous_end : match.start()]
            gaps.append(" " if gap.isspace() else gap)
        words.append(match.group())
        previous_end = match.end()
    return _Term(term, tuple(words), tuple(zip(gaps, words[1:], strict=True)))


@lru_cache(maxsize=32)
def _first_word_index(vocabulary: frozenset[str]) -> dict[str, tuple[_Term, ...]]:
    """Every inflected form of a term's first word, to the terms starting with it."""
    index: dict[str, list[_Term]] = {}
    for term in vocabulary:
        shape = _term_shape(term)
        if not shape.words:
            continue
        for ending in _ENDINGS:
            index.setdefault(shape.words[0] + ending, []).append(shape)
    # Longest first, so "premium årsvis" wins over "premium" at the same place.
    return {
        form: tuple(sorted(shapes, key=lambda t: (len(t.words), len(t.term)), reverse=True))
        for form, shapes in index.items()
    }


@lru_cache(maxsize=32)
def _first_word_finder(vocabulary: frozenset[str]) -> re.Pattern:
    """A regex finding where any term's first word starts (in lowercased text).

    The words are arranged as a trie, so the engine skips to the letters a
    term can start with and tries few alternatives there.
    """
    trie: dict = {}
    for term in vocabulary:
        shape = _term_shape(term)
        if shape.words:
            node = trie
            for char in shape.words[0]:
                node = node.setdefault(char, {})
            node[""] = {}  # a word may end here
    return re.compile(_trie_pattern(trie) or "(?!)")


def _trie_pattern(node: dict) -> str:
    if "" in node:
        return ""  # a shorter first word suffices: the whole word is checked later
    branches = [re.escape(char) + _trie_pattern(child) for char, child in sorted(node.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def find_subjects(text: str, vocabulary: frozenset[str]) -> list[Mention]:
    """Every vocabulary term named in ``text``, in order (the longest term at a place).

    Words match with Swedish endings ("Premiums", "planen", "SMS:en") and as the
    head of a hyphen compound ("Basic-planen"), never inside another word.
    """
    if not vocabulary:
        return []
    index = _first_word_index(vocabulary)
    lowered = aligned_lower(text)
    mentions: list[Mention] = []
    position = 0
    for candidate in _first_word_finder(vocabulary).finditer(lowered):
        start = candidate.start()
        if start < position:
            continue
        if start and (text[start - 1].isalnum() or text[start - 1] in "_-"):
            continue  # inside a word, or the tail of a compound ("extra-Basic")
        first = _WORD.match(lowered, start)
        for shape in index.get(first.group(), ()):
            end = _match_end(text, lowered, first, shape)
            if end is not None:
                mentions.append(Mention(start, end, shape.term))
                position = end
                break
    return mentions


def _match_end(text: str, lowered: str, first: re.Match, shape: _Term) -> int | None:
    """Where ``shape`` ends when it starts with the word ``first`` of ``text``, or None."""
    end = first.end()
    for gap, stem in shape.rest:
        word = _WORD.search(lowered, end)
        if word is None:
            return None
        between = text[end : word.start()]
        if not (between == gap or (gap == " " and between.isspace())):
            return None
        if not (word.group().startswith(stem) and word.group()[len(stem) :] in _ENDINGS):
            return None
        end = word.end()
    marked = _MARKED_ENDING.match(text, end)
    if marked:
        end = marked.end()
    while end + 1 < len(text) and text[end] == "-" and text[end + 1].isalpha():
        end += 1
        while end < len(text) and text[end].isalpha():
            end += 1
    return None if end < len(text) and (text[end].isalnum() or text[end] == "_") else end


@lru_cache(maxsize=4096)
def subjects_named(text: str, vocabulary: frozenset[str]) -> frozenset[str]:
    """The vocabulary terms ``text`` names, shorter terms inside longer ones included.

    "Premium årsvis: 3 990 kr/år" is about Premium too.
    """
    inner = _inner_terms(vocabulary)
    named: set[str] = set()
    for mention in find_subjects(text, vocabulary):
        named.add(mention.term)
        named.update(inner.get(mention.term, ()))
    return frozenset(named)


@lru_cache(maxsize=32)
def _inner_terms(vocabulary: frozenset[str]) -> dict[str, frozenset[str]]:
    """For each multiword term, the vocabulary terms made of a run of its words."""
    inner = {}
    for term in vocabulary:
        words = term.split()
        runs = {
            " ".join(words[start:end])
            for start in range(len(words))
            for end in range(start + 1, len(words) + 1)
            if end - start < len(words)
        }
        if runs & vocabulary:
            inner[term] = frozenset(runs & vocabulary)
    return inner


_CLAUSE_BREAK = re.compile(  # one character class first: the engine skips to those
    r"[;|()\[\],\s]"
    r"(?:(?<=[;|()\[\]])|(?<=,)(?=\s)|(?<=\s)(?:och|samt|men|medan|and|but|while)\s)"
)


def clauses(text: str, mentions: Sequence[Mention] = ()) -> list[tuple[int, int]]:
    """The (start, end) spans of the clauses of ``text``, in order.

    Clauses are split at ``;``, a comma before a space (not ``12,5``),
    parentheses, table cell bars and "och"/"and"-like conjunctions, but never
    inside a mention: "Basic och Standard" stays one subject. ``mentions`` are
    in order and apart, as ``find_subjects`` gives them.
    """
    spans, start = [], 0
    later = iter(mentions)
    mention = next(later, None)
    for match in _CLAUSE_BREAK.finditer(text):
        at = match.start()
        while mention is not None and mention.end <= at:
            mention = next(later, None)
        if mention is not None and mention.start <= at:
            continue  # inside that mention
        spans.append((start, at))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def clause_bounds(text: str, position: int, mentions: Sequence[Mention] = ()) -> tuple[int, int]:
    """(start, end) of the clause of ``text`` holding ``position``."""
    return next(
        ((start, end) for start, end in clauses(text, mentions) if position < end),
        (len(text), len(text)),
    )


# A KB line changes subject only where a new "Label:" starts: in "Basic: 99 kr,
# Premium: 399 kr" the 399 is Premium's, while "Papperskorg för Basic och
# Standard: 30 dagar" is about both plans.
_SEGMENT_BREAK = re.compile(r"[,;|(]\s*(?=[^\W\d_][^:,;|()\n]{0,40}:(?![\d/]))")


def segment_bounds(line: str, position: int) -> tuple[int, int]:
    """(start, end) of the labelled segment of a KB ``line`` holding ``position``."""
    start = 0
    for match in _SEGMENT_BREAK.finditer(line):
        if match.start() >= position:
            return start, match.start()
        start = match.end()
    return start, len(line)
