"""Verify an answer against the knowledge base: every number needs a supporting fact.

Pure: no ORM, no I/O. An answer is checked sentence by sentence with
``AnswerChecker.check_sentence``; the streaming guard calls the very same
method, so the verdict of a stream equals the verdict of the whole answer.

Each number of a sentence is a claim (:mod:`grounding.claims`). Its candidate
facts are the facts of the retrieved snippets and every fact of the KB with
the same value (``FactLookup.by_value``); the claim is supported when one of
them passes the rule of :mod:`grounding.rule`, and the citation is that
fact's line. Facts of the retrieved snippets are tried first.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import NamedTuple

from grounding.claims import Claim, as_bare_hours, as_clock, extract_claims, in_other_units
from grounding.facts import Fact
from grounding.lookup import NAME_WEIGHT, FactLookup, FactTable
from grounding.notation import Kind
from grounding.numerals import spelled_out
from grounding.rule import (
    CONDITION_MISMATCH,
    NOT_IN_KB,
    REASONS,
    SUBJECT_MISMATCH,
    TOPIC_MISMATCH,
    across_languages,
    conflicting_terms,
    could_be_stated_from,
    counts_for_topic,
    names_cell,
    on_topic,
    stated_alike,
    states,
    supports,
)
from grounding.snippets import Citation, Snippet, UnsupportedNumber, best_lines
from grounding.terms import sentence_language, terms, text_language

NO_SUPPORT = "No support"
NUMBER_MISMATCH = "Verification failed: Number mismatch"
WRONG_SUBJECT = "Verification failed: Wrong subject"

MAX_FAILURE_CITATIONS = 3
_NAME_REASONS = (SUBJECT_MISMATCH, TOPIC_MISMATCH)
MAX_LOCATIONS = 5
_ALL_LINES = 10**9


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


# --- the checker -------------------------------------------------------------

# Facts of these kinds compete with a fact of another kind for a claim of the key's kind: a
# plain count may be any of them, a time may be the end of a range or a time of its own.
# A phone number or a date whose line shares no term with the sentence still passes when no
# other one of the KB is about what the sentence names ("Ring oss på ..." with one phone).
_NAMED_BY_NO_OTHER = frozenset({Kind.PHONE, Kind.DATE})
_COMPETING_KINDS = {
    Kind.COUNT: (Kind.AMOUNT, Kind.QUANTITY, Kind.DURATION, Kind.COUNT),
    Kind.TIME: (Kind.TIME, Kind.TIME_RANGE),
}


class NumberCheck(NamedTuple):
    """The outcome for one number of an answer: a citation, or why there is none."""

    number: Claim
    citation: Citation | None
    unsupported: UnsupportedNumber | None
    fact: Fact | None = None  # the supporting fact


class AnswerChecker:
    """The retrieved snippets and the KB's facts, for checking answers sentence by sentence.

    ``facts`` is the KB-wide lookup (the index's); without one, only the
    snippets' own facts are candidates. ``question`` lends its terms to the
    topic check and its language to the reading of numbers ("1,500").
    """

    def __init__(
        self, snippets: Sequence[Snippet], *, facts: FactLookup | None = None, question: str = ""
    ):
        self.snippets = tuple(snippets)
        self.facts = facts if facts is not None else FactTable.from_snippets(self.snippets)
        self.language = text_language(question) if question.strip() else None
        self.question_terms = terms(question, self.language) if self.language else frozenset()
        self._context: dict[tuple[str, int], float] = {}  # (file, line) of retrieved lines -> score
        for snippet in self.snippets:
            for number, _ in snippet.lines():
                self._context.setdefault((snippet.file, number), snippet.score)
        # The stream's guard and the final verdict check the same sentences.
        self._checked: dict[str, list[NumberCheck]] = {}

    def check_sentence(self, sentence: str) -> list[NumberCheck]:
        """Check every number of one sentence (as ``split_sentences`` cuts them).

        A sentence checked before by this checker is not analysed again.
        """
        checked = self._checked.get(sentence)
        if checked is None:
            language = sentence_language(sentence, self.language)
            claims = (
                extract_claims(sentence, language=language)
                if _has_digit(sentence) or spelled_out(sentence, language)
                else []
            )
            alone = [self._check_read_as_clock(claim, sentence) for claim in claims]
            checked = self._checked[sentence] = [self._as_name(check, alone) for check in alone]
        return checked

    def _as_name(self, check: NumberCheck, alone: Sequence[NumberCheck]) -> NumberCheck:
        """Rule row 9: a number of a row's key or a column's header, named beside a number
        that a cell of that row (column) supports on its own, is supported as that name."""
        claim = check.number
        if check.unsupported is None or check.unsupported.reason not in _NAME_REASONS:
            return check
        cells = [
            other.fact
            for other in alone
            if other.fact is not None and other.fact.cell and states(claim, other.number)
        ]
        if not cells:
            return check
        for fact in self._candidates(claim):
            if stated_alike(claim, fact) is None and any(names_cell(fact, cell) for cell in cells):
                return NumberCheck(claim, self._citation(fact), None, fact)
        return check

    def _candidates(self, claim: Claim) -> list[Fact]:
        found = self.facts.by_value(claim.key)
        # Facts of the retrieved snippets first: their lines are what the answer was written from.
        return sorted(found, key=lambda fact: (fact.file, fact.line) not in self._context)

    def _siblings(self, claim: Claim, fact: Fact) -> list[Fact]:
        """The facts of ``fact``'s kind that share a term with the claim's clause.

        Facts in the fact's language, and facts in the other language only when
        their subject covers the claim's whole clause: words that two languages
        share by chance ("EU", "rabies") are no sign that a line in the other
        language is about the claim's subject.
        """
        found: dict[int, Fact] = {}
        kinds = _COMPETING_KINDS.get(claim.kind, ()) if claim.kind is not fact.kind else ()
        for term in claim.qualifiers | claim.lead:
            for other in chain.from_iterable(
                self.facts.qualified_by(term, kind) for kind in (fact.kind, *kinds)
            ):
                if other.language == fact.language:
                    found[id(other)] = other
                elif claim.qualifiers <= other.subject:
                    found[id(other)] = other  # says all the claim says, in the claim's language
        return list(found.values())

    def _check_read_as_clock(self, claim: Claim, sentence: str) -> NumberCheck:
        """``_check``; a claim that fails is checked again as a clock (or a clock range as bare
        hours), then in each other unit of its dimension (``claims.in_other_units``).

        "8–18" is "08:00–18:00" and "till 19" is "19:00" when the KB states that clock, and
        "07:00 to 21:00" is the KB's "every day 7–21".
        """
        checked = self._check(claim)
        if checked.unsupported is None:
            return checked
        clock = as_clock(claim, sentence[: claim.start])
        if clock is None and checked.unsupported.reason == NOT_IN_KB:
            clock = as_bare_hours(claim)  # only where the KB states no such clock at all
        # In another unit: "0,886 kr/kWh" is the KB's "88,60 öre/kWh", "90 minuter" its "1,5 timme".
        for again in ([clock] if clock else []) + in_other_units(claim):
            result = self._check(again, across=False)
            if result.unsupported is None:
                return NumberCheck(claim, result.citation, None, result.fact)
        return checked

    def _check(self, claim: Claim, *, across: bool = True) -> NumberCheck:
        """Rows 1-7b against the claim's candidates; ``across``: also the other language's
        lines, when none in the claim's own supports it (not for a claim read again as a clock
        or in another unit: "upp till 15 radiatorer" is no "3 pm")."""
        candidates = self._candidates(claim)
        stated = [(fact, stated_alike(claim, fact)) for fact in candidates]
        reasons = [reason for _, reason in stated if reason]
        alike = [fact for fact, reason in stated if reason is None]
        topical = on_topic(claim, alike, self.question_terms)
        # The lines the claim is most about state another bound or condition: a line about
        # something else that states none does not stand in for them.
        bounded = [fact for fact, reason in stated if reason == CONDITION_MISMATCH]
        nearest = on_topic(claim, alike + bounded, self.question_terms) if bounded else []
        if nearest and all(f in bounded for f in nearest):
            topical = alike = []
        elif not topical and claim.kind in _NAMED_BY_NO_OTHER and not self._named_elsewhere(claim):
            topical = alike  # no phone (date) of the KB is about what the sentence names
        if (found := self._supported_by(claim, topical, reasons)) is not None:
            return found
        if (
            across
            and not any(f.language != claim.language for f in topical)
            and not self._named_here(claim)
        ):
            # None in the claim's language supports it, nor states another value for what it
            # names: the other language's lines may.
            other = across_languages(claim, alike, self.question_terms)
            if (found := self._supported_by(claim, other, reasons)) is not None:
                return found
        if alike and not topical:
            named = any(
                conflicting_terms(claim, f, self._siblings(claim, f), self.facts.weight)
                for f in alike
            )
            reasons.append(SUBJECT_MISMATCH if named else TOPIC_MISMATCH)
        reason = min(reasons, key=REASONS.index) if reasons else NOT_IN_KB
        locations = [
            {"file": fact.file, "line": fact.line, "text": fact.text.strip()}
            for fact in candidates[:MAX_LOCATIONS]
        ]
        return NumberCheck(
            claim, None, UnsupportedNumber(claim.text, str(claim.kind), reason, locations)
        )

    def _supported_by(
        self, claim: Claim, facts: Sequence[Fact], reasons: list[str]
    ) -> NumberCheck | None:
        """The check of the first of ``facts`` that supports the claim (rows 4c-7b), or None;
        each reason it is not is added to ``reasons``."""
        for fact in facts:
            ok, reason = supports(
                claim,
                fact,
                siblings=self._siblings(claim, fact),
                file_facts=self.facts.in_lines(fact.file, 1, _ALL_LINES),
                weight=self.facts.weight,
                alternatives=self.facts.alternatives,
            )
            if ok:
                return NumberCheck(claim, self._citation(fact), None, fact)
            reasons.append(reason)
        return None

    def _named_here(self, claim: Claim) -> bool:
        """Whether a fact in the claim's language with another value is about a name of the
        claim's clause (a row key, a column, a "Label:" of the KB): "Med Bas kostar DC Snabb
        5,49 kr/kWh" is not the English "without a subscription, SEK 5.49 per kWh" when the
        Swedish table's Bas column states another price for DC Snabb."""
        for term in claim.qualifiers:
            if self.facts.weight(term) < NAME_WEIGHT:
                continue
            for kind in (claim.kind, *_COMPETING_KINDS.get(claim.kind, ())):
                for other in self.facts.qualified_by(term, kind):
                    if (
                        other.language == claim.language
                        and other.value != claim.value
                        and could_be_stated_from(claim, other)
                    ):
                        return True
        return False

    def _named_elsewhere(self, claim: Claim) -> bool:
        """Whether a fact of the claim's kind with another value is about a term of the sentence
        or the question: then a phone number (a date) whose own line shares none is withheld."""
        for term in claim.subject | self.question_terms:
            if not counts_for_topic(term):
                continue
            if any(
                other.value != claim.value for other in self.facts.qualified_by(term, claim.kind)
            ):
                return True
        return False

    def _citation(self, fact: Fact) -> Citation:
        score = self._context.get((fact.file, fact.line), 0.0)
        return _fact_citation(fact, score)

    def verdict(self, answer: str) -> Verdict:
        """The verdict on a whole answer.

        Without retrieved snippets, the answer's numbers are still checked
        against the KB's facts found by value: a fact retrieval missed
        supports its number all the same. An answer with nothing to check and
        nothing retrieved has no support.
        """
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
            top = best_lines(answer, self.snippets[:MAX_FAILURE_CITATIONS])
            return Verdict(False, top, unsupported, failure_reason(unsupported[0]))
        if not checked_any:
            if not self.snippets:
                return Verdict(grounded=False, citations=[], unsupported=[], reason=NO_SUPPORT)
            return Verdict(True, best_lines(answer, self.snippets, limit=1), [], None)
        return Verdict(grounded=True, citations=list(citations), unsupported=[], reason=None)


@lru_cache(maxsize=4096)
def _fact_citation(fact: Fact, score: float) -> Citation:
    return Citation(file=fact.file, snippet=fact.text.rstrip(), line=fact.line, score=score)


_DIGIT = re.compile(r"\d")


def _has_digit(text: str) -> bool:
    return _DIGIT.search(text) is not None


def verify_answer(
    answer: str,
    snippets: Sequence[Snippet],
    *,
    facts: FactLookup | None = None,
    question: str = "",
) -> Verdict:
    """Whether every number of ``answer`` is supported by a fact, with citations.

    ``facts`` is the KB-wide fact lookup (``KBIndex.facts``); without it only
    the snippets' own facts count.
    """
    return AnswerChecker(snippets, facts=facts, question=question).verdict(answer)
