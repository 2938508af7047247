"""Verify an answer against the retrieved snippets: every number needs a supporting line.

Pure: no ORM, no I/O. An answer is checked sentence by sentence with
``AnswerChecker.check_sentence``; the streaming guard calls the very same
method, so the verdict of a stream equals the verdict of the whole answer.
"""

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from grounding.numbers import Number, NumberKind, extract_numbers, supports_same_key
from grounding.snippets import Citation, Snippet, UnsupportedNumber
from grounding.subjects import (
    clauses,
    find_subjects,
    heading_text,
    kb_subjects,
    segment_bounds,
    subjects_named,
)
from grounding.text import STOPWORDS, content_terms

NO_SUPPORT = "No support"
NUMBER_MISMATCH = "Verification failed: Number mismatch"
WRONG_SUBJECT = "Verification failed: Wrong subject"

NOT_IN_SNIPPETS = "not in retrieved snippets"
AMBIGUOUS_FORM = "ambiguous form not written the same way in retrieved snippets"
SUBJECT_MISMATCH = "wrong subject"
TOPIC_MISMATCH = "supporting line is about something else"

MAX_FAILURE_CITATIONS = 3
_CITATION_LINES = 3


@dataclass(frozen=True, slots=True)
class Verdict:
    grounded: bool
    citations: list[Citation]
    unsupported: list[UnsupportedNumber]
    reason: str | None = None


def failure_reason(unsupported: UnsupportedNumber) -> str:
    """The short reason a client sees for an answer withheld because of ``unsupported``."""
    wrong_thing = unsupported.reason in (SUBJECT_MISMATCH, TOPIC_MISMATCH)
    return WRONG_SUBJECT if wrong_thing else NUMBER_MISMATCH


# --- sentences ---------------------------------------------------------------

_SENTENCE_MARK = re.compile(r"[.!?\n]")
# A dot after these is no sentence end: "kostar ca. 399 kr" is one sentence.
_ABBREVIATIONS = frozenset(
    str.split(
        """
    ca. kl. t.ex. bl.a. inkl. exkl. resp. st. nr. tel. mån. tis. ons. tors. fre.
    lör. sön. jan. feb. mar. apr. aug. sep. sept. okt. nov. dec. p.g.a. pga. m.m.
    o.s.v. osv. d.v.s. dvs. s.k. fr.o.m. t.o.m. ung. min. max. mfl. m.fl. org.nr.
    e.g. i.e. approx. incl. excl. no. vs. etc. mr. mrs. ms. dr.
    """
    )
)


def find_sentence_end(text: str, position: int) -> tuple[int | None, int]:
    """(end of the first sentence ending at or after ``position``, where to resume).

    A sentence ends after a newline, or after ``.``/``!``/``?`` followed by
    whitespace (``12.5`` and ``ca. 5`` don't end one). A mark that is the last
    character is undecided until more text arrives (or the text ends): the
    end is None and scanning resumes at that mark.
    """
    while match := _SENTENCE_MARK.search(text, position):
        index = match.start()
        if text[index] == "\n":
            return index + 1, index + 1
        if index + 1 == len(text):
            return None, index
        if text[index + 1].isspace() and not _is_abbreviation(text, index):
            return index + 1, index + 1
        position = index + 1
    return None, len(text)


# The two characters before the final dot of each: most words ending a sentence
# are told apart from every abbreviation by these alone.
_ABBREVIATION_ENDS = frozenset(abbreviation[-3:-1] for abbreviation in _ABBREVIATIONS)


def _is_abbreviation(text: str, dot: int) -> bool:
    if text[dot] != ".":
        return False
    if not text[dot - 1 : dot].isdigit() and text[max(0, dot - 2) : dot].lower() not in (
        _ABBREVIATION_ENDS
    ):
        return False
    start = _word_start(text, dot)
    if text[start:dot].isdigit() and (start == 0 or text[start - 1] == "\n"):
        return True  # "2. Kontrollera …": a list item's number, not a sentence
    return text[start : dot + 1].lstrip("([\"'“”‘’").lower() in _ABBREVIATIONS


def _word_start(text: str, end: int) -> int:
    """Where the run of non-whitespace characters ending at ``end`` starts."""
    head = text[max(0, end - 16) : end]  # longer than any abbreviation: usually enough
    if not head or head[-1].isspace():
        return end
    word = head.split()[-1]
    if len(word) < len(head) or len(word) == end:
        return end - len(word)
    start = end - len(word)
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return start


