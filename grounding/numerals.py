"""Numbers written in words (and in other digit forms) rewritten as digits, offsets kept.

Pure: no ORM, no I/O. ``spelled_out(text, language)`` finds every number a
text writes without ASCII digits and says which digits it stands for;
``with_digits`` applies them, so :mod:`grounding.notation` reads "femhundra
kronor" exactly as "500 kronor", and maps each reading back to the words.

| written | rewritten as | rule |
|---|---|---|
| ``femhundra``, ``tjugofem``, ``tvåtusen``, ``ettusen tvåhundra``, ``en halv miljon`` | ``500``, ``25``, ``2000``, ``1200``, ``500000`` | Swedish cardinals: the numeral parts of the table below, joined in one word or across a space before or after ``hundra``/``tusen``/``miljon``/``miljard`` (``tre hundra``, ``två hundra femtio``) |
| ``twenty-five``, ``two thousand``, ``one hundred and one``, ``half a million`` | ``25``, ``2000``, ``101``, ``500000`` | English cardinals: the same parts, words joined by spaces, hyphens, ``and`` or ``,`` (value by text2num) |
| ``en``, ``ett``, ``one`` | ``1`` only before a unit, currency, period, percent or scale word ("ett dygn", "one hour", "en miljon"), or opening a range ("från ett till och med 17 år", "one to three days"), and not right after a clock time | elsewhere an article or pronoun ("en ny router", "the right one", "före 11:00 en vardag"): no number |
| ``399 tusen``, ``1,5 miljoner``, ``5 million`` | ``399000``, ``1500000``, ``5000000`` | a scale word multiplies the digits before it |
| ``var tolfte timme``, ``every third day`` | ``var 12:e timme``, ``every 3:e day`` | an ordinal counts only after ``var``/``varje``/``every`` and before a unit; written as the digits are ("var 12:e timme", a count), so words and digits read alike |
| ``en och en halv timme``, ``two and a half hours`` | ``1.5 timme``, ``2.5 hours`` | a numeral word, then ``och en halv``/``and a half`` |
| ``treårsgaranti``, ``tvåveckors`` | ``3-årsgaranti``, ``2-veckors`` | a Swedish numeral heading a compound whose rest starts with a unit word |
| ``tusen tack``, ``en gång till``, ``one by one`` | nothing | idioms (``IDIOMS``): no number in them |
| ``en kvart``, ``en halvtimme``, ``half an hour`` | ``15 minuter``, ``30 minuter``, ``30 minutes`` | fixed phrases of time |
| ``halva priset``, ``half price`` | ``50 % priset``, ``50 % price`` | half of a price is a percentage |
| ``²⁹⁹``, ``⑵⑨⑨``, ``２９９``, ``٢٩٩`` (any character with a single digit value) | ``299`` | one character for one digit (``unicodedata.digit``) |
| ``½``, ``⑩``, ``Ⅻ`` (numeric, but no single digit) | ``00`` | refused: read as the code "00" (a leading zero), which no value of a KB supports (a plain ``0`` would be backed by "0 kr") |

Both languages' words are read in any text (an answer may be in the other language), and
``language`` decides only the decimal mark before a scale word. Words count case-insensitively
and only whole (``tretton`` is 13; ``trettonde`` only as an
ordinal; ``sexig`` nothing). A word the table does not make a number stays as it is: when in
doubt a word is not a number only where it is also an article or pronoun, and then only
when no quantity word follows it.
"""

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import NamedTuple

from num2words import num2words
from text_to_num import text2num

from grounding.lexicon import LEXICONS, merged

