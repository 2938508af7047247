"""Where an answer's sentences end: the unit the guard holds back and the checker checks.

Pure: no ORM, no I/O. The streaming guard (:mod:`grounding.guard`) asks
``find_sentence_end`` as text arrives; the checker (:mod:`grounding.cited`) cuts
a whole answer with ``split_sentences``, so both see the same sentences.
"""

import re

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
