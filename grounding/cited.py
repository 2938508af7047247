"""The guard's rule: every number of an answer is checked against the fact it cites.

Pure: no ORM, no I/O. The generator writes a reference after every number
(:mod:`grounding.references`); the checker reads the answer without them and
holds each number (a claim, :mod:`grounding.claims`) against the fact its
reference names (a fact, :mod:`grounding.facts`). A number passes when every
row holds:

| # | check | holds when | else |
|---|---|---|---|
| 1 | reference | the number carries one; or it is part of a name the KB uses ("Zon 2", "SE4", a retrieved line's "tolvmånadersperiod") and carries none | ``no reference`` |
| 2 | retrieved | the cited line was retrieved for this question (``[Q]``: the question states the number) | ``not retrieved`` / ``not in the question`` |
| 3 | stated | a fact of the cited line states it: value (or an end of its range), kind, unit, period, bound, condition, days (the table of :mod:`grounding.rule`); a clock written as bare hours or a unit of the same dimension is read again | ``not stated by the cited line`` (or what differs) |
| 4 | key | the sentence or the question names the fact's key (its entity or attribute: a lemma, a compound part, an alias from the KB's other language) | ``does not name the cited fact`` |
| 5 | group | the number's own clause names no other member of the fact's group (the other rows of its column, the other columns of its row, the other labelled lines under its heading, a line with its label in another section, a like number in another section whose key shares two of its key's terms, the other numbers of its line); the question neither, when the clause names nothing of the fact's key | ``wrong subject`` |

Everything language-specific (lemmas, compounds, numerals, units, bound
words) is in :mod:`grounding.lexicon` and :mod:`grounding.terms`; the facts'
keys and groups are read once, at index time (:mod:`grounding.facts`,
:mod:`grounding.lookup`).
"""

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from grounding.claims import Claim, as_bare_hours, as_clock, extract_claims, in_other_units
from grounding.facts import Fact
from grounding.lookup import FactLookup, FactTable, naming
from grounding.notation import Kind
from grounding.numerals import is_numeral_compound, spelled_out
from grounding.references import QUESTION, Reference, strip_references
from grounding.rule import (
    CALENDAR,
    SUBJECT_MISMATCH,
    could_be_stated_from,
    is_identifier,
    stated_alike,
    value_matches,
)
from grounding.sentences import split_sentences
from grounding.snippets import Citation, Snippet, UnsupportedNumber, best_lines
from grounding.terms import sentence_language, terms, text_language

NO_REFERENCE = "no reference"
NOT_RETRIEVED = "cites a line not retrieved for this question"
NOT_IN_QUESTION = "cites the question, which does not state it"
NOT_STATED = "not stated by the cited line"
KEY_NOT_NAMED = "does not name what the cited fact is about"

NO_SUPPORT = "No support"
NUMBER_MISMATCH = "Verification failed: Number mismatch"
WRONG_SUBJECT = "Verification failed: Wrong subject"
_SUBJECT_REASONS = frozenset({SUBJECT_MISMATCH, KEY_NOT_NAMED})
MAX_FAILURE_CITATIONS = 3


class CheckCancelled(Exception):
    """The turn whose answer was being checked is gone: ``CitedChecker.cancel`` was called."""


def failure_reason(unsupported: UnsupportedNumber) -> str:
    """The short reason a client sees for an answer withheld because of ``unsupported``."""
    return WRONG_SUBJECT if unsupported.reason in _SUBJECT_REASONS else NUMBER_MISMATCH


@dataclass(frozen=True, slots=True)
class Verdict:
    grounded: bool
    citations: list[Citation]
    unsupported: list[UnsupportedNumber]
    reason: str | None = None


class NumberCheck(NamedTuple):
    """One number of an answer: its fact and citation, or why it has none."""

    number: Claim  # offsets in the sentence without its references
    citation: Citation | None
    unsupported: UnsupportedNumber | None
    fact: Fact | None = None
    reference: str = ""  # as the generator wrote it ("priser.md:12", "Q", "")


