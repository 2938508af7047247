"""Stream an answer without leaking an unverified number.

Pure: no ORM, no I/O. Prose goes out as it arrives, a whole word at a time;
from the first number or bracket of a sentence on, the text is held until the
sentence is complete, then its numbers are checked against the facts they cite
by ``CitedChecker.read_sentence`` (what ``verify_cited`` runs) and the sentence
is released without its references, or the stream stops at the first number
that fails. Each released number's fact is kept (``links``): the response says
where each number of the answer comes from.

| the sentence so far | released |
|---|---|
| words, no number | every complete word; the last one waits until a space or sign ends it (it may grow into "femhundra") |
| a digit, a number word ("fem", "twenty", "halva"), a digit of another form ("²"), a "[" or "【" (a reference or chunk marker) | the text before it; the rest waits for the sentence's end and its check, and goes out without references and chunk markers |
| "en", "ett", "one" | waits for the next word: before a unit, currency, period or scale word it is a number (held as above), else it was an article and goes out |
| an ordinal after "var", "varje", "every" ("var tolfte") | held as a number |
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from grounding.cited import CitedChecker, failure_reason
from grounding.facts import Fact
from grounding.lookup import FactLookup
from grounding.numerals import ARTICLES, is_quantity_word, may_start_number
from grounding.sentences import find_sentence_end
from grounding.snippets import Snippet, UnsupportedNumber

_DIGIT = re.compile(r"\d|\[|【")
# A sentence with a number longer than this is withheld unread: an answer's sentences are a
# few hundred characters, and a check costs each number a pass over its fact's group.
MAX_SENTENCE_CHARS = 2000
TOO_LONG = f"a sentence with numbers over {MAX_SENTENCE_CHARS} characters"
_NUMBER = re.compile(r"\d+(?:[ .,:\u00a0]\d+)*")
_REFERENCE = re.compile(r"\[[^\]]*\]|【[^】]*】")


@dataclass(frozen=True, slots=True)
class NumberLink:
    """A number of the released text and the fact it was checked against."""

    start: int  # offsets in ``GuardedStream.released``
    end: int
    text: str
    fact: Fact

    def as_dict(self) -> dict:
        return {
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "file": self.fact.file,
            "line": self.fact.line,
            "fact": self.fact.fact_id,
        }


_SENTENCE_MARKS = frozenset(".!?\n")
_WORD = re.compile(r"[^\W\d_]+")
# Held back with the digits that follow them: "+46", "-5", "(08)", ".5".
_NUMBER_LEAD = "+-\u2212(.,"


class GuardedStream:
    """Feed the LLM's deltas in; get back only what is safe to send."""

    def __init__(
        self,
        snippets: Sequence[Snippet],
        *,
        facts: FactLookup | None = None,
        question: str = "",
        cards: Sequence[Fact] = (),
    ):
        self.checker = CitedChecker(snippets, facts=facts, question=question, cards=cards)
        self.failed: UnsupportedNumber | None = None
        self.links: list[NumberLink] = []
        self._length = 0  # of everything released
        self._released: list[str] = []
        self._sentence = ""  # the sentence being received, released part included
        self._sent = 0  # how much of it has been released
        self._scan = 0  # where its end is looked for next
        self._holding = False  # a digit arrived: the rest waits for the sentence end
        self._finished = False

    @property
    def released(self) -> str:
        """Everything released so far."""
        return "".join(self._released)

    @property
    def reason(self) -> str | None:
        """The client-facing reason the stream stopped, if it did."""
        return failure_reason(self.failed) if self.failed is not None else None

    @property
    def stopped(self) -> bool:
        """Whether the stream stopped (a number failed): the caller stops reading."""
        return self.failed is not None

    @property
    def problem(self) -> str | None:
        """What failed, in the words a model can act on (the repair round trip's reason):
        the number as written, its kind and the check it failed."""
        failed = self.failed
        if failed is None:
            return None
        return f'"{failed.text}" ({failed.kind}): {failed.reason}'

    def feed(self, delta: str) -> str:
        """Take the next delta; return the text that is safe to send now (maybe "")."""
        if self.failed is not None or self._finished or not delta:
            return ""
        self._sentence += delta
        out: list[str] = []
        while True:
            end, self._scan = find_sentence_end(self._sentence, self._scan)
            if end is None:
                break
            if not self._close_sentence(self._sentence[:end], out):
                return self._emit(out)
            self._start_sentence(self._sentence[end:])
        if self._holding and len(self._sentence) > MAX_SENTENCE_CHARS:
            self._too_long(self._sentence)
            return self._emit(out)
        self._release_prose(out)
        return self._emit(out)

    def _too_long(self, sentence: str) -> None:
        """A sentence with a number that no sentence of an answer needs to be: withheld
        unread (checking it would cost its numbers times their facts' groups)."""
        self.failed = UnsupportedNumber(sentence[:40], "sentence", TOO_LONG)

    def cancel(self) -> None:
        """The turn is gone: a check running now in another thread stops at its next number
        (``grounding.cited.CheckCancelled``), and no later one starts."""
        self.checker.cancel()

    def numbers_to_check(self, delta: str) -> int:
        """About how many numbers ``feed(delta)`` would verify (0: it verifies none; every
        other delta costs microseconds and is fed in place).

        Each costs a pass over its fact's group, so a sentence of many numbers is costly
        even on a small KB: a caller on an event loop hands such a ``feed`` to a thread.
        """
        if not _SENTENCE_MARKS.intersection(delta):
            return 0
        text = self._sentence + delta
        end, _ = find_sentence_end(text, self._scan)
        if end is None or not (self._holding or _DIGIT.search(text, 0, end)):
            return 0
        return max(1, len(_NUMBER.findall(_REFERENCE.sub(" ", text[:end]))))

    def finish(self) -> str:
        """The answer is complete: verify and return the rest, or "" if it fails."""
        if self.failed is not None or self._finished:
            return ""
        self._finished = True
        out: list[str] = []
        if self._sentence:
            self._close_sentence(self._sentence, out)
            self._sentence = ""
        return self._emit(out)

    def _start_sentence(self, text: str) -> None:
        self._sentence, self._sent, self._scan, self._holding = text, 0, 0, False

    def _close_sentence(self, sentence: str, out: list[str]) -> bool:
        if len(sentence) > MAX_SENTENCE_CHARS and _DIGIT.search(sentence):
            self._too_long(sentence)
            return False
        clean, checks = self.checker.read_sentence(sentence)
        for check in checks:
            if check.unsupported is not None:
                self.failed = check.unsupported
                return False
        # What was released of it holds no bracket: it reads the same without references.
        start = self._length + sum(map(len, out)) - self._sent
        for check in checks:
            if check.fact is not None:
                number = check.number
                text = clean[number.start : number.end].rstrip(".,;:!?")
                self.links.append(
                    NumberLink(
                        start + number.start, start + number.start + len(text), text, check.fact
                    )
                )
        out.append(clean[self._sent :])
        return True

    def _release_prose(self, out: list[str]) -> None:
        if self._holding:
            return
        cut, self._holding = self._hold_point()
        while cut > self._sent and self._sentence[cut - 1] in _NUMBER_LEAD:
            cut -= 1
        if cut > self._sent:
            out.append(self._sentence[self._sent : cut])
            self._sent = cut

    def _hold_point(self) -> tuple[int, bool]:
        """Where the releasable prose ends, and whether a number starts there (the table)."""
        sentence = self._sentence
        digit = _DIGIT.search(sentence, self._sent)
        limit = digit.start() if digit is not None else len(sentence)
        previous = ""
        for word in _WORD.finditer(sentence, self._sent, limit):
            if word.end() == len(sentence):
                return word.start(), False  # it may grow into a number word
            text = word[0]
            if text.lower() in ARTICLES:
                following = _WORD.match(sentence, word.end() + 1)
                if following is None or following.end() == len(sentence):
                    return word.start(), False  # decided by the next word
                if is_quantity_word(sentence, word.end()):
                    return word.start(), True
            elif may_start_number(text, previous):
                return word.start(), True
            previous = text
        return limit, digit is not None

    def _emit(self, out: list[str]) -> str:
        text = "".join(out)
        if text:
            self._released.append(text)
            self._length += len(text)
        return text