def split_sentences(text: str) -> list[str]:
    """``text`` cut at every sentence end; the pieces join back to ``text``."""
    sentences, start = [], 0
    while start < len(text):
        end, _ = find_sentence_end(text, start)
        if end is None:
            end = len(text)
        sentences.append(text[start:end])
        start = end
    return sentences


# --- snippets, analysed once -------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Line:
    number: int  # line in the file
    index: int  # line in the snippet
    text: str
    numbers: tuple[Number, ...]
    # (line in the file, or None above the chunk; heading text), outermost first
    headings: tuple[tuple[int | None, str], ...]
    is_heading: bool


@dataclass(frozen=True, slots=True)
class _SnippetAnalysis:
    lines: tuple[_Line, ...]
    subjects: frozenset[str]
    # Filled as lines are cited: (line index, heading line used) -> citation.
    citations: dict[tuple[int, int | None], Citation] = field(default_factory=dict, compare=False)


@lru_cache(maxsize=1024)
def _analyse(snippet: Snippet) -> _SnippetAnalysis:
    # The heading path's parts stand for levels 1, 2, ...: a heading inside the
    # chunk replaces the parts at its level and below.
    stack: list[tuple[int, int | None, str]] = [
        (level, None, part.strip())
        for level, part in enumerate(snippet.heading.split(" > "), start=1)
        if part.strip()
    ]
    lines = []
    for index, (number, text) in enumerate(snippet.lines()):
        heading = heading_text(text)
        headings = tuple((line, title) for _, line, title in stack)
        lines.append(
            _Line(number, index, text, tuple(extract_numbers(text)), headings, bool(heading))
        )
        if heading:
            level, title = heading
            stack = [entry for entry in stack if entry[0] < level]
            stack.append((level, number, title))
    heading_lines = [f"# {part}" for part in snippet.heading.split(" > ") if part.strip()]
    return _SnippetAnalysis(tuple(lines), kb_subjects([snippet.text, *heading_lines]))


@dataclass(frozen=True, slots=True)
class _Fact:
    """A number of a snippet line with what that line says it is about."""

    line: _Line
    number: Number
    segment_terms: frozenset[str]  # named by the line's labelled segment holding the number
    # (line in the file or None, terms the heading names), nearest heading first
    heading_terms: tuple[tuple[int | None, frozenset[str]], ...]


@dataclass(frozen=True, slots=True)
class _SnippetFacts:
    facts: tuple[_Fact, ...]
    kinds_by_term: dict[str, frozenset[str]]  # the kinds of number stated about each term
    by_key: dict[str, tuple[_Fact, ...]]  # the facts by their number's lookup_key


@lru_cache(maxsize=1024)
def _facts(snippet: Snippet, vocabulary: frozenset[str]) -> _SnippetFacts:
    # In "Basic: 99 kr, Premium: 399 kr" the 399 is Premium's: a line changes
    # subject where a new "Label:" starts.
    facts = []
    kinds: dict[str, set[str]] = {}
    for line in _analyse(snippet).lines:
        if not line.numbers:
            continue
        heading_terms = tuple(
            (heading_line, subjects_named(title, vocabulary))
            for heading_line, title in reversed(line.headings)
        )
        for number in line.numbers:
            start, end = segment_bounds(line.text, number.start)
            fact = _Fact(
                line, number, subjects_named(line.text[start:end], vocabulary), heading_terms
            )
            facts.append(fact)
            for term in fact.segment_terms.union(*(terms for _, terms in heading_terms)):
                kinds.setdefault(term, set()).add(_kind_class(number))
    by_key: dict[str, list[_Fact]] = {}
    for fact in facts:
        by_key.setdefault(fact.number.lookup_key, []).append(fact)
    return _SnippetFacts(
        tuple(facts),
        {term: frozenset(k) for term, k in kinds.items()},
        {key: tuple(found) for key, found in by_key.items()},
    )


# _Support, SubjectRule and NumberCheck are NamedTuples, not frozen dataclasses:
# they are made for every number checked, and a tuple is several times cheaper to build.
class _Support(NamedTuple):
    rank: int  # the snippet's place in the retrieved list
    fact: _Fact

    @property
    def line(self) -> _Line:
        return self.fact.line

    @property
    def number(self) -> Number:
        return self.fact.number


class SubjectRule(NamedTuple):
    """What a supporting line must be about: every term, or at least one of them."""

    terms: frozenset[str]
    every: bool


class NumberCheck(NamedTuple):
    """The outcome for one number of an answer: a citation, or why there is none."""

    number: Number
    subject: SubjectRule | None
    citation: Citation | None
    unsupported: UnsupportedNumber | None