SV_PARTS = {
    "noll": 0, "en": 1, "ett": 1, "två": 2, "tre": 3, "fyra": 4, "fem": 5, "sex": 6,
    "sju": 7, "åtta": 8, "nio": 9, "tio": 10, "elva": 11, "tolv": 12, "tretton": 13,
    "fjorton": 14, "femton": 15, "sexton": 16, "sjutton": 17, "arton": 18, "aderton": 18,
    "nitton": 19, "tjugo": 20, "tjugu": 20, "trettio": 30, "fyrtio": 40, "femtio": 50,
    "förtio": 40, "sextio": 60, "sjuttio": 70, "åttio": 80, "nittio": 90, "hundra": 100, "tusen": 1000, "ettusen": 1000,
    "miljon": 10**6, "miljoner": 10**6, "miljonen": 10**6, "miljard": 10**9, "miljarder": 10**9,
}  # fmt: skip
EN_PARTS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 10**6, "millions": 10**6, "billion": 10**9, "billions": 10**9,
}  # fmt: skip
SCALES = {"tusen": 1000, "miljon": 10**6, "miljoner": 10**6, "miljard": 10**9,
          "miljarder": 10**9, "thousand": 1000, "million": 10**6, "millions": 10**6,
          "billion": 10**9, "billions": 10**9}  # fmt: skip
ARTICLES = frozenset({"en", "ett", "one"})
HALF = frozenset({"halv", "halva", "halvt", "half"})
EVERY = frozenset({"var", "vart", "varje", "every"})
PHRASES = {
    "sv": {"en kvart": "15 minuter", "en halvtimme": "30 minuter", "halva priset": "50 % priset",
           "halvt pris": "50 % pris", "en halvtimma": "30 minuter"},
    "en": {"half an hour": "30 minutes", "a quarter of an hour": "15 minutes",
           "half price": "50 % price", "half the price": "50 % the price"},
}  # fmt: skip
# Idioms with a numeral in them that state no number ("Tusen tack!", "Försök en gång till").
IDIOMS = ("tusen tack", "en gång till", "en och annan", "one by one", "one more time")
# Swedish unit words a numeral may head a compound of ("treårsgaranti", "tvåveckors").
_COMPOUND_UNIT = re.compile(
    "|".join(
        re.escape(unit)
        for unit in sorted(LEXICONS["sv"].units, key=len, reverse=True)
        if len(unit) >= 2 and unit.isalpha()
    )
)
# Ordinal words up to 31st, written by num2words in both languages ("tolfte", "twelfth").
ORDINALS = {
    **{num2words(n, lang=lang, to="ordinal"): n for lang in ("sv", "en") for n in range(1, 32)},
    **LEXICONS["sv"].ordinal_words,
    **LEXICONS["en"].ordinal_words,
}
_QUANTITY_WORDS = frozenset(
    word.lower()
    for word in (
        *merged("units"),
        *merged("currencies"),
        *merged("periods"),
        *merged("percent_words"),
        *SCALES,
        *HALF,
    )
)


class Spelled(NamedTuple):
    start: int
    end: int
    digits: str  # what the span stands for, as notation reads it


def _alternation(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_SV_WHOLE_WORD = re.compile(rf"\b(?:{_alternation(SV_PARTS)})+\b", re.IGNORECASE)


# Every character outside ASCII with a numeric value ("²", "⑵", "½", "٢", "𝟐").
def _numeric_ranges() -> str:
    """A character class of every non-ASCII character with a numeric value, as ranges."""
    codes = [c for c in range(0x80, 0x20000) if unicodedata.numeric(chr(c), None) is not None]
    ranges, start = [], codes[0]
    for previous, code in zip(codes, [*codes[1:], None], strict=True):
        if code != previous + 1:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(previous))}")
            start = code
    return "[" + "".join(ranges) + "]"


