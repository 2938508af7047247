"""General-language word lists, one module per language (``sv``, ``en``).

Only words of the language itself live here: units, currencies, periods,
time-of-day markers, percent words, conjunctions that separate clauses. No
word of any particular knowledge base belongs in this package. Month and
weekday names come from babel's CLDR data, not from lists typed here; so do
the names of languages and countries in each language (``other_names``: a
question about "engelska" reaches a line about "English", "Norway" one about
"Norge").

Each language module defines the same names; :data:`LEXICONS` holds them by
language code, and the ``all_*`` helpers merge them, because an answer may
quote a word of the other language ("SEK", "kr", "euro").
"""

from dataclasses import dataclass
from functools import cache
from types import ModuleType

from babel import Locale
from babel.dates import get_day_names, get_month_names

from grounding.lexicon import en, sv


@dataclass(frozen=True)
class Lexicon:
    language: str
    currencies: dict[str, str]  # word or symbol -> ISO code
    units: dict[str, str]  # word -> canonical unit ("kg", "day", ...)
    periods: dict[str, str]  # word after a per-marker -> canonical period ("year", ...)
    # Periods that are also things: "the site visit", "tillfället" name a subject (a term);
    # every other period word is only what a number counts by
    thing_periods: frozenset[str]
    period_adverbs: dict[str, str]  # "yearly", "årligen" -> "year"
    per_markers: frozenset[str]  # "per", "a", "i": what introduces a period
    percent_words: tuple[str, ...]  # "procent", "per cent"
    clock_markers: frozenset[str]  # "kl", "klockan": a bare hour after one is a time
    ordinal_words: dict[str, int]  # "andra" -> 2, "third" -> 3
    answer_words: frozenset[str]  # "ja", "yes": carry no subject
    time_suffixes: frozenset[str]  # "am", "pm": words that belong to a time
    range_words: frozenset[str]  # "till", "to": between the two ends of a range
    range_openers: frozenset[str]  # "mellan", "between": open a range joined by "och"/"and"
    range_joiners: frozenset[str]  # "och", "and"
    conjunctions: frozenset[str]  # where one clause of a line ends and the next begins
    ordinal_suffixes: tuple[str, ...]  # "st", "e": "24th", "1:a"
    months: dict[str, int]  # every month name and abbreviation -> 1..12 (babel)
    weekdays: dict[str, int]  # every weekday name and plural -> 1..7 (babel + plural endings)
    compounds: bool  # whether the language writes compounds as one word
    linking: str  # letters that may join the parts of a compound ("s" in "medlemsavgift")
    definite_endings: tuple[str, ...]  # "-en", "-n": a definite form's ending ("Routern")
    # (noun ending, verb ending): a noun made from a verb ("arrival" -> "arrive")
    verb_nouns: tuple[tuple[str, str], ...]
    lower_bounds: tuple[str, ...]  # "över", "at least": before a number, a lower bound
    upper_bounds: tuple[str, ...]  # "under", "up to": before a number, an upper bound
    negations: tuple[str, ...]  # "inte", "not": before a bound, turn it round
    deadline_latest: tuple[str, ...]  # "senast", "no later than": before a number
    deadline_earliest: tuple[str, ...]  # "tidigast", "no earlier than": before a number
    included: tuple[str, ...]  # "inkl", "including": after a number, what it includes
    excluded: tuple[str, ...]  # "exkl", "excluding": after a number, what it leaves out
    rate_words: tuple[str, ...]  # "avgift", "fee": a compound's tail that makes its head a period
    counted_by: dict[str, str]  # "st" -> "styck": what "per"/"/" counts by, written out
    list_joiners: tuple[str, ...]  # "och", "and": the last item of a list ("24, 25 och 26 maj")
    kind_words: dict[str, str]  # "ring", "call": a question asking for a kind of number
    count_bounds: tuple[str, ...]  # "högst", "at most": after one, "en"/"one" is a number