class AnswerChecker:
    """The retrieved snippets, indexed for checking answers sentence by sentence."""

    def __init__(self, snippets: Sequence[Snippet], *, subjects: frozenset[str] = frozenset()):
        self.snippets = tuple(snippets)
        analyses = [_analyse(snippet) for snippet in self.snippets]
        # The snippets' own labels count too, so a caller without the KB-wide
        # vocabulary still gets subject checks within what was retrieved.
        vocabulary = frozenset(subjects)
        if not all(analysis.subjects <= vocabulary for analysis in analyses):
            vocabulary = vocabulary.union(*(analysis.subjects for analysis in analyses))
        self.vocabulary = vocabulary  # the caller's own set when it covers the snippets: cache hits
        self._analyses = analyses
        # Per snippet, cached across turns; merged lazily, for the keys and
        # terms an answer actually asks about (a turn's answer names few).
        self._facts = [_facts(snippet, self.vocabulary) for snippet in self.snippets]
        self._kinds: dict[str, frozenset[str] | None] = {}
        # The stream's guard and the final verdict check the same sentences.
        self._checked: dict[str, list[NumberCheck]] = {}

    def check_sentence(self, sentence: str) -> list[NumberCheck]:
        """Check every number of one sentence (as ``split_sentences`` cuts them).

        A sentence checked before by this checker is not analysed again.
        """
        checked = self._checked.get(sentence)
        if checked is None:
            checked = self._checked[sentence] = self._check_sentence(sentence)
        return checked

    def _check_sentence(self, sentence: str) -> list[NumberCheck]:
        numbers = extract_numbers(sentence)
        if not numbers:
            return []
        mentions = find_subjects(sentence, self.vocabulary)
        ordinal = _ORDINAL.match(sentence)  # "2. Kontrollera …": the 2 numbers a list item
        ordinal_start = ordinal.start(1) if ordinal else -1
        if not mentions:
            return [
                self._check_number(
                    number,
                    None,
                    counted_word(sentence, number),
                    sentence,
                    number.start == ordinal_start,
                )
                for number in numbers
            ]
        spans = clauses(sentence, mentions)
        ends = [end for _, end in spans]
        by_clause: list[list[str]] = [[] for _ in spans]
        for mention in mentions:
            by_clause[bisect_right(ends, mention.start)].append(mention.term)
        return [
            self._check_number(
                number,
                self._subject_rule(number, bisect_right(ends, number.start), by_clause),
                counted_word(sentence, number),
                sentence,
                number.start == ordinal_start,
            )
            for number in numbers
        ]

    def _subject_rule(
        self, number: Number, clause: int, terms_by_clause: list[list[str]]
    ) -> SubjectRule | None:
        """What the answer attaches ``number`` (in clause number ``clause``) to, if anything.

        The subjects named in the number's own clause all hold for it
        ("Raderade filer sparas i 180 dagar för Basic" is about both). With
        none there, the nearest earlier clause that names subjects lends them,
        any one sufficing ("Premium har 99,9 % tillgänglighet och svar inom 4
        timmar"). A term whose snippet lines carry only other kinds of numbers
        is passed over: in "telefon 08-123 45 67, vardagar 08:00" the time is
        not the phone's. A term the snippets say nothing about still counts
        (its facts may not have been retrieved), so doubt still rejects.
        """
        own = self._fitting(terms_by_clause[clause], number)
        if own:
            return SubjectRule(frozenset(own), every=True)
        for earlier in range(clause - 1, -1, -1):
            lent = self._fitting(terms_by_clause[earlier], number)
            if lent:
                return SubjectRule(frozenset(lent), every=False)
        return None

    def _fitting(self, terms: list[str], number: Number) -> list[str]:
        """The terms that may be the subject of ``number``, judging by what the snippets say."""
        kind = _kind_class(number)
        return [term for term in terms if (kinds := self._kinds_of(term)) is None or kind in kinds]

    def _kinds_of(self, term: str) -> frozenset[str] | None:
        """The kinds of number the snippets state about ``term``; None if they say nothing."""
        if term not in self._kinds:
            found = [f.kinds_by_term[term] for f in self._facts if term in f.kinds_by_term]
            self._kinds[term] = frozenset().union(*found) if found else None
        return self._kinds[term]

    def _check_number(
        self,
        number: Number,
        rule: SubjectRule | None,
        counted: str | None,
        sentence: str,
        ordinal: bool,
    ) -> NumberCheck:
        key = number.lookup_key
        candidates = [
            _Support(rank, fact)
            for rank, facts in enumerate(self._facts)
            for fact in facts.by_key.get(key, ())
            if supports_same_key(number, fact.number) and _counts_the_same(counted, fact)
        ]
        if ordinal:
            # "2. Kontrollera …" is step 2 of a list: only that step supports it.
            context = _terms(sentence)
            candidates = [
                c
                for c in candidates
                if is_list_ordinal(c.line.text, c.number)
                and _mostly_within(context, _terms(c.line.text))
            ]
        if not candidates:
            reason = AMBIGUOUS_FORM if number.ambiguous else NOT_IN_SNIPPETS
            return NumberCheck(number, rule, None, _unsupported(number, reason))
        if rule is None:
            if number.kind in _TOPICAL_KINDS:
                # A bare value ("24 hours", "2.") is common: the supporting line
                # must also be about what the sentence talks about.
                own = _terms(number.text)  # "hours" in "4 hours" says nothing of the topic
                context = _terms(sentence)
                candidates = [
                    c
                    for c in candidates
                    if _overlap(context - own, _line_terms(c.line) - _terms(c.number.text))
                ]
                if not candidates:
                    return NumberCheck(number, None, None, _unsupported(number, TOPIC_MISMATCH))
            return NumberCheck(number, None, self._citation(candidates[0], None), None)
        for support in candidates:
            about, heading_line = self._about(support, rule)
            if about:
                return NumberCheck(number, rule, self._citation(support, heading_line), None)
        return NumberCheck(number, rule, None, _unsupported(number, SUBJECT_MISMATCH))

    def _about(self, support: _Support, rule: SubjectRule) -> tuple[bool, int | None]:
        """Whether the supporting line is about what ``rule`` asks, and the heading line used.

        What the line names is its labelled segment plus the headings above it.
        The nearest heading that was needed is returned when it lies inside the
        chunk, so the citation can show it.
        """
        fact = support.fact
        missing = rule.terms - fact.segment_terms
        if not missing or (not rule.every and len(missing) < len(rule.terms)):
            return True, None
        nearest_used = None
        for heading_line, terms in fact.heading_terms:
            found = missing & terms
            if not found:
                continue
            if nearest_used is None:
                nearest_used = heading_line
            missing -= found
            if not rule.every or not missing:
                return True, nearest_used
        return False, None

    def _citation(self, support: _Support, heading_line: int | None) -> Citation:
        analysis = self._analyses[support.rank]
        line = support.line
        citation = analysis.citations.get((line.index, heading_line))
        if citation is None:
            snippet = self.snippets[support.rank]
            first = line.index
            if heading_line is not None and 0 < line.number - heading_line < _CITATION_LINES:
                first = line.index - (line.number - heading_line)
            texts = [entry.text for entry in analysis.lines[first : line.index + 1]]
            citation = analysis.citations[line.index, heading_line] = Citation(
                file=snippet.file,
                snippet="\n".join(text.rstrip() for text in texts),
                line=line.number - (line.index - first),
                score=snippet.score,
            )
        return citation

    def verdict(self, answer: str) -> Verdict:
        """The verdict on a whole answer."""
        if not self.snippets:
            return Verdict(grounded=False, citations=[], unsupported=[], reason=NO_SUPPORT)
        citations: dict[Citation, None] = {}  # ordered and without repeats
        unsupported: list[UnsupportedNumber] = []
        checked_any = False
        for sentence in split_sentences(answer):
            for check in self.check_sentence(sentence):
                checked_any = True
                if check.unsupported is not None:
                    unsupported.append(check.unsupported)
                else:
                    citations[check.citation] = None
        if unsupported:
            top = self._best_lines(answer, self._analyses[:MAX_FAILURE_CITATIONS])
            return Verdict(False, top, unsupported, failure_reason(unsupported[0]))
        if not checked_any:
            return Verdict(True, self._best_lines(answer, self._analyses, limit=1), [], None)
        return Verdict(grounded=True, citations=list(citations), unsupported=[], reason=None)

    def _best_lines(
        self, answer: str, analyses: Sequence[_SnippetAnalysis], *, limit: int | None = None
    ) -> list[Citation]:
        """For each snippet, the line sharing most words with ``answer``.

        In snippet (retrieval) order, or only the best ``limit`` of them.
        """
        words = _words(answer)
        ranked = []
        for rank, analysis in enumerate(analyses):
            content = [line for line in analysis.lines if line.text.strip()] or list(analysis.lines)
            best = max(
                content,
                key=lambda line: (len(words & _words(line.text)), not line.is_heading, -line.index),
            )
            overlap = len(words & _words(best.text))
            ranked.append((overlap, -rank, rank, best))
        if limit is not None:
            ranked.sort(key=lambda entry: entry[:2], reverse=True)
            ranked = ranked[:limit]
        return [self._line_citation(rank, line) for _, _, rank, line in ranked]

    def _line_citation(self, rank: int, line: _Line) -> Citation:
        snippet = self.snippets[rank]
        return Citation(snippet.file, line.text.rstrip(), line.number, snippet.score)