_ODD_DIGIT = re.compile(_numeric_ranges())
_EN_PART = _alternation(EN_PARTS)
# English: numeral words joined by spaces, hyphens, "and" and ", " (one thousand, two hundred).
_EN_NUMBER = re.compile(rf"\b(?:{_EN_PART})(?:(?:[ -]|,? and |, )(?:{_EN_PART}))*\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_NEXT_WORD = re.compile(r"[ \u00a0]+([^\W\d_]+|%)")
_PREVIOUS_WORD = re.compile(r"([^\W\d_]+)[ \u00a0]+$")
_DIGITS_SCALE = re.compile(
    r"(?<![\d.,])(\d+(?:[.,]\d+)?)[ \u00a0]+(" + _alternation(SCALES) + r")\b", re.IGNORECASE
)
_HALF_SCALE = re.compile(
    r"\b(?:(en|ett|a)[ \u00a0]+)?(halv|half)(?:[ \u00a0]+an?)?[ \u00a0]+("
    + _alternation(SCALES)
    + r")\b",
    re.IGNORECASE,
)
_PHRASES = {
    language: re.compile(rf"\b(?:{_alternation(table)})\b", re.IGNORECASE)
    for language, table in PHRASES.items()
}
_IDIOM = re.compile(rf"\b(?:{_alternation(IDIOMS)})\b", re.IGNORECASE)
# "en och en halv timme", "two and a half hours": a numeral word, then a half added.
_AND_A_HALF = re.compile(
    r"\b([^\W\d_]+(?:-[^\W\d_]+)*)[ \u00a0]+(?:och[ \u00a0]+en[ \u00a0]+halv|and[ \u00a0]+a[ \u00a0]+half)\b",
    re.IGNORECASE,
)
_ORDINAL = re.compile(
    rf"\b({_alternation(EVERY)})[ \u00a0]+({_alternation(ORDINALS)})\b", re.IGNORECASE
)


@lru_cache(maxsize=4096)
def sv_value(word: str) -> int | None:
    """The value of one Swedish numeral word ("trehundranittionio" -> 399), else None."""
    word = word.lower()
    parts = re.findall(_alternation(SV_PARTS), word)
    if not parts or "".join(parts) != word:
        return None
    return _combine([SV_PARTS[p] for p in parts])


def _combine(values: list[int]) -> int | None:
    """Numeral parts' values into one number, or None when they do not form one
    ("fem tre", "hundra hundra")."""
    total, current, last = 0, 0, None
    for value in values:
        if value == 100:
            if current >= 100 or last == 100:
                return None
            current = (current or 1) * 100
        elif value >= 1000:
            if (current or total) and current >= value:
                return None
            if current == 0 and total and total < value:  # "tusen miljoner"
                total *= value
            else:
                total += (current or 1) * value
            current = 0
        else:
            if last is not None and last < 100 and (last < 20 or value >= 10):
                return None  # "fem tre", "tjugo trettio"
            current += value
        last = value
    return total + current


def _parse_sv(words: list[str]) -> int | None:
    values: list[int] = []
    for word in words:
        word = word.lower()
        parts = re.findall(_alternation(SV_PARTS), word)
        if not parts or "".join(parts) != word:
            return None
        values.extend(SV_PARTS[p] for p in parts)
    return _combine(values)


def _parse_en(span: str) -> int | None:
    cleaned = re.sub(r",", " ", span.lower()).replace("-", " ")
    cleaned = re.sub(r"\s+", " ", cleaned).strip()
    try:
        value = text2num(cleaned, "en")
    except ValueError:
        return None
    return int(value)


def _article(text: str, start: int, end: int) -> bool:
    """Whether "en", "ett" or "one" at ``start`` is an article: no quantity word follows it, or
    it follows a clock time ("Beställ före 11:00 en vardag": on a weekday, not for one). After a
    bound that counts ("högst ett lån", "at most one loan") it is a number."""
    if text[start:end].lower() not in ARTICLES or _COUNT_BOUND_BEFORE.search(text, 0, start):
        return False
    return not is_quantity_word(text, end) or _CLOCK_BEFORE.search(text, 0, start) is not None


_COUNT_BOUND_BEFORE = re.compile(
    r"(?<!\w)(?:"
    + "|".join(re.escape(word) for word in sorted(merged("count_bounds"), key=len, reverse=True))
    + r")[ \u00a0]+$",
    re.IGNORECASE,
)


_CLOCK_BEFORE = re.compile(
    r"(?:\d{1,2}[:.]\d{2}|\bkl\.?[ \u00a0]*\d{1,2}|\d[ \u00a0]*[ap]\.?m\.?)[ \u00a0]*$",
    re.IGNORECASE,
)


def is_quantity_word(text: str, end: int) -> bool:
    """Whether the word after ``end`` says the number before it counts something.

    So does a range the number opens: "från ett till och med 17 år", "one to three days".
    """
    following = _NEXT_WORD.match(text, end)
    if following is not None and following[1].lower() in _QUANTITY_WORDS:
        return True
    return bool(_RANGE_AFTER.match(text, end))


# "ett till 17", "one to three", "ett–två": a range word, then a number (digits or a numeral).
_RANGE_AFTER = re.compile(
    r"[ \u00a0]*(?:till och med|till|to|–|-)[ \u00a0]*(?:\d|(?:"
    + "|".join(sorted((set(SV_PARTS) | set(EN_PARTS)) - ARTICLES, key=len, reverse=True))
    + r")[^\W\d_]*\b)",
    re.IGNORECASE,
)


def _sv_numbers(text: str) -> list[Spelled]:
    found: list[Spelled] = []
    words = [m for m in _SV_WHOLE_WORD.finditer(text) if sv_value(m[0]) is not None]
    i = 0
    while i < len(words):
        group = [words[i]]
        # "ett tusen", "två miljoner trehundratusen", "etttusen tvåhundra": across one space
        while i + 1 < len(words) and text[group[-1].end() : words[i + 1].start()] in (
            " ",
            "\u00a0",
        ):
            joined = [*group, words[i + 1]]
            if _parse_sv([w[0] for w in joined]) is None or not _joins(
                group[-1][0], words[i + 1][0]
            ):
                break
            group = joined
            i += 1
        i += 1
        value = _parse_sv([w[0] for w in group])
        if value is None:
            continue
        start, end = group[0].start(), group[-1].end()
        if len(group) == 1 and _article(text, start, end):
            continue
        found.append(Spelled(start, end, str(value)))
    return found


def _joins(previous: str, following: str) -> bool:
    """Swedish writes a number as one word, but for a space after or before a scale word, or
    "hundra" ("tre hundra", "två hundra femtio": never "3 100", which reads as 3100)."""
    previous, following = previous.lower(), following.lower()
    return any(previous.endswith(s) for s in _SPACED) or any(
        following.startswith(s) for s in _SPACED
    )


_SPACED = (*SCALES, "hundra")


def _en_numbers(text: str) -> list[Spelled]:
    found: list[Spelled] = []
    for match in _EN_NUMBER.finditer(text):
        span = match[0]
        value = _parse_en(span)
        pieces = [(match.start(), match.end(), value)]
        if value is None:  # "one two": each word alone
            pieces = [
                (match.start() + w.start(), match.start() + w.end(), _parse_en(w[0]))
                for w in re.finditer(r"[A-Za-z]+(?:-[A-Za-z]+)*", span)
            ]
        for start, end, piece_value in pieces:
            if piece_value is None:
                continue
            if _article(text, start, end):
                continue
            found.append(Spelled(start, end, str(piece_value)))
    return found


def _decimal(number: str, language: str) -> Decimal | None:
    if "," in number and "." not in number:
        number = (
            number.replace(",", ".")
            if language == "sv" or len(number.split(",")[1]) != 3
            else number.replace(",", "")
        )
    try:
        return Decimal(number)
    except InvalidOperation:
        return None


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f") if value == value.to_integral() else str(value)


@lru_cache(maxsize=8192)
def spelled_out(text: str, language: str) -> tuple[Spelled, ...]:
    """Every number ``text`` writes in words, scale words or other digit forms (the module
    table), as non-overlapping spans in order."""
    spans: list[Spelled] = []

    blocked = [(m.start(), m.end()) for m in _IDIOM.finditer(text)]

    def free(start: int, end: int) -> bool:
        return all(end <= s.start or start >= s.end for s in spans) and all(
            end <= first or start >= last for first, last in blocked
        )

    for match in _ODD_DIGIT.finditer(text):
        char = match[0]
        digit = unicodedata.digit(char, None)
        # Refused: "00" is read as a code (a leading zero), which only a code "00" supports;
        # a single "0" would be backed by any "0 kr" of the KB.
        spans.append(Spelled(match.start(), match.end(), "00" if digit is None else str(digit)))
    for match in _AND_A_HALF.finditer(text):
        whole = sv_value(match[1]) if match[1].isalpha() else None
        if whole is None:
            whole = _parse_en(match[1])
        if whole is not None and free(match.start(), match.end()):
            spans.append(Spelled(match.start(), match.end(), f"{whole}.5"))
    for phrases, pattern in ((PHRASES[lang], _PHRASES[lang]) for lang in ("sv", "en")):
        for match in pattern.finditer(text):
            if free(match.start(), match.end()):
                spans.append(Spelled(match.start(), match.end(), phrases[match[0].lower()]))
    for match in _HALF_SCALE.finditer(text):
        if free(match.start(), match.end()):
            spans.append(Spelled(match.start(), match.end(), str(SCALES[match[3].lower()] // 2)))
    for match in _DIGITS_SCALE.finditer(text):
        value = _decimal(match[1], language)
        if value is not None and free(match.start(), match.end()):
            spans.append(
                Spelled(match.start(), match.end(), _plain(value * SCALES[match[2].lower()]))
            )
    for match in _ORDINAL.finditer(text):
        start, end = match.start(2), match.end(2)
        if free(start, end) and is_quantity_word(text, end):
            # Read as the digits are written, "var 12:e timme" (a count): so the words and the
            # digits meet on one reading whichever the KB or the answer uses.
            spans.append(Spelled(start, end, f"{ORDINALS[match[2].lower()]}:e"))
    # Both languages' words, whatever the text's language: an answer may be in the other one
    # ("Premium costs two hundred kronor" to a Swedish question).
    for spelled in (*_sv_numbers(text), *_en_numbers(text), *_compound_heads(text)):
        if free(spelled.start, spelled.end):
            spans.append(spelled)
    return tuple(sorted(spans))


def _compound_heads(text: str) -> list[Spelled]:
    """A numeral heading a compound of a unit: "treårsgaranti" is "3-årsgaranti"."""
    found = []
    for match in _WORD.finditer(text):
        head = _compound_head(match[0].lower())
        if head is not None:
            cut, value = head
            found.append(Spelled(match.start(), match.start() + cut, f"{value}-"))
    return found


def is_numeral_compound(word: str) -> bool:
    """Whether ``word`` is one word headed by a numeral ("tolvmånadersperiod", "treårsgaranti")."""
    return _compound_head(word.lower()) is not None


@lru_cache(maxsize=16384)
def _compound_head(word: str) -> tuple[int, int] | None:
    """(length, value) of a numeral heading a compound of a unit ("tre" of "treårsgaranti")."""
    if sv_value(word) is not None:
        return None
    for cut in range(min(len(word) - 2, 7), 1, -1):
        value = SV_PARTS.get(word[:cut])
        if value is not None and value < 100 and _COMPOUND_UNIT.match(word, cut):
            return cut, value
    return None


class Rewritten(NamedTuple):
    text: str
    spans: tuple[Spelled, ...]

    def original(self, position: int, *, end: bool = False) -> int:
        """Where ``position`` of the rewritten text lies in the original."""
        shift = 0
        for span in self.spans:
            new_start = span.start + shift
            new_end = new_start + len(span.digits)
            if position < new_start or (end and position == new_start):
                break
            if position < new_end or (end and position == new_end):
                return span.end if end else span.start
            shift += len(span.digits) - (span.end - span.start)
        return position - shift


def with_digits(text: str, language: str) -> Rewritten:
    """``text`` with every spelled-out number replaced by its digits."""
    spans = spelled_out(text, language)
    if not spans:
        return Rewritten(text, ())
    out, at = [], 0
    for span in spans:
        out.append(text[at : span.start])
        out.append(span.digits)
        at = span.end
    out.append(text[at:])
    return Rewritten("".join(out), spans)


_HOLD_WORDS = re.compile(
    rf"(?:{_alternation(SV_PARTS)}|{_EN_PART}|{_alternation(HALF)})+", re.IGNORECASE
)
_ORDINAL_WORD = re.compile(_alternation(ORDINALS), re.IGNORECASE)
_EVERY_WORD = re.compile(_alternation(EVERY), re.IGNORECASE)


def may_start_number(word: str, previous: str = "") -> bool:
    """Whether a whole word may be (part of) a number in words (``previous``: the word
    before it): the stream guard holds the sentence from such a word on, as from a digit."""
    if _HOLD_WORDS.fullmatch(word) or (
        _ORDINAL_WORD.fullmatch(word) and _EVERY_WORD.fullmatch(previous)
    ):
        return True
    return _ODD_DIGIT.search(word) is not None or _compound_head(word.lower()) is not None