class CitedChecker:
    """The retrieved snippets and the KB's facts, for checking cited answers sentence by sentence.

    ``facts`` is the KB-wide lookup (the index's); without one, only the
    snippets' own facts exist. ``question`` lends its terms to the key check,
    its numbers to ``[Q]`` and its language to the reading of numbers.

    A check on a KB of thousands of like facts can take seconds of pure Python, in a thread
    that nothing can interrupt from outside; ``cancel`` (from any thread) makes it stop at the
    next number or sibling it weighs, raising ``CheckCancelled``.
    """

    def __init__(
        self,
        snippets: Sequence[Snippet],
        *,
        facts: FactLookup | None = None,
        question: str = "",
        cards: Sequence[Fact] = (),
        uncited: bool = False,
    ):
        self.snippets = tuple(snippets)
        # A person's message (an agent's reply) cites nothing: each number is checked as if it
        # cited each fact of the KB stating its value, and passes when one passes rows 3-5.
        self.uncited = uncited
        self.facts = facts if facts is not None else FactTable.from_snippets(self.snippets)
        self.question = question
        self.language = text_language(question) if question.strip() else None
        self.question_terms = terms(question, self.language) if self.language else frozenset()
        self._question_values = (
            frozenset(c.value for c in extract_claims(question, language=self.language))
            if self.language
            else frozenset()
        )
        self._retrieved: dict[tuple[str, int], float] = {}
        for snippet in self.snippets:
            for number, _ in snippet.lines():
                self._retrieved.setdefault((snippet.file, number), snippet.score)
        for card in cards:  # the generator got these facts' lines too
            self._retrieved.setdefault((card.file, card.line), 0.0)
        self._files = self.facts.files | {file for file, _ in self._retrieved}
        self._checked: dict[str, tuple[str, list[NumberCheck]]] = {}
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        """Stop the check running now (in another thread) and every later one."""
        self._cancelled.set()

    def _go_on(self) -> None:
        if self._cancelled.is_set():
            raise CheckCancelled("the answer's turn was closed during its check")

    # -- sentences ---------------------------------------------------------------

    def check_sentence(self, sentence: str) -> list[NumberCheck]:
        """Every number of one sentence (as ``split_sentences`` cuts them), checked."""
        return self.read_sentence(sentence)[1]

    def read_sentence(self, sentence: str) -> tuple[str, list[NumberCheck]]:
        """The sentence as the customer sees it (no references) and its numbers, checked."""
        found = self._checked.get(sentence)
        if found is None:
            clean, references = strip_references(sentence)
            language = sentence_language(clean, self.language)
            claims = (
                extract_claims(clean, language=language)
                if _DIGIT.search(clean) or spelled_out(clean, language)
                else []
            )
            claims = [claim for claim in claims if not _list_marker(claim, clean)]
            checks = []
            for claim in claims:
                self._go_on()
                checks.append(
                    self._check(claim, clean, _reference_after(claim, references), claims)
                )
            found = self._checked[sentence] = (clean, checks)
        return found

    # -- one number --------------------------------------------------------------

    def _check(
        self,
        claim: Claim,
        sentence: str,
        reference: Reference | None,
        claims: Sequence[Claim] = (),
    ) -> NumberCheck:
        if self._is_name(claim, sentence, reference, claims):
            return NumberCheck(claim, None, None)
        if reference is None and self.uncited:
            return self._check_facts(claim, sentence, self.facts.by_value(claim.key), claims)
        if reference is None:
            return self._fail(claim, NO_REFERENCE)
        if reference.is_question:
            if any(_same_value(claim.value, value) for value in self._question_values):
                return NumberCheck(claim, None, None, reference=reference.target)
            return self._fail(claim, NOT_IN_QUESTION, reference)
        cited = self._cited(reference)
        if not cited:
            return self._fail(claim, NOT_STATED, reference)
        if not any((fact.file, fact.line) in self._retrieved for fact in cited):
            return self._fail(claim, NOT_RETRIEVED, reference, cited)
        return self._check_facts(claim, sentence, cited, claims, reference)

    def _check_facts(
        self,
        claim: Claim,
        sentence: str,
        cited: Sequence[Fact],
        claims: Sequence[Claim],
        reference: Reference | None = None,
    ) -> NumberCheck:
        """Rows 3-5 against the cited facts: the first that passes them supports the claim."""
        stating, reasons = self._stating(claim, sentence, cited)
        if not stating:
            reason = reasons[0] if reasons else NOT_STATED
            return self._fail(claim, reason, reference, cited)
        reason = KEY_NOT_NAMED
        stated = frozenset(other.value for other in claims if other is not claim)
        target = reference.target if reference else ""
        for fact in stating:
            self._go_on()
            reason = self._bound_to(claim, fact, stated)
            if reason is None:
                return NumberCheck(claim, self._citation(fact), None, fact, target)
        return self._fail(claim, reason, reference, cited)

    def _cited(self, reference: Reference) -> list[Fact]:
        if reference.is_fact_id:
            fact = self.facts.by_id(reference.target)
            return [fact] if fact is not None else []
        path, line = reference.locator
        file = self._resolve(path)
        return list(self.facts.on_line(file, line)) if file else []

    def _resolve(self, path: str) -> str | None:
        """The KB file a reference's path names: itself, or the one file it is the end of
        (a generator may drop or keep the KB folder: "pricing.md" for "kb/pricing.md")."""
        for file in (path, f"kb/{path}"):
            if file in self._files:
                return file
        return _resolve(path, frozenset(self._files))

    def _stating(
        self, claim: Claim, sentence: str, cited: Sequence[Fact]
    ) -> tuple[list[Fact], list[str]]:
        """The cited facts that state the claim (row 3), and why the others do not."""
        readings = [claim]
        clock = as_clock(claim, sentence[: claim.start])
        readings += [clock] if clock else []
        bare = as_bare_hours(claim)
        readings += [bare] if bare else []
        readings += in_other_units(claim)
        stating, reasons = [], []
        for fact in cited:
            self._go_on()
            for reading in readings:
                if not value_matches(reading, fact):
                    continue
                reason = stated_alike(reading, fact)
                if reason is None:
                    stating.append(fact)
                    break
                reasons.append(reason)
        return stating, reasons

    def _bound_to(self, claim: Claim, fact: Fact, stated: frozenset[str]) -> str | None:
        """Rows 4 and 5: None when the claim is about the fact, else the reason.

        A sibling is named when the claim's clause names it more than it names what the
        fact's key has and the sibling's lacks (a name counts twice another word), or names
        all of the sibling's own names, a name among them, and only part of the fact's ("the
        Stockholm office" citing the row "Göteborg (head office)"). A sibling
        whose value the sentence states too is named for that number, unless it is of another
        section and the number's own clause names it ("Plus kostar 499 kr [Max's line] och Max
        299 kr [Plus's line]").
        """
        said = claim.subject | self.question_terms
        key = self.facts.key_names(fact)
        if not key & said:
            return KEY_NOT_NAMED
        clause = naming(claim.qualifiers | claim.lead)
        # The clause decides; the question only when the clause names nothing of the key.
        places = [clause] if key & clause else [clause, naming(self.question_terms)]
        for sibling, names in self.facts.siblings(fact, named_by=frozenset().union(*places)):
            self._go_on()
            if not could_be_stated_from(claim, sibling):
                continue
            if sibling.value in stated and (
                sibling.group == fact.group or not names & claim.qualifiers
            ):
                continue  # named for the sentence's other number
            own = key - sibling.key
            if _other_section(fact, sibling):
                # Another section's line is told apart by what it is about, never by the days
                # its line names ("Västerås ... måndag–fredag 9–16" citing Örebro's hours).
                own = frozenset(term for term in own if not term.startswith(CALENDAR))
            if any(
                self._weight(names & words) > self._weight(own & words)
                or (names <= words and self._has_name(names) and not own <= words)
                for words in places
            ):
                return SUBJECT_MISMATCH
        return None

    def _has_name(self, found: frozenset[str]) -> bool:
        """Whether ``found`` holds a name (a label, a row key, a column), not only verbs."""
        return any(self.facts.weight(term) > 1 for term in found)

    def _weight(self, found: frozenset[str]) -> float:
        """Names (a label, a row key, a column) count twice a verb or "pris"."""
        return sum(self.facts.weight(term) for term in found)

    def _is_name(
        self, claim: Claim, sentence: str, reference: Reference | None, claims: Sequence[Claim]
    ) -> bool:
        """Row 1: a number that is part of a name of the KB's ("Zon 2", "SE4", "Fixed 3
        years"), with no reference of its own: the reference after it is another number's."""
        if claim.kind is Kind.CODE and is_identifier(claim):
            return any(f.value == claim.value for f in self.facts.by_value(claim.key))
        if is_numeral_compound(claim.text.strip()):
            # A word the retrieved lines write as it is ("tolvmånadersperiod"): the KB's term.
            word = re.compile(rf"(?<!\w){re.escape(claim.text.strip())}(?!\w)", re.IGNORECASE)
            return any(word.search(snippet.text) for snippet in self.snippets)
        digits = _DIGITS.match(claim.text.strip())
        if digits is None:
            return False
        if reference is not None and reference.position - claim.end <= 1:
            return False  # cited right after it: a quantity, not a name
        before = _WORD_BEFORE.search(sentence, 0, claim.start)
        window = frozenset(
            w.lower()
            for w in _WINDOW_WORD.findall(
                sentence, max(0, claim.start - 40), min(len(sentence), claim.end + 40)
            )
        )
        return self.facts.is_name(before[1] if before else "", str(int(digits[0])), window)

    # -- results -----------------------------------------------------------------

    def _fail(
        self,
        claim: Claim,
        reason: str,
        reference: Reference | None = None,
        cited: Sequence[Fact] = (),
    ) -> NumberCheck:
        locations = [
            {"file": fact.file, "line": fact.line, "text": fact.text.strip()} for fact in cited[:1]
        ]
        target = reference.target if reference else ""
        return NumberCheck(
            claim,
            None,
            UnsupportedNumber(claim.text, str(claim.kind), reason, locations),
            reference=target,
        )

    def _citation(self, fact: Fact) -> Citation:
        return _fact_citation(fact, self._retrieved.get((fact.file, fact.line), 0.0))

    def verdict(self, answer: str) -> Verdict:
        """The verdict on a whole answer: grounded when every number passes; an answer with
        no number is grounded on what was retrieved, and unsupported without it."""
        citations: dict[Citation, None] = {}
        unsupported: list[UnsupportedNumber] = []
        checked_any = from_question = False
        for sentence in split_sentences(answer):
            for check in self.check_sentence(sentence):
                checked_any = True
                from_question |= check.reference == QUESTION
                if check.unsupported is not None:
                    unsupported.append(check.unsupported)
                elif check.citation is not None:
                    citations[check.citation] = None
        if unsupported:
            top = best_lines(answer, self.snippets[:MAX_FAILURE_CITATIONS])
            return Verdict(False, top, unsupported, failure_reason(unsupported[0]))
        if from_question and not citations:
            # Only the question's own numbers: the answer is grounded in nothing of the KB.
            return Verdict(False, [], [], NO_SUPPORT)
        if not checked_any:
            if not self.snippets:
                return Verdict(False, [], [], NO_SUPPORT)
            return Verdict(True, best_lines(answer, self.snippets, limit=1), [], None)
        return Verdict(True, list(citations), [], None)