_WORD = re.compile(r"[^\W\d_]{2,}")
_OVERLAP_STOPWORDS = frozenset(
    str.split(
        "och eller att som en ett det den är har för från till med på av om the and of to is for"
        " with on in at kan du vi ni jag"
    )
)


_COUNTED = re.compile(r"[ \u00a0]?([^\W\d_]{3,})")
_PLAIN_KINDS = frozenset({NumberKind.INTEGER, NumberKind.DECIMAL})


def counted_word(text: str, number: Number) -> str | None:
    """What a plain number counts, when the word right after it says so ("3 kopior").

    Units are compared by ``supports`` already; this covers the other nouns,
    so "1 kopior" is not supported by "1 TB" just because both say 1.
    """
    if number.unit is not None or number.kind not in _PLAIN_KINDS:
        return None
    match = _COUNTED.match(text, number.end)
    if match is None:
        return None
    word = match.group(1).lower()
    return None if word in STOPWORDS else word


def _same_word(a: str, b: str) -> bool:
    # Inflections share their start: kopia/kopior, användare/användarna.
    stem = min(len(a), len(b), 5)
    return a[:stem] == b[:stem]


def _counts_the_same(counted: str | None, fact: _Fact) -> bool:
    """The supporting number counts the same thing, or its line names it."""
    if counted is None:
        return True
    if fact.number.kind not in _PLAIN_KINDS or fact.number.unit is not None:
        return False  # "10 månader" is not supported by "10 %" or "10 TB"
    line = fact.line.text
    kb_counted = counted_word(line, fact.number)
    if kb_counted is not None:
        return _same_word(counted, kb_counted)
    return any(_same_word(counted, word.lower()) for word in _LINE_WORDS.findall(line))


