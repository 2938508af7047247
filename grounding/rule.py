"""The one rule: when a fact of the KB supports a claim of an answer.

Pure: no ORM, no I/O. A claim (a number of the answer, :mod:`grounding.claims`)
is supported by a fact (a number of the KB, :mod:`grounding.facts`) when every
row holds:

| # | check | holds when | else (reason) |
|---|---|---|---|
| 1 | value | the claim's canonical value is the fact's, or one end of the fact's range (a time in "08:00–16:30", a number in "1–3 år"), or the fact's date without its year ("January 6" for "January 6, 2026") | ``not in the knowledge base`` |
| 2 | kind | the kinds are equal, or the claim is a plain count and the fact an amount, quantity, duration or count (the answer left the unit out), or the claim is a time and the fact a time range | ``different kind of number`` |
| 3 | unit | the claim states no unit or currency, or the fact's is the same (a header's "Price (SEK)" counts as the fact's); a claim in another unit of the fact's dimension is checked again converted, exactly (öre and kronor, the metric prefixes, seconds, minutes and hours: "0,886 kr/kWh" is "88,60 öre/kWh"; never a zero) | ``different unit`` |
| 4 | period | the claim states no period, or the fact's is the same ("per år", "i månaden", "an hour", "Årsavgift") | ``different period`` |
| 4b | condition | the claim states no bound or inclusion, or the fact states none, or the same: a lower bound ("över", "minst", "från", "efter", "at least", "more than", "after") or an upper bound ("under", "högst", "upp till", "till", "före", "senast", "up to", "less than", "before", "until") right before the number (right after a negation, the other one: "inte över", "no longer than" are upper bounds), a deadline ("senast", "no later than" against "tidigast", "no earlier than") right before it, "inkl."/"including" or "exkl."/"excluding"/"utan" just after it, what it counts by after "per" or "/" when both say it in one language (a fact counted per person whose subject names what the claim counts by: "Julbord, adults: SEK 695 per person" is "SEK 695 per adult"), or the fact states a period instead ("under 24 år" does not support "över 24 år", "senast 30 dagar före" not "tidigast 30 dagar före", "30 kr per klass" not "30 kr per elev", "40 kr per kilo" not "40 kr per påbörjad 10 kg", "SEK 50 per rental" not "SEK 50 per day") | ``different bound or condition`` |
| 4c | counted thing | a count that says what it counts ("23 employees") is not backed by a count that says it counts something else, on a line where another number counts what the claim counts ("64 employees with a fleet of 23 trucks") | ``wrong subject`` |
| 5 | topic | among the candidates passing rows 1-4, the fact's line, row, header, headings and lead-in share the most terms with the claim's sentence and the question (weekdays, months and letters not counted; another number of the same line counts), and at least one (none needed for identifiers, nor when the sentence and question name nothing but weekdays or letters). No kind names itself: a phone number or a date is bound to its line like any value; one whose line shares no term passes only when no other phone number (date) of the KB is about a term of the sentence or question ("Ring oss på ..." in a KB with one phone; not "Call the outage line on <customer service's number>"). Facts in the other language are candidates only when the claim's language has none, or none of it supports the claim nor states another value for a name of its clause; then one must share two terms with it, or another number of its sentence ("grupper på 20–39 personer får 15 procents rabatt" is the English "20–39 people: 15% off" when the Swedish page's 15 % is the seniors') | ``supporting line is about something else`` |
| 6 | subject | no other fact with another value that the claim could be stated from (same kind, period and unit, or a measure in any unit of its dimension; a plain count competes with amounts, quantities, durations and counts, a time with times and the ends of ranges; anywhere in the KB, in the fact's language, or in the other language when its subject says all the claim's clause says) matches the claim's own clause (then clause and lead: "Plan A har 99,5 % och svar inom 4 timmar") better than the fact's subject does while naming something the fact's subject lacks. Terms are weighed by what tells facts apart: a term that names a subject somewhere in the KB (a table's row key or column header, a list item's "Label:") counts twice, a verb or "pris" once, so "Hem Mellan kostar 139 kr" is the "Hem Mellan" column's cell, not the line where "Hem Ung kostar 69 kr". "rad A" cannot take row B's price, "fredagar" cannot take Monday's hours, "torsdagar" cannot take the end of Monday–Friday's range when Thursday has its own, one product cannot take another's weight. A later clause of a line has the line's opening words as its lead, except an earlier clause's compound of the same head as one it names itself ("Aluminiumramar har 10 års garanti och kolfiberramar 6 års garanti": the 6 is not the aluminium frames'). A number of the fact's own table row or clause that the claim's clause states too competes only for the claim's own words of the clause, and only by matching them better (``clauses``: in "kostar 320 kr per m², med ett minsta pris på 795 kr" the "minsta pris" is the 795's column, and the 320 is the "Pris per m²" cell) | ``wrong subject`` |
| 6b | exact name | when another fact with another value is labelled with words the claim all says ("Telefon:") and matches it as well, the fact's own label has no word the claim leaves out: "Telefon: 08-123 45 68" is not backed by "Fakturatelefon: 08-123 45 68", "Premium kostar 499 kr" not by "Premium Plus: 499 kr" when "Premium: 399 kr" exists; and a claim that names only what a more general fact's clause names (every word of it, none of the special case's own) is that fact's: "Felparkeringsavgiften är 1 200 kr" is not backed by "Den som parkerar på en plats för rörelsehindrade ... får en felparkeringsavgift på 1 200 kr" when "Felparkeringsavgiften är 700 kr" exists (in a table row, a column headed by a number is the special case of the row's other cells: "Pris per dygn katt: 175 kr" is not the "Från 7 dygn" cell's); and a table cell whose row and column the claim names in full is the claim's, over a line elsewhere that says more than the claim: "Hem Start självrisk: 1 500 kr" is not backed by "Allrisk till Hem Start ... självrisken är 1 500 kr" when the Självrisk row's Hem Start cell says 3 000 kr | ``wrong subject`` |
| 6c | weekday | when the claim's own clause names weekdays and the fact's subject names weekdays, they share one: "The Thursday group webinar starts at 10:00" is not backed by "a group webinar on Tuesdays at 10:00 and Thursdays at 15:00" | ``wrong subject`` |
| 7 | name | when the fact's line, row or headings name one of the labelled subjects of its file (a table row's key, a list item's "Label:"), the claim's own clause names no other of them: "Plan B har 1 TB" is not backed by "Plan A ingår 1 TB" in a file with a "Plan B:" line | ``wrong subject`` |
| 7b | alternative | when the claim's own clause names one of a group of parallel names of the KB (a table's column headers, its row keys; "Hem Start", "Hem Mellan", "Hem Total"; named by a term that is not only a compound's tail: "en tekniker" names no "Värmetekniker"), the fact's subject has that name or no other of the group: "Home Total ... SEK 1,500" is not backed by "The standard excess on Home Mellan is SEK 1,500"; a row's key cell names its whole row, so no column's name is another than its own ("sista avgången på linje 35" takes the 35 of the row keyed 35 whose "Sista avgång" is 19.20); a column's header (a row's key, in the fact's own table) is named only when a cell under it could state the claim: "Tvätten levereras efter 3 arbetsdagar" names no "Tvätt som ingår" column of kilos | ``wrong subject`` |
| 8 | identifier | a claim that is an identifier (letters written with digits: "SE4", "B2") needs rows 1-4 only: it is a name, and it must occur in the KB ("SE5" does not); in its sentence it binds the other numbers like any word (``n:se4`` among their terms) | ``not in the knowledge base`` |
| 9 | a row's or column's name | a number of a table row's first cell, or of a column's header cell (the row keyed "Hund över 25 kg", the column headed "25–40 kg"), that the claim's own clause states beside a number supported on its own by a cell of that row (that column) needs rows 1-4b only: it names the cell the other number is from ("För en hund över 25 kg kostar det 355 kr", "i viktklassen 25–40 kg kostar kastreringen 4 490 kr", "cancel 8–14 days before: 25 %") | the reason of rows 5-7b |

Terms are lemmas and compound parts (:mod:`grounding.terms`); values are
canonical (:mod:`grounding.notation`). Everything language-specific is in
:mod:`grounding.lexicon`. Candidate facts are those of the retrieved snippets
and every fact of the KB found by value (:mod:`grounding.lookup`); the claim
passes when any candidate supports it.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from grounding.claims import Claim, other_dimensions
from grounding.clauses import is_marker
from grounding.facts import Fact, label_terms, table_header_line
from grounding.lookup import Group
from grounding.notation import Kind
from grounding.terms import terms, weekday_terms

NOT_IN_KB = "not in the knowledge base"
KIND_MISMATCH = "different kind of number"
UNIT_MISMATCH = "different unit"
PERIOD_MISMATCH = "different period"
CONDITION_MISMATCH = "different bound or condition"
TOPIC_MISMATCH = "supporting line is about something else"
SUBJECT_MISMATCH = "wrong subject"

# The order reasons are reported in when no candidate supports a claim: the closest miss first.
REASONS = (
    SUBJECT_MISMATCH,
    TOPIC_MISMATCH,
    CONDITION_MISMATCH,
    PERIOD_MISMATCH,
    UNIT_MISMATCH,
    KIND_MISMATCH,
    NOT_IN_KB,
)

# Values that name themselves: an identifier ("SE4") is that one, whatever words surround it.
SELF_NAMING = frozenset({Kind.CODE})

_UNIT_LEFT_OUT = frozenset({Kind.AMOUNT, Kind.QUANTITY, Kind.DURATION, Kind.COUNT})


def is_identifier(claim: Claim) -> bool:
    """A name written with digits ("SE4", "B2"): it needs to occur in the KB, and binds the rest."""
    return claim.kind is Kind.CODE and any(ch.isalpha() for ch in claim.value)


def value_matches(claim: Claim, fact: Fact) -> bool:
    if claim.value == fact.value:
        return True
    if claim.kind is Kind.DATE and fact.kind is Kind.DATE and claim.value.startswith("--"):
        return fact.value[4:] == claim.value[1:]  # "January 6" states less than "2026-01-06"
    return (
        "-" in fact.value.lstrip("-")
        and "-" not in claim.value
        and claim.value in fact.value.split("-")
    )


def kind_matches(claim: Claim, fact: Fact) -> bool:
    if claim.kind == fact.kind:
        return True
    if claim.kind is Kind.COUNT:
        return fact.kind in _UNIT_LEFT_OUT
    return claim.kind is Kind.TIME and fact.kind is Kind.TIME_RANGE


def could_be_stated_from(claim: Claim, fact: Fact) -> bool:
    """Whether the claim, with its value changed, could come from ``fact``.

    Same kind, period and unit; a measure in another unit of its dimension still competes
    ("100 GB" for "5 TB"), not one of another ("150 km" for "51.3 MWp").
    """
    if not kind_matches(claim, fact) or (claim.period and claim.period != fact.period):
        return False
    if claim.kind is Kind.QUANTITY:
        return not other_dimensions(claim.unit, fact.unit)
    return claim.unit is None or claim.unit == fact.unit


def _unit_weight(term: str) -> float:
    return 1.0


def conflicting_terms(
    claim: Claim,
    fact: Fact,
    siblings: Iterable[Fact],
    weight: Callable[[str], float] = _unit_weight,
) -> frozenset[str]:
    """The claim's terms that point to a sibling with another value rather than to ``fact``.

    Only a sibling the claim could be stated from (``could_be_stated_from``) competes. It is
    pointed to when it matches the claim better than the fact's subject does,
    first by the claim's own clause, then by clause and lead together, each
    term counted by its ``weight`` (how few of the KB's facts carry it), and
    names something the fact's subject lacks.
    """
    siblings = list(siblings)
    fact_subject = _without_borrowed_lead(claim, fact, siblings)
    others, beside = [], []
    for sibling in siblings:
        if sibling.value != fact.value and could_be_stated_from(claim, sibling):
            together = _same_row(sibling, fact) or states(fact, sibling)
            (beside if together and claim.near and states(claim, sibling) else others).append(
                sibling
            )
    named = _pointed_to(claim, fact, fact_subject, others, weight)
    if beside:
        # A number of the fact's own table row or clause that the claim's clause states too
        # competes only for the words next to the claim's number (``Claim.near``), and only
        # by matching them better: in "kostar 320 kr per m², med ett minsta pris på 795 kr"
        # the "minsta pris" is the 795's column, not the 320's.
        near = replace(claim, qualifiers=claim.near, lead=frozenset())
        named |= _pointed_to(near, fact, fact_subject, beside, weight, only_closer=True)
    return named


def _pointed_to(
    claim: Claim,
    fact: Fact,
    fact_subject: frozenset[str],
    siblings: Sequence[Fact],
    weight: Callable[[str], float],
    *,
    only_closer: bool = False,
) -> frozenset[str]:
    """``conflicting_terms`` over these siblings; ``only_closer``: only a sibling that matches
    the claim better than the fact's subject does."""
    own, both = claim.qualifiers, claim.qualifiers | claim.lead

    def match(subject: frozenset[str]) -> tuple[float, float]:
        mine = sum(weight(term) for term in own & subject)
        return round(mine, 6), round(mine + sum(weight(t) for t in (both - own) & subject), 6)

    fact_match = match(fact_subject)
    unsaid = label_terms(fact) - both  # the fact's own name, where the claim leaves part out
    missing = both - fact_subject  # what a sibling may name that the fact's subject does not
    fact_names = _names(fact.qualifiers)
    named: set[str] = set()
    # Set tests first: a KB of thousands of like facts ("Produkt 1" ... "Produkt 15000") makes
    # every one a sibling, and the sums of ``match`` are the cost.
    for sibling in siblings:
        if not sibling.subject.isdisjoint(missing) and match(sibling.subject) > fact_match:
            named |= (both & sibling.subject) - fact_subject
            continue
        if only_closer:
            continue
        # The most specific name wins: "Telefon" is the line labelled "Telefon", not the one
        # labelled "Fakturatelefon"; "Premium" is not "Premium Plus".
        if unsaid:
            label = label_terms(sibling)
            if label and label <= both and match(sibling.subject) >= fact_match:
                named |= label
                continue
        # The general case's name is not the special case's: "Felparkeringsavgiften är 1 200 kr"
        # is the fee of "Felparkeringsavgiften är 700 kr", not of the line "Den som parkerar på
        # en plats för rörelsehindrade ... får en felparkeringsavgift på 1 200 kr".
        if sibling.qualifiers.isdisjoint(both):
            continue
        general = _names(sibling.qualifiers)
        special = fact_names
        if _same_row(sibling, fact) and sibling.cell[1] > 0 and fact.cell[1] > 0:
            # A column headed by a number is the special case of one that is not: "Katt: 175
            # kr per dygn" is the "Pris per dygn" cell (195 kr), not the "Från 7 dygn" one.
            general, special = _with_numbers(sibling.qualifiers), _with_numbers(fact.qualifiers)
        if (
            general & both
            and general < special
            and (special - general).isdisjoint(claim.subject)
            and match(sibling.subject) >= fact_match
        ):
            named |= general & both
            continue
        # A table cell the claim names in full (its row and its column) is the claim's, not a
        # line elsewhere that says more than the claim does: "Hem Start självrisk: 1 500 kr" is
        # the Självrisk row's Hem Start cell (3 000 kr), not the line under "Allrisk till Hem
        # Start" where the add-on's excess is 1 500 kr.
        if fact.cell is None and sibling.cell is not None and sibling.cell[0] > 0:
            cell = _cell_name(sibling.subject_text, sibling.language)
            if (
                cell
                and cell <= both
                and not (fact_names - claim.subject).isdisjoint(fact_names - cell)
                and match(sibling.subject) >= fact_match
            ):
                named |= cell
    return frozenset(named)


def _same_row(one: Fact, other: Fact) -> bool:
    return (
        one.cell is not None
        and other.cell is not None
        and (one.file, one.line) == (other.file, other.line)
    )


def _with_numbers(qualifiers: frozenset[str]) -> frozenset[str]:
    """The names of a cell's row and column, with the numbers its header states (``n:7``)."""
    return _names(qualifiers) | {term for term in qualifiers if term.startswith("n:")}


@lru_cache(maxsize=8192)
def _cell_name(subject_text: str, language: str) -> frozenset[str]:
    """The terms of a table cell's row key and column header (the last two parts of its path)."""
    parts = subject_text.split(" > ")
    if len(parts) < 2:
        return frozenset()
    return _names(terms(" ".join(parts[-2:]), language))


@lru_cache(maxsize=65536)
def _names(qualifiers: frozenset[str]) -> frozenset[str]:
    return frozenset(term for term in qualifiers if not is_marker(term))


def _without_borrowed_lead(claim: Claim, fact: Fact, siblings: Iterable[Fact]) -> frozenset[str]:
    """The fact's subject, without an earlier clause's name that its own clause replaces.

    A later clause of a line takes the line's opening words as its lead ("Basservice kostar
    595 kr och tar 1 arbetsdag": the day is Basservice's; "closed on Midsummer Eve, <date>,
    and on Christmas Eve, <date>": both days are customer service's). It does not when

    | the later clause | example |
    |---|---|
    | names a compound of the same head as one of the earlier clause | "Aluminiumramar har 10 års garanti och kolfiberramar 6 års garanti" (-ramar) |
    | names something of its own that the claim's clause does not say, while the claim's clause says every word of the earlier clause | "Arbetet ska påbörjas inom 2 år och vara avslutat inom 5 år" against "Arbetet ska påbörjas inom 5 år" |

    Then the earlier clause's words are its name, not the later one's.
    """
    said, both = claim.qualifiers, claim.qualifiers | claim.lead
    borrowed: set[str] = set()
    for sibling in siblings:
        if (sibling.file, sibling.line) != (fact.file, fact.line) or sibling.value == fact.value:
            continue
        own = _names(fact.qualifiers - sibling.qualifiers)
        theirs = _names(sibling.qualifiers - fact.qualifiers)
        if own and theirs and theirs <= said and not own & said:
            borrowed |= theirs
            continue
        for head in fact.qualifiers & sibling.qualifiers:
            if len(head) < 3 or is_marker(head):
                continue
            if any(t != head and t.endswith(head) for t in own - both):
                names = {t for t in theirs if t != head and t.endswith(head)}
                borrowed |= names | {t for t in theirs if any(t in name for name in names)}
    return fact.subject - borrowed


def topic_score(claim: Claim, fact: Fact, question_terms: frozenset[str] = frozenset()) -> int:
    """How many content terms the claim's sentence and the question share with the fact's context."""
    shared = (claim.subject | question_terms) & fact.context
    return sum(1 for term in shared if counts_for_topic(term))


def counts_for_topic(term: str) -> bool:
    return not term.startswith(("weekday:", "month:", "#"))


def on_topic(
    claim: Claim, candidates: Sequence[Fact], question_terms: frozenset[str] = frozenset()
) -> list[Fact]:
    """Row 5: the candidates whose context best matches the claim's sentence and the question."""
    scored = [(topic_score(claim, fact, question_terms), fact) for fact in candidates]
    same = [(score, fact) for score, fact in scored if fact.language == claim.language]
    best = max((score for score, _ in same), default=0)
    if best > 0:
        return [fact for score, fact in same if score == best]
    says_nothing = not any(counts_for_topic(term) for term in claim.subject | question_terms)
    if claim.kind in SELF_NAMING or says_nothing or not same:
        return [fact for _, fact in scored]
    return []


def across_languages(
    claim: Claim, candidates: Sequence[Fact], question_terms: frozenset[str] = frozenset()
) -> list[Fact]:
    """Row 5, when no candidate in the claim's language supports it: the candidates in the
    other language whose context best matches, if they share two terms with it or another
    number of its sentence.

    "Grupper på 20–39 personer får 15 procents rabatt" is the English "20–39 people: 15% off"
    when the Swedish page's 15 % is the seniors' discount. One word two languages share by
    chance ("app", "EU") is no evidence.
    """
    scored = [
        (topic_score(claim, fact, question_terms), fact)
        for fact in candidates
        if fact.language != claim.language
    ]
    best = max((score for score, _ in scored), default=0)
    return [
        fact
        for score, fact in scored
        if score == best and (score >= _ACROSS_TERMS or _shares_a_number(claim, fact))
    ]


_ACROSS_TERMS = 2  # terms a line in the other language shares with the claim, or a number


def _shares_a_number(claim: Claim, fact: Fact) -> bool:
    return any(term.startswith("n:") for term in claim.subject & fact.context)


def stated_alike(claim: Claim, fact: Fact) -> str | None:
    """Rows 2-4b: None when kind, unit, period and conditions fit, else the reason."""
    if not kind_matches(claim, fact):
        return KIND_MISMATCH
    if claim.unit is not None and claim.unit != fact.unit:
        return UNIT_MISMATCH
    if claim.period is not None and claim.period != fact.period:
        return PERIOD_MISMATCH
    if not conditions_agree(claim, fact):
        return CONDITION_MISMATCH
    return None


_CONDITION_FAMILIES = ("bound:", "deadline:", "incl:", "per:")
_PER_PERSON = frozenset({"per:person"})


def conditions_agree(claim: Claim, fact: Fact) -> bool:
    """Row 4b: a bound or inclusion both state is the same ("över 24 år" is not "under 24 år").

    What a price counts by ("per elev", "per 10 kg") is compared in one language only (its
    words are lemmas); against a fact that states a period instead ("SEK 50 per day") it never
    holds: "SEK 50 per rental" is not that. A fact counted per person whose own subject names
    what the claim counts by holds: "Julbord, adults: SEK 695 per person" is "SEK 695 per
    adult".
    """
    if not claim.conditions:
        return True
    stated_all = _conditions(fact.qualifiers)
    for family in _CONDITION_FAMILIES:
        said = {c for c in claim.conditions if c.startswith(family)}
        stated = {q for q in stated_all if q.startswith(family)}
        if family == "per:" and said:
            if not stated:
                if fact.period is not None and claim.period is None:
                    return False
                continue
            if claim.language != fact.language:
                continue
            if stated == _PER_PERSON and all(c[4:] in fact.qualifiers for c in said):
                continue  # "Julbord, adults: SEK 695 per person" is "SEK 695 per adult"
        if said and stated and not said & stated:
            return False
    return True


@lru_cache(maxsize=65536)
def _conditions(qualifiers: frozenset[str]) -> frozenset[str]:
    return frozenset(q for q in qualifiers if q.startswith(_CONDITION_FAMILIES))


def other_names(claim: Claim, fact: Fact, file_facts: Iterable[Fact]) -> frozenset[str]:
    """Row 7: labels of the fact's file that the claim's clause names and the fact does not.

    Only when the fact itself names a label of that file: then the claim must not name another.
    """
    about = fact.subject | fact.context
    labels = [label_terms(other) for other in file_facts if other.line != fact.line]
    if not about & frozenset().union(*labels):
        return frozenset()
    found: set[str] = set()
    for label in labels:
        named = label & claim.qualifiers
        if named and not named & about:
            found |= named
    return frozenset(found)


Groups = Callable[[str], Sequence[Group]]


def _no_groups(term: str) -> Sequence[Group]:
    return ()


def other_alternative(claim: Claim, fact: Fact, alternatives: Groups) -> frozenset[str]:
    """Row 7b: a parallel name the fact is about while the claim names another of its group.

    ``alternatives(term)`` gives the groups of parallel names (a table's column headers, its
    row keys: ``FactLookup.alternatives``). "Home Total ... SEK 1,500" is not backed by a line
    about Home Mellan when Start, Mellan and Total are a table's columns. A row's key (its
    first cell: "| 35 | Hamnudden – Tallö | 08.05 | 19.20 |") names the whole row, so no
    column's name is another than its own: "sista avgången på linje 35" may take the 35.
    A column's name (or a row's, in the fact's own table) counts only when a cell under it
    could state the claim; a row's key elsewhere names a thing that prose may say more of
    ("Med Bas får de anställda 10 % rabatt"). In "For a
    4-room home of 86–110 m², the package costs 11 690 kr after RUT" the m² are not the "Price
    after RUT" column's, whose cells are prices; "79 kr i månaden utan bindningstid" is not
    the "Bindningstid" column's, whose cells are months; and "Byxor kostar 179 kr med normal
    leveranstid" is not about another table's "Leveranstid" column, whose cells are days.
    """
    if fact.cell is not None and fact.cell[0] > 0 and fact.cell[1] == 0:
        return frozenset()
    found: set[str] = set()
    own_table = (fact.file, table_header_line(fact)) if fact.cell is not None else None
    for term in claim.qualifiers:
        for group in alternatives(term):
            named = [name for name in group.names if _said_of(name, claim.qualifiers)]
            if group.columns or group.table == own_table:
                named = [name for name in named if _could_be_under(claim, name, group.cells)]
            if any(name & fact.subject for name in named):
                continue
            others = [n for n in group.names if n & fact.subject and not n & claim.qualifiers]
            if others:
                found |= frozenset().union(*named)
    return frozenset(found)


def _said_of(name: frozenset[str], words: frozenset[str]) -> bool:
    """Whether ``words`` name ``name``: by a term that is not only its compound's tail.
    "tekniker" names no "Värmetekniker" (every heating engineer is one, not every one is)."""
    return any(
        not any(other != term and other.endswith(term) for other in name) for term in name & words
    )


def _could_be_under(claim: Claim, name: frozenset[str], table: Sequence[Fact]) -> bool:
    """Whether the claim could be a value under ``name``: yes unless ``name`` is in ``table``
    and none of its cells there could state the claim."""
    under = [cell for cell in table if name & cell.qualifiers]
    return not under or any(could_be_stated_from(claim, cell) for cell in under)


def counts_another(claim: Claim, fact: Fact, file_facts: Iterable[Fact]) -> bool:
    """Row 4c: the claim counts what another number of the fact's line counts, the fact not.

    "Brisk has 23 employees" is not backed by "we are 64 employees with a fleet of 23 trucks".
    """
    said, counted = _counted(claim.conditions), _counted(fact.qualifiers)
    if not said or not counted or not said.isdisjoint(counted):
        return False  # "Business includes 5" counts what its line's "1 help centre" counts
    return any(
        other.line == fact.line and other.value != fact.value and said & _counted(other.qualifiers)
        for other in file_facts
    )


def _another_weekday(claim: Claim, fact: Fact) -> bool:
    """Row 6c: the claim's own clause names weekdays and the fact's subject names only others."""
    said, stated = weekday_terms(claim.qualifiers), weekday_terms(fact.subject)
    return bool(said and stated and said.isdisjoint(stated))


def _counted(terms_: frozenset[str]) -> frozenset[str]:
    return frozenset(term for term in terms_ if term.startswith("counts:"))


def names_cell(label: Fact, cell: Fact) -> bool:
    """Row 9: whether ``label`` is a number naming ``cell``: in its row's first cell (the key
    that names the row), or in its column's header."""
    if label.file != cell.file or label.cell is None or cell.cell is None or cell.cell[0] == 0:
        return False
    if label.cell[0] == 0:
        return label.cell[1] == cell.cell[1] and label.line == table_header_line(cell)
    return label.line == cell.line and label.cell[1] == 0 < cell.cell[1]


def states(claim: Claim | Fact, other: Claim | Fact) -> bool:
    """Whether ``claim``'s own clause states ``other``'s number (its ``n:`` term)."""
    return any(
        term.startswith("n:") and term[2:].lstrip("<>") == other.value for term in claim.qualifiers
    )


def supports(
    claim: Claim,
    fact: Fact,
    *,
    siblings: Iterable[Fact] = (),
    file_facts: Iterable[Fact] = (),
    weight: Callable[[str], float] = _unit_weight,
    alternatives: Groups = _no_groups,
) -> tuple[bool, str | None]:
    """(whether ``fact`` supports ``claim``, the reason when it does not): rows 1-4, 6 and 7.

    Row 9 needs the other numbers' checks: ``AnswerChecker`` applies it (``names_cell``).

    Row 5 chooses among the candidates that pass rows 1-4 (``on_topic``);
    ``siblings`` are the facts that could be the claim's subject instead; ``file_facts`` the
    facts of the fact's file (their labels, for row 7).
    """
    if not value_matches(claim, fact):
        return False, NOT_IN_KB
    file_facts = tuple(file_facts)
    if (reason := stated_alike(claim, fact)) is not None:
        return False, reason
    if is_identifier(claim):
        return True, None
    if counts_another(claim, fact, file_facts) or _another_weekday(claim, fact):
        return False, SUBJECT_MISMATCH
    if (
        conflicting_terms(claim, fact, siblings, weight)
        or other_names(claim, fact, file_facts)
        or other_alternative(claim, fact, alternatives)
    ):
        return False, SUBJECT_MISMATCH
    return True, None