_DIGIT = re.compile(r"\d")
_WORD_BEFORE = re.compile(r"([^\W\d_][\w]*)[ \u00a0-]$")
_DIGITS = re.compile(r"\d{1,4}(?![\d.,:])")
_WINDOW_WORD = re.compile(r"[^\W\d_]+")
_LIST_MARKER = re.compile(r"\s*(?:[-*]\s+)?\d{1,2}[.)]\s")


def _list_marker(claim: Claim, sentence: str) -> bool:
    """A numbered list's "2." opens a step; it states nothing of the KB's."""
    if claim.kind is not Kind.ORDINAL:
        return False
    marker = _LIST_MARKER.match(sentence)
    return marker is not None and claim.start < marker.end()


def _reference_after(claim: Claim, references: Sequence[Reference]) -> Reference | None:
    """The first reference after the claim (a claim read with the sentence's final mark, "3
    pm.", ends after it): it belongs to every number since the reference before it."""
    end = claim.start + len(claim.text.rstrip(".,;:!?"))
    return next((ref for ref in references if ref.position >= end), None)


def _other_section(fact: Fact, sibling: Fact) -> bool:
    """Whether ``sibling`` is a line of another section of the fact's language (a parallel
    section's, or one with the same label), not a cell or a line of its own section."""
    return (
        fact.cell is None
        and sibling.cell is None
        and sibling.group != fact.group
        and sibling.language == fact.language
    )


def _same_value(value: str, other: str) -> bool:
    return value == other or value in other.split("-")


@lru_cache(maxsize=1024)
def _resolve(path: str, files: frozenset[str]) -> str | None:
    path = path.lstrip("./")
    found = [file for file in files if file.endswith("/" + path) or path.endswith("/" + file)]
    return found[0] if len(found) == 1 else None


@lru_cache(maxsize=4096)
def _fact_citation(fact: Fact, score: float) -> Citation:
    return Citation(file=fact.file, snippet=fact.text.rstrip(), line=fact.line, score=score)


def verify_cited(
    answer: str,
    snippets: Sequence[Snippet],
    *,
    facts: FactLookup | None = None,
    question: str = "",
    cards: Sequence[Fact] = (),
    uncited: bool = False,
) -> Verdict:
    """Whether every number of ``answer`` is stated by the fact it cites, about its subject
    (``uncited``: by a fact of the KB stating its value, for a person's message)."""
    checker = CitedChecker(snippets, facts=facts, question=question, cards=cards, uncited=uncited)
    return checker.verdict(answer)