def _lexicon(module: ModuleType) -> Lexicon:
    language = module.LANGUAGE
    months: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for number, name in get_month_names(width, locale=language).items():
            months[name.lower().rstrip(".")] = number
    weekdays: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for index, name in get_day_names(width, locale=language).items():
            name = name.lower().rstrip(".")
            for ending in ("", *module.WEEKDAY_PLURAL_ENDINGS):
                weekdays[name + ending] = index + 1  # babel: 0 is Monday
    return Lexicon(
        language=language,
        currencies=module.CURRENCIES,
        units=module.UNITS,
        periods=module.PERIODS,
        thing_periods=frozenset(module.THING_PERIODS),
        period_adverbs=module.PERIOD_ADVERBS,
        per_markers=frozenset(module.PER_MARKERS),
        percent_words=tuple(module.PERCENT_WORDS),
        clock_markers=frozenset(module.CLOCK_MARKERS),
        ordinal_words=module.ORDINAL_WORDS,
        answer_words=frozenset(module.ANSWER_WORDS),
        time_suffixes=frozenset(module.TIME_SUFFIXES),
        range_words=frozenset(module.RANGE_WORDS),
        range_openers=frozenset(module.RANGE_OPENERS),
        range_joiners=frozenset(module.RANGE_JOINERS),
        conjunctions=frozenset(module.CONJUNCTIONS),
        ordinal_suffixes=tuple(module.ORDINAL_SUFFIXES),
        months=months,
        weekdays=weekdays,
        compounds=module.COMPOUNDS,
        linking=module.COMPOUND_LINKING,
        definite_endings=tuple(module.DEFINITE_ENDINGS),
        verb_nouns=tuple(module.VERB_NOUNS),
        lower_bounds=tuple(module.LOWER_BOUNDS),
        upper_bounds=tuple(module.UPPER_BOUNDS),
        negations=tuple(module.NEGATIONS),
        deadline_latest=tuple(module.DEADLINE_LATEST),
        deadline_earliest=tuple(module.DEADLINE_EARLIEST),
        included=tuple(module.INCLUDED),
        excluded=tuple(module.EXCLUDED),
        rate_words=tuple(module.RATE_WORDS),
        counted_by=module.COUNTED_BY,
        list_joiners=tuple(module.LIST_JOINERS),
        kind_words=module.KIND_WORDS,
        count_bounds=tuple(module.COUNT_BOUNDS),
    )


LEXICONS: dict[str, Lexicon] = {module.LANGUAGE: _lexicon(module) for module in (sv, en)}


@cache
def merged(field: str) -> dict | frozenset | tuple:
    """One field of every language's lexicon, merged (dicts, sets and tuples)."""
    values = [getattr(lexicon, field) for lexicon in LEXICONS.values()]
    if isinstance(values[0], dict):
        return {key: value for mapping in values for key, value in mapping.items()}
    if isinstance(values[0], frozenset):
        return frozenset().union(*values)
    return tuple(dict.fromkeys(item for group in values for item in group))


_MIN_NAME = 4  # "Ewe", "Ga", "Fon": shorter names are ordinary words too often


@cache
def other_names() -> dict[str, dict[str, str]]:
    """For each language, its one-word names of languages (those with a two-letter code) and
    countries, lower-case, each with the other language's name: ``{"sv": {"engelska":
    "english", "norge": "norway", ...}, "en": {"english": "engelska", ...}}`` (babel's CLDR
    data; a name written alike in both, "Finland", is left out)."""
    locales = {code: Locale(code) for code in LEXICONS}
    found: dict[str, dict[str, str]] = {code: {} for code in LEXICONS}
    for kind in ("languages", "territories"):
        tables = {code: getattr(locale, kind) for code, locale in locales.items()}
        shared = set.intersection(*(set(table) for table in tables.values()))
        for key in sorted(shared):
            if len(key) != 2 or not key.isalpha():
                continue
            names = {code: table[key].lower() for code, table in tables.items()}
            if any(len(name) < _MIN_NAME or not name.isalpha() for name in names.values()):
                continue
            if len(set(names.values())) < len(names):
                continue
            for code, name in names.items():
                for other, other_name in names.items():
                    if other != code:
                        found[code].setdefault(name, other_name)
    return found