class ContinuedStream:
    """A second answer (the repair round trip) that must begin with what the customer already
    saw of the first: ``shown``, the first guard's ``released``.

    ``guard`` (a fresh ``GuardedStream``) checks the new answer as it streams; ``feed`` and
    ``finish`` return only what it releases beyond ``shown``. Once its released text differs
    from ``shown`` (at the first character that differs, or when it ends shorter) the stream
    ``diverged``: it stops, and the answer is not ``accepted``. Pure, like the guard.
    """

    def __init__(self, guard: GuardedStream, shown: str) -> None:
        self.guard = guard
        self.shown = shown
        self.diverged = False
        self._sent = len(shown)
        self._finished = False

    @property
    def stopped(self) -> bool:
        return self.diverged or self.guard.failed is not None

    @property
    def accepted(self) -> bool:
        """The whole new answer was checked, began with ``shown``, and no number failed."""
        return self._finished and not self.stopped

    def numbers_to_check(self, delta: str) -> int:
        return self.guard.numbers_to_check(delta)

    def cancel(self) -> None:
        self.guard.cancel()

    def feed(self, delta: str) -> str:
        if self.stopped or self._finished:
            return ""
        self.guard.feed(delta)
        return self._beyond_shown()

    def finish(self) -> str:
        if self.stopped or self._finished:
            return ""
        self._finished = True
        self.guard.finish()
        out = self._beyond_shown()
        if not self.guard.released.startswith(self.shown):
            self.diverged = True  # it ended within what was shown
        return "" if self.stopped else out

    def _beyond_shown(self) -> str:
        released, shown = self.guard.released, self.shown
        if not (released.startswith(shown) or shown.startswith(released)):
            self.diverged = True
            return ""
        if len(released) <= self._sent:
            return ""
        out, self._sent = released[self._sent :], len(released)
        return out