_LINE_WORDS = re.compile(r"[^\W\d_]{3,}")
_TOPICAL_KINDS = frozenset({NumberKind.INTEGER, NumberKind.DECIMAL, NumberKind.PERCENT})


@lru_cache(maxsize=8192)
def _terms(text: str) -> frozenset[str]:
    return frozenset(t for t in content_terms(text) if not any(ch.isdigit() for ch in t))


_ORDINAL = re.compile(r"\s*(?:[-*]\s+)?(\d{1,2})\.\s")


def is_list_ordinal(text: str, number: Number) -> bool:
    """Whether ``number`` numbers a list item: "2. Kontrollera …" at the start of ``text``."""
    match = _ORDINAL.match(text)
    return match is not None and match.start(1) == number.start


def _mostly_within(answer: frozenset[str], line: frozenset[str]) -> bool:
    """Most of the answer's terms are the line's: it is the same step, not another one."""
    return bool(answer) and len(answer & line) * 2 >= len(answer)


def _overlap(a: frozenset[str], b: frozenset[str]) -> bool:
    """Shared terms, counting a term inside a compound ("ränt" in "dröjsmålsränt")."""
    if a & b:
        return True
    return any(x in y for x in a for y in b if len(x) >= 4) or any(
        y in x for x in a for y in b if len(y) >= 4
    )


def _line_terms(line: "_Line") -> frozenset[str]:
    """What a KB line is about: its words and the headings above it."""
    return _terms(line.text).union(*(_terms(title) for _, title in line.headings))


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    # Five-letter prefixes stand in for stemming: "priset" and "priser" meet.
    return frozenset(
        word[:5]
        for word in (w.lower() for w in _WORD.findall(text))
        if word not in _OVERLAP_STOPWORDS
    )


_VALUE_KINDS = frozenset({NumberKind.INTEGER, NumberKind.DECIMAL, NumberKind.PERCENT})


def _kind_class(number: Number) -> str:
    return "value" if number.kind in _VALUE_KINDS else str(number.kind)


def _unsupported(number: Number, reason: str) -> UnsupportedNumber:
    return UnsupportedNumber(text=number.text, kind=str(number.kind), reason=reason)


def verify_answer(
    answer: str, snippets: Sequence[Snippet], *, subjects: frozenset[str] = frozenset()
) -> Verdict:
    """Whether every number of ``answer`` is backed by a line of ``snippets``, with citations.

    ``subjects`` is the KB-wide vocabulary (``kb_subjects``); the snippets' own
    labels are added to it.
    """
    return AnswerChecker(snippets, subjects=subjects).verdict(answer)
