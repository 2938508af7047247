"""The one rule (grounding/rule.py), row by row, and its properties."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding import rule
from grounding.claims import extract_claims
from grounding.facts import extract_facts
from grounding.lookup import FactTable
from grounding.snippets import Snippet
from grounding.verification import verify_answer

KB = {
    "kb/avfall.md": (
        "# Avfall\n\n## Avgifter\n\n"
        "| Kärlstorlek | Årsavgift |\n|---|---|\n"
        "| 140 liter | 1 240 kr |\n| 190 liter | 1 680 kr |\n\n"
        "Extra tömning kostar 150 kr per tillfälle.\n"
    ),
    "kb/kontakt.md": (
        "# Kontakt\n\n- Växel: 0571-48 20 00\n- Jour: 0571-48 29 99\n\n"
        "## Öppettider\n\n- Måndag: 10.00–19.00\n- Fredag: 10.00–16.00\n"
    ),
    "kb/planer.md": (
        "# Planer\n\n- Silver: 99 kr/månad\n- Guld: 199 kr/månad\n- Guld ingår 1 TB lagring\n"
    ),
    "kb/en/shop.md": (
        "# Prices\n\n| Model | Price (SEK) | Price (EUR) |\n|---|---|---|\n"
        "| Urban | 7,990 | 699 |\n| Trail | 14,490 | 1,269 |\n"
    ),
}
FACTS = FactTable.from_documents(KB)
SNIPPETS = [Snippet(file=file, text=text, start_line=1) for file, text in KB.items()]


def checker(kb: dict[str, str]):
    """``verify_answer`` against ``kb`` (every file a snippet, its facts the KB's)."""
    facts = FactTable.from_documents(kb)
    snippets = [Snippet(file=file, text=text, start_line=1) for file, text in kb.items()]
    return lambda answer: verify_answer(answer, snippets, facts=facts)


def check(answer: str, question: str) -> tuple[bool, list[str]]:
    verdict = verify_answer(answer, SNIPPETS, facts=FACTS, question=question)
    return verdict.grounded, [u.reason for u in verdict.unsupported]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Vad kostar ett 190-literskärl?", "Ett 190-literskärl kostar 1 680 kr per år."),
        ("Vad kostar ett kärl på 140 liter?", "Årsavgiften för 140 liter är 1240 kronor."),
        ("Vilket nummer har växeln?", "Ring växeln på +46 571 48 20 00."),
        ("När är det öppet på fredagar?", "På fredagar är det öppet 10:00-16:00."),
        ("What does the Trail cost?", "The Trail costs SEK 14,490 or EUR 1,269."),
        ("Vad kostar Trail?", "Trail kostar 14 490 kr."),
        ("Vad kostar extra tömning?", "En extra tömning kostar 150 kronor per gång."),
        ("Hur mycket lagring ingår i Guld?", "Guld har 1 TB lagring."),
    ],
)
def test_supported_claims_pass(question, answer):
    assert check(answer, question) == (True, [])


@pytest.mark.parametrize(
    ("question", "answer", "reason"),
    [
        # row 1: value
        (
            "Vad kostar ett 190-literskärl?",
            "Ett 190-literskärl kostar 1 681 kr per år.",
            rule.NOT_IN_KB,
        ),
        # row 3: unit (currency)
        ("What does the Trail cost?", "The Trail costs EUR 14,490.", rule.UNIT_MISMATCH),
        # row 4: period
        (
            "Vad kostar ett 190-literskärl?",
            "Ett 190-literskärl kostar 1 680 kr per månad.",
            rule.PERIOD_MISMATCH,
        ),
        # row 6: another row of the table
        (
            "Vad kostar ett 140-literskärl?",
            "Ett 140-literskärl kostar 1 680 kr per år.",
            rule.SUBJECT_MISMATCH,
        ),
        # row 6: another list item (weekday)
        (
            "När är det öppet på fredagar?",
            "På fredagar är det öppet 10.00–19.00.",
            rule.SUBJECT_MISMATCH,
        ),
        # row 6: another label of the same kind
        ("Vilket nummer har växeln?", "Växeln nås på 0571-48 29 99.", rule.SUBJECT_MISMATCH),
        # row 6: another product
        ("What does the Urban cost?", "The Urban costs SEK 14,490.", rule.SUBJECT_MISMATCH),
        # row 7: another labelled subject of the file, which states no number of that kind
        ("Hur mycket lagring ingår i Silver?", "Silver har 1 TB lagring.", rule.SUBJECT_MISMATCH),
    ],
)
def test_each_row_of_the_rule_withholds(question, answer, reason):
    grounded, reasons = check(answer, question)
    assert not grounded
    assert reasons == [reason]


def test_row_5_topic_picks_the_candidates_that_match_the_sentence():
    (claim,) = extract_claims("Extra tömning kostar 150 kr.", language="sv")
    candidates = FACTS.by_value(claim.key)
    assert rule.on_topic(claim, candidates) == list(candidates)
    (off,) = extract_claims("Parkeringen är 150 kr.", language="sv")
    assert rule.on_topic(off, candidates) == []


def test_the_rule_is_a_table_in_the_module_docstring():
    doc = rule.__doc__
    for row in (
        "| 1 | value",
        "| 2 | kind",
        "| 3 | unit",
        "| 4 | period",
        "| 5 | topic",
        "| 6 | subject",
    ):
        assert row in doc


# --- properties ----------------------------------------------------------------

_AMOUNT_FORMS = [
    lambda v, c: (f"{v:,}".replace(",", " ") + f",{c:02d} kr", "sv"),
    lambda v, c: (f"{v}.{c:02d} kr", "sv"),
    lambda v, c: (f"SEK {v:,}.{c:02d}", "en"),
    lambda v, c: (f"{v:,}.{c:02d} SEK", "en"),
]
_QUESTION = {"sv": "Vad kostar avgiften?", "en": "What is the fee?"}


@settings(max_examples=60, deadline=None)
@given(
    value=st.integers(min_value=1, max_value=99_999),
    cents=st.integers(min_value=0, max_value=99),
    kb_form=st.sampled_from(_AMOUNT_FORMS),
    answer_form=st.sampled_from(_AMOUNT_FORMS),
)
def test_a_fact_in_any_notation_supports_itself(value, cents, kb_form, answer_form):
    kb_text, kb_language = kb_form(value, cents)
    written, language = answer_form(value, cents)
    facts = FactTable(
        extract_facts(f"- Avgift / fee: {kb_text}\n", file="kb/x.md", language=kb_language)
    )
    answer = {"sv": f"Avgiften är {written}.", "en": f"The fee is {written}."}[language]
    snippets = [Snippet(file="kb/x.md", text=f"- Avgift / fee: {kb_text}", start_line=1)]
    assert verify_answer(answer, snippets, facts=facts, question=_QUESTION[language]).grounded


_GROUNDED = [
    ("Vad kostar ett 190-literskärl?", "Ett 190-literskärl kostar 1 680 kr per år."),
    ("Vilket nummer har växeln?", "Ring växeln på 0571-48 20 00."),
    ("När är det öppet på fredagar?", "På fredagar är det öppet 10.00–16.00."),
    ("What does the Trail cost?", "The Trail costs SEK 14,490 or EUR 1,269."),
]


@settings(max_examples=80, deadline=None)
@given(case=st.sampled_from(_GROUNDED), data=st.data())
def test_a_changed_digit_is_never_supported(case, data):
    question, answer = case
    digits = [i for i, ch in enumerate(answer) if ch.isdigit()]
    i = data.draw(st.sampled_from(digits))
    new = data.draw(st.sampled_from([d for d in "0123456789" if d != answer[i]]))
    changed = answer[:i] + new + answer[i + 1 :]
    assert not check(changed, question)[0], changed


PLANS = {
    "kb/hem.md": (
        "# Hemförsäkring\n\n"
        "| | Hem Start | Hem Mellan | Hem Total |\n|---|---|---|---|\n"
        "| Premie per månad | 89 kr/mån | 139 kr/mån | 219 kr/mån |\n\n"
        "Hem Ung är en variant av Hem Start och kostar 69 kr/mån.\n"
    ),
    "kb/kontakt.md": (
        "# Contact\n\nOpening hours: Monday to Friday, 8 am–5 pm. "
        "On Thursdays we are open until 7 pm.\n"
    ),
}
PLAN_FACTS = FactTable.from_documents(PLANS)
PLAN_SNIPPETS = [Snippet(file=file, text=text, start_line=1) for file, text in PLANS.items()]


def test_a_name_outweighs_a_verb_the_sibling_shares():
    """'kostar' is on Hem Ung's line; 'Mellan' names the column: the cell is the support."""
    assert PLAN_FACTS.weight("mellan") > PLAN_FACTS.weight("kosta")
    verdict = verify_answer("Hem Mellan kostar 139 kr/mån.", PLAN_SNIPPETS, facts=PLAN_FACTS)
    assert verdict.grounded


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Hem Mellan kostar 139 kr/mån.", True),
        ("Hem Total kostar 219 kr/mån.", True),
        ("Hem Ung kostar 69 kr/mån.", True),
        ("Hem Mellan kostar 219 kr/mån.", False),
        ("Hem Total kostar 139 kr/mån.", False),
        ("Hem Ung kostar 89 kr/mån.", False),
    ],
)
def test_each_plan_is_bound_to_its_own_price(answer, grounded):
    assert verify_answer(answer, PLAN_SNIPPETS, facts=PLAN_FACTS).grounded is grounded


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("On Thursdays we are open until 7 pm.", True),
        ("On Mondays we are open until 5 pm.", True),
        ("On Thursdays we are open until 5 pm.", False),
    ],
)
def test_a_time_competes_with_the_end_of_a_range(answer, grounded):
    assert verify_answer(answer, PLAN_SNIPPETS, facts=PLAN_FACTS).grounded is grounded


PHONES = {
    "kb/contact.md": (
        "# Contact us\n\n## Customer service\n\nPhone: +46 31 740 22 00\n\n"
        "## Outages\n\nOutage line (24/7): 020-66 55 44\n"
    ),
    "kb/dates.md": (
        "# Premiejustering\n\nDen 1 mars 2026 höjs premierna för hemförsäkring med 2,5 %.\n"
        "Premierna för bilförsäkring höjs med 4,2 % från 2026-04-01.\n"
    ),
}
PHONE_FACTS = FactTable.from_documents(PHONES)
PHONE_SNIPPETS = [Snippet(file=file, text=text, start_line=1) for file, text in PHONES.items()]


@pytest.mark.parametrize(
    ("answer", "question", "grounded"),
    [
        ("Call the outage line on 020-66 55 44.", "What is the outage number?", True),
        ("Call customer service on 031-740 22 00.", "What is your phone number?", True),
        ("Call the outage line on 031-740 22 00.", "What is the outage number?", False),
        ("Call customer service on 020-66 55 44.", "What is your phone number?", False),
        ("Hemförsäkringen höjs med 2,5 % den 1 mars 2026.", "När höjs premien?", True),
        ("Hemförsäkringen höjs med 2,5 % den 1 april 2026.", "När höjs premien?", False),
    ],
)
def test_no_kind_names_itself_a_phone_or_date_is_bound_to_its_line(answer, question, grounded):
    verdict = verify_answer(answer, PHONE_SNIPPETS, facts=PHONE_FACTS, question=question)
    assert verdict.grounded is grounded


BOUNDS = {
    "kb/bil.md": (
        "# Bilförsäkring\n\n"
        "Om föraren är under 24 år när skadan inträffar tillkommer "
        "en ungdomssjälvrisk på 5 000 kr.\n"
        "Hyrbil ersätts med upp till 450 kr per dag.\n"
    ),
    "kb/tax.md": (
        "# Energy tax\n\nThe energy tax is 44.08 öre/kWh excluding VAT, "
        "which is 55.10 öre/kWh including VAT.\n"
    ),
}
BOUND_FACTS = FactTable.from_documents(BOUNDS)
BOUND_SNIPPETS = [Snippet(file=file, text=text, start_line=1) for file, text in BOUNDS.items()]


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Ungdomssjälvrisken på 5 000 kr gäller förare under 24 år.", True),
        ("Ungdomssjälvrisken på 5 000 kr gäller förare som är 24 år.", True),
        ("Ungdomssjälvrisken på 5 000 kr gäller förare som är över 24 år.", False),
        ("Ungdomssjälvrisken på 5 000 kr gäller förare som är minst 24 år.", False),
        ("Hyrbil ersätts med högst 450 kr per dag.", True),
        ("Hyrbil ersätts med minst 450 kr per dag.", False),
        ("The energy tax is 55.10 öre/kWh including VAT.", True),
        ("The energy tax is 55.10 öre/kWh excluding VAT.", False),
        ("The energy tax is 44.08 öre/kWh excl. VAT.", True),
    ],
)
def test_a_bound_or_inclusion_belongs_to_the_value(answer, grounded):
    assert verify_answer(answer, BOUND_SNIPPETS, facts=BOUND_FACTS).grounded is grounded


@given(
    st.sampled_from(["över", "minst", "från", "mer än", "at least", "more than", "after"]),
    st.sampled_from(["under", "högst", "upp till", "före", "up to", "less than", "before"]),
    st.integers(1, 10**6),
)
def test_opposite_bounds_never_support_each_other(lower, upper, value):
    fact = extract_facts(f"Avgiften gäller {upper} {value} kr.\n", file="a.md", language="sv")[0]
    (claim,) = extract_claims(f"Avgiften gäller {lower} {value} kr.", language="sv")
    assert rule.stated_alike(claim, fact) == rule.CONDITION_MISMATCH


COUNTED_BY = {
    "kb/villkor.md": (
        "# Villkor\n\n"
        "Skolklasser reser för 30 kr per elev och resa.\n\n"
        "För bagage över 20 kg betalar du 40 kr per påbörjad 10 kg.\n\n"
        "Extra kilometer kostar 2,50 kr/km.\n"
    ),
    "kb/english/terms.md": "# Terms\n\nStudded tyres are available for SEK 50 per day.\n",
}


def checked(kb: dict[str, str], answer: str):
    """The verdict on ``answer`` against ``kb``, every file of it retrieved."""
    snippets = [Snippet(file=file, text=text, start_line=1) for file, text in kb.items()]
    return verify_answer(answer, snippets, facts=FactTable.from_documents(kb))


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Skolklasser reser för 30 kr per elev.", True),
        ("En skolklass reser för 30 kr per elev och resa.", True),
        ("Skolklasser reser för 30 kr.", True),
        ("Skolklasser reser för 30 kr per klass och resa.", False),
        ("Bagage över 20 kg kostar 40 kr per påbörjad 10 kg.", True),
        ("Bagage över 20 kg kostar 40 kr per kilo.", False),
        ("Extra kilometer kostar 2,50 kr per kilometer.", True),
        ("Studded tyres cost SEK 50 per day.", True),
        ("Studded tyres cost SEK 50 per rental.", False),
    ],
)
def test_what_a_price_counts_by_belongs_to_the_value(answer, grounded):
    assert checked(COUNTED_BY, answer).grounded is grounded


def test_what_a_price_counts_by_is_not_compared_across_languages():
    # "per pupil" and "per elev" are words of two languages: the checker can't tell them apart.
    answer = "School classes travel for SEK 30 per pupil."
    assert checked(COUNTED_BY, answer).grounded


TIMETABLE = {
    "kb/tidtabell.md": (
        "# Tidtabell\n\n"
        "| Linje | Sträcka | Första avgång | Sista avgång | Turtäthet |\n|---|---|---|---|---|\n"
        "| 31 | Hamnudden – Granö | 06.10 | 23.30 | var 60:e minut |\n"
        "| 35 | Hamnudden – Tallö | 08.05 | 19.20 | 4 turer per dag |\n"
        "| B4 | Granö – Lillsund | 09.00 | 18.30 | varannan timme |\n"
    ),
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Sista avgången på linje 35 går kl. 19.20.", True),
        ("Första avgången på linje 31 går kl. 06.10.", True),
        ("Sista avgången på linje 35 går kl. 23.30.", False),
        ("Sista avgången på linje 31 går kl. 19.20.", False),
    ],
)
def test_a_rows_key_names_the_whole_row(answer, grounded):
    assert checked(TIMETABLE, answer).grounded is grounded


HOLIDAYS = {
    "kb/offices.md": (
        "# Opening hours\n\n"
        "| Day | Hours |\n|---|---|\n| Friday | 07:30–18:30 |\n| Monday | 07:30–18:30 |\n\n"
        "## Holidays\n\n"
        "- Christmas Eve (December 24) and Christmas Day (December 25): all offices closed.\n"
        "- Good Friday (April 3, 2026) and Easter Monday (April 6, 2026): all offices open "
        "09:00–15:00.\n"
        "- New Year's Eve (December 31): all offices open 10:00–14:00.\n"
    ),
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("All our offices are closed on 24 December (Christmas Eve).", True),
        ("On Good Friday, 2026-04-03, all our offices are open 09:00–15:00.", True),
        ("On Easter Monday all our offices are open 09:00–15:00.", True),
        ("On Good Friday all our offices are open 10:00–14:00.", False),
    ],
)
def test_what_follows_a_colon_holds_for_every_item_before_it(answer, grounded):
    assert checked(HOLIDAYS, answer).grounded is grounded


CAMPAIGN = {
    "kb/memberships.md": (
        "# Memberships\n\n## Holidays\n\n| Date | Hours |\n|---|---|\n"
        "| January 6, 2026 (Epiphany) | 08:00–20:00 |\n"
        "| June 19, 2026 (Midsummer Eve) | Closed |\n\n"
        "## New Year campaign\n\n"
        "Join between January 7 and January 31, 2026 and pay no joining fee on Basic or Flex.\n"
    ),
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("On January 6 (Epiphany) all gyms are open 8 am–8 pm.", True),
        ("On January 7 (Epiphany) all gyms are open 8 am–8 pm.", False),
        ("The campaign starts on 2026-01-07; new members pay no joining fee on Basic.", True),
        ("The campaign starts on 2026-01-08; new members pay no joining fee on Basic.", False),
    ],
)
def test_a_date_without_its_year_and_a_range_opened_by_between(answer, grounded):
    assert checked(CAMPAIGN, answer).grounded is grounded


ALTERNATIVES = {
    "kb/hem.md": (
        "# Hemförsäkring\n\n"
        "| | Hem Start | Hem Mellan | Hem Total |\n|---|---|---|---|\n"
        "| Självrisk | 3 000 kr | 1 500 kr | 1 000 kr |\n"
        "| Premie per månad | 89 kr/mån | 139 kr/mån | 219 kr/mån |\n"
    ),
    "kb/english/faq.md": "# FAQ\n\nThe standard excess on Home Mellan is SEK 1,500.\n",
}
ALTERNATIVE_FACTS = FactTable.from_documents(ALTERNATIVES)
ALTERNATIVE_SNIPPETS = [
    Snippet(file=file, text=text, start_line=1) for file, text in ALTERNATIVES.items()
]


def test_a_tables_columns_are_a_group_of_alternatives():
    groups = ALTERNATIVE_FACTS.alternatives("total")
    names = [group.names for group in groups]
    assert (frozenset({"start"}), frozenset({"mellan"}), frozenset({"total"})) in names


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("The standard excess on Home Mellan is SEK 1,500.", True),
        ("The standard excess on Home Total is SEK 1,500.", False),
        ("The standard excess on Home Total is SEK 1,000.", True),
    ],
)
def test_a_line_about_one_alternative_does_not_back_another(answer, grounded):
    verdict = verify_answer(answer, ALTERNATIVE_SNIPPETS, facts=ALTERNATIVE_FACTS)
    assert verdict.grounded is grounded


AGES = {
    "kb/skador.md": (
        "# Åldersavdrag\n\n| Föremålets ålder | Ersättning i procent av nypriset |\n|---|---|\n"
        "| Yngre än 1 år | 100 % |\n| 1 år | 80 % |\n| 2 år | 65 % |\n"
    ),
    "kb/grid.md": (
        "# Grid fee\n\nThe fees below are for the grid and include VAT.\n\n"
        "| Main fuse | Annual fee | Monthly fee |\n|---|---|---|\n"
        "| 16 A | SEK 4,680 | SEK 390 |\n| 35 A | SEK 11,280 | SEK 940 |\n"
    ),
}
AGE_FACTS = FactTable.from_documents(AGES)
AGE_SNIPPETS = [Snippet(file=file, text=text, start_line=1) for file, text in AGES.items()]


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("En mobil som är yngre än 1 år ersätts med 100 % av nypriset.", True),
        ("En mobil som är 1 år gammal ersätts med 80 % av nypriset.", True),
        ("En mobil som är 1 år gammal ersätts med 100 % av nypriset.", False),
        ("The annual grid fee for a 35 A fuse is SEK 11,280.", True),
        ("The grid fee for a 35 A fuse is SEK 11,280 per month.", False),
    ],
)
def test_a_bounded_row_key_is_not_the_plain_one_and_an_annual_header_states_a_period(
    answer, grounded
):
    assert verify_answer(answer, AGE_SNIPPETS, facts=AGE_FACTS).grounded is grounded


CLAUSES = {
    "kb/garanti.md": (
        "# Garanti\n\n"
        "Aluminiumramar har 10 års garanti och kolfiberramar 6 års garanti.\n\n"
        "Basservice kostar 595 kr och tar 1 arbetsdag.\n\n"
        "Kundtjänst har stängt på midsommarafton 19 juni och på julafton 24 december.\n"
    ),
}
CLAUSE_CHECK = checker(CLAUSES)


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Aluminiumramar har 10 års garanti.", True),
        ("Kolfiberramar har 6 års garanti.", True),
        ("Aluminiumramar har 10 års garanti och kolfiberramar 6 års garanti.", True),
        ("Aluminiumramar har 6 års garanti.", False),
        ("Aluminiumramar har 6 års garanti och kolfiberramar 6 års garanti.", False),
        ("Kolfiberramar har 10 års garanti.", False),
        # The line's opening words stay the lead of a later clause that names no parallel.
        ("Basservice tar 1 arbetsdag.", True),
        ("Kundtjänst har stängt 24 december.", True),
        ("Kundtjänst har stängt på julafton 24 december.", True),
        ("Kundtjänst har stängt på julafton 19 juni.", False),
    ],
)
def test_a_later_clause_naming_a_parallel_compound_does_not_borrow_the_first_name(answer, grounded):
    verdict = CLAUSE_CHECK(answer)
    assert verdict.grounded is grounded, verdict.unsupported


GENERAL = {
    "kb/parkering.md": (
        "# Parkering\n\n## Felparkering\n\n"
        "Felparkeringsavgiften är 700 kr.\n\n"
        "Den som parkerar på en plats för rörelsehindrade utan tillstånd får en "
        "felparkeringsavgift på 1 200 kr.\n"
    ),
}
GENERAL_CHECK = checker(GENERAL)


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Felparkeringsavgiften är 700 kr.", True),
        ("Parkerar du på en plats för rörelsehindrade utan tillstånd är avgiften 1 200 kr.", True),
        ("På en plats för rörelsehindrade är felparkeringsavgiften 1 200 kr.", True),
        ("Felparkeringsavgiften är 1 200 kr.", False),
    ],
)
def test_the_general_name_takes_the_general_value_not_a_special_cases(answer, grounded):
    verdict = GENERAL_CHECK(answer)
    assert verdict.grounded is grounded, verdict.unsupported


SENTENCES = {
    "kb/avtal.md": (
        "# Avtal\n\n"
        "- Uppsägningstiden för rörligt pris är 1 månad. Uppsägningstiden för fjärrvärme "
        "är 3 månader.\n"
        "- Fakturan skickas varje månad och ska betalas inom 30 dagar. Påminnelse kostar 60 kr.\n"
    ),
}
SENTENCE_CHECK = checker(SENTENCES)


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Uppsägningstiden för fjärrvärme är 3 månader.", True),
        ("Uppsägningstiden för rörligt pris är 1 månad.", True),
        ("Uppsägningstiden för rörligt pris är 3 månader.", False),
        ("Uppsägningstiden för rörligt pris är tre månader.", False),
        # A sentence that does not restate the subject keeps the line's opening words.
        ("Fakturan ska betalas inom 30 dagar.", True),
    ],
)
def test_a_sentence_restating_the_lines_subject_names_its_own(answer, grounded):
    verdict = SENTENCE_CHECK(answer)
    assert verdict.grounded is grounded, verdict.unsupported


EARLIER = {
    "kb/bygglov.md": (
        "# Bygglov\n\n"
        "Attefallsåtgärder kräver inget bygglov, men du måste göra en anmälan. Avgiften för "
        "anmälan av ett attefallshus är 5 400 kr och för en attefallstillbyggnad 3 950 kr.\n\n"
        "Arbetet ska påbörjas inom 2 år och vara avslutat inom 5 år.\n"
    ),
}
EARLIER_CHECK = checker(EARLIER)


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Avgiften för anmälan av ett attefallshus är 5 400 kr.", True),
        ("Anmälan av en attefallstillbyggnad kostar 3 950 kr.", True),
        ("Avgiften för anmälan av ett attefallshus är 3 950 kr.", False),
        ("Arbetet ska påbörjas inom 2 år och vara avslutat inom 5 år.", True),
        ("Arbetet ska påbörjas inom 5 år.", False),
        ("Arbetet ska påbörjas inom 5 år och vara avslutat inom 5 år.", False),
    ],
)
def test_a_later_clause_that_names_its_own_subject_does_not_borrow_the_earlier_clauses(
    answer, grounded
):
    verdict = EARLIER_CHECK(answer)
    assert verdict.grounded is grounded, verdict.unsupported


CELL_CHECK = checker(
    {
        "kb/hem.md": (
            "# Hemförsäkring\n\n## Premier, självrisk och försäkringsbelopp\n\n"
            "| | Hem Start | Hem Mellan | Hem Total |\n|---|---|---|---|\n"
            "| Premie per månad | 89 kr/mån | 139 kr/mån | 219 kr/mån |\n"
            "| Självrisk | 3 000 kr | 1 500 kr | 1 000 kr |\n"
            "| Allriskskydd, högsta ersättning | ingår inte | 30 000 kr | 50 000 kr |\n\n"
            "## Allrisk till Hem Start\n\n"
            "Har du Hem Start kan du lägga till allrisk för 25 kr/mån. Högsta ersättning är "
            "20 000 kr och självrisken är 1 500 kr.\n"
        )
    }
)


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Hem Start självrisk: 3 000 kr.", True),
        ("Hem Mellan har en självrisk på 1 500 kr.", True),
        ("Med allrisk till Hem Start är självrisken 1 500 kr.", True),
        ("Hem Start självrisk: 1 500 kr.", False),  # the cell it names says 3 000
    ],
)
def test_a_table_cell_named_in_full_outweighs_a_line_that_says_more(answer, grounded):
    verdict = CELL_CHECK(answer)
    assert verdict.grounded is grounded, verdict.unsupported


UNIT_CHECK = checker(
    {
        "kb/el.md": (
            "# Elpris\n\n- Fastpris: 88,60 öre/kWh\n- Nätavgift: 2 kr/dag\n"
            "- Installationen tar 1,5 timme.\n- Paketet väger 2 kg.\n"
        )
    }
)


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Fastpriset är 0,886 kr/kWh.", True),
        ("Nätavgiften är 200 öre per dag.", True),
        ("Installationen tar 90 minuter.", True),
        ("Paketet väger 2000 gram.", True),
        ("Fastpriset är 88,60 kr/kWh.", False),  # the same figure, the wrong unit
        ("Nätavgiften är 2 öre per dag.", False),
        ("Installationen tar 1,5 minuter.", False),
        ("Paketet väger 2 g.", False),
    ],
)
def test_a_value_in_another_unit_of_its_dimension_is_the_same_value(answer, grounded):
    verdict = UNIT_CHECK(answer)
    assert verdict.grounded is grounded, verdict.unsupported


# Small KBs, each with the answers that show one behaviour of the rule (its name).
BEHAVIOURS: dict[str, tuple[dict[str, str], list[tuple[str, bool]]]] = {
    "a number in a row's key or a column's header names the cell beside it": (
        {
            "kb/pensionat.md": (
                "# Pensionat\n\n## Priser per dygn\n\n"
                "| Djur | Pris per dygn | Från 7 dygn |\n|---|---|---|\n"
                "| Hund under 10 kg | 295 kr | 265 kr |\n| Hund 10–25 kg | 345 kr | 310 kr |\n"
                "| Hund över 25 kg | 395 kr | 355 kr |\n\n"
                "- Minsta vistelse: 2 dygn\n\n"
                "## Kastrering\n\n"
                "| Behandling | Under 10 kg | 10–25 kg | 25–40 kg |\n|---|---|---|---|\n"
                "| Kastrering hane | 3 290 kr | 3 890 kr | 4 490 kr |\n"
                "| Kastrering tik | 5 790 kr | 6 690 kr | 7 490 kr |\n"
            ),
            "kb/terms.md": (
                "# Cancellation\n\n| Cancellation | Fee |\n|---|---|\n"
                "| More than 14 days before moving day | Free of charge |\n"
                "| 8–14 days before | 25% |\n| 2–7 days before | 50% |\n\n"
                "- Invoice, due 20 days after the move\n- We move 7 days a week.\n"
            ),
        },
        [
            ("En hund över 25 kg kostar 355 kr från 7 dygn.", True),  # the column "Från 7 dygn"
            ("En hund 10–25 kg kostar 355 kr från 7 dygn.", False),
            ("En hund över 25 kg kostar 395 kr från 7 dygn.", False),
            ("Kastrering av en hane i viktklassen 10–25 kg kostar 4 490 kr.", False),
            ("If you cancel 8–14 days before the move, the fee is 25% of the price.", True),
            ("If you cancel 2–7 days before the move, the fee is 25% of the price.", False),
        ],
    ),
    "a column whose cells could not state the number is no other name for it": (
        {
            "kb/packages.md": (
                "# Fixed-price packages\n\n"
                "| Home | Size | Price | Price after RUT | Crew |\n|---|---|---|---|---|\n"
                "| 3 rooms | 61–85 m² | 13 490 kr | 8 790 kr | 3 movers |\n"
                "| 4 rooms | 86–110 m² | 17 990 kr | 11 690 kr | 4 movers |\n"
            ),
        },
        [
            ("For a 4-room home of 86–110 m², the package costs 11 690 kr after RUT.", True),
            ("For a 4-room home of 86–110 m², the package costs 17 990 kr after RUT.", False),
            ("For a 3-room home of 86–110 m², the package costs 11 690 kr after RUT.", False),
        ],
    ),
    "a clock range is the KB's bare hours and energy keeps its prefix": (
        {
            "kb/storage.md": (
                "# Storage\n\n## Access\n\n- Hisings Backa, Gothenburg: every day 7–21\n\n"
                "## Office\n\n- Monday–Friday: 08.00–17.00\n- Saturday: 10.00–14.00\n\n"
                "## Energy\n\n- Delivered in 2024: 4,2 GWh\n"
            )
        },
        [
            ("The Hisings Backa warehouse is open every day from 07:00 to 21:00.", True),
            ("The Hisings Backa warehouse is open every day from 07:00 to 20:00.", False),
            ("On Saturdays the office is open 08.00–17.00.", False),  # Monday–Friday's clock
            ("In 2024 we delivered 4,2 GWh.", True),
            ("In 2024 we delivered 4 200 MWh.", True),
            ("In 2024 we delivered 4,2 MWh.", False),
        ],
    ),
    "a line in the other language competes only when it says all the claim says": (
        {
            "kb/vaccin.md": (
                "# Vaccinationer\n\n| Vaccin | Ordinarie pris |\n|---|---|\n"
                "| Rabies | 545 kr |\n| Kattpest | 445 kr |\n\n"
                "- EU-pass för hund och katt: 395 kr\n"
            ),
            "kb/english/info.md": (
                "# In English\n\nPets travelling within the EU need a pet passport (SEK 395) and a "
                "rabies vaccination; a titre test costs SEK 1,250.\n"
            ),
        },
        [
            ("EU-passet kostar 395 kr och rabiesvaccinet 545 kr.", True),
            ("EU-passet kostar 395 kr och rabiesvaccinet 445 kr.", False),
            ("EU-passet kostar 395 kr och rabiesvaccinet 1 250 kr.", False),
        ],
    ),
    "a count that says what it counts is not another count's number": (
        {
            "kb/about.md": (
                "# About us\n\nToday we are 64 employees with a fleet of 23 trucks.\n\n"
                "Vi är 9 veterinärer, 14 djursjukskötare och 4 receptionister.\n"
            ),
            "kb/plans.md": (
                "# Plans\n\n## Help centres\n\nStarter and Team include 1 help centre, "
                "Business includes 5 and Enterprise includes 20.\n"
            ),
        },
        [
            ("We have 23 trucks.", True),
            ("Brisk has 64 employees.", True),
            ("Brisk has 23 employees.", False),
            ("We have sixty-four trucks.", False),
            ("Kliniken har 4 receptionister.", True),
            ("Kliniken har fyra veterinärer.", False),
            ("Kliniken har 14 djursjukskötare.", True),
            ("The Business plan includes five help centres.", True),  # its 5 counts no other thing
            ("The Business plan includes twenty help centres.", False),
        ],
    ),
    "items after a comma and what a yearly price counts by": (
        {
            "kb/fees.md": (
                "# Fees\n\n- Start fee (travel to your first address): 495 kr in Stockholm, "
                "395 kr in Gothenburg\n\n## RUT\n\nThe deduction is 50% of the labour cost, up to "
                "75 000 kr per person and year.\n"
            )
        },
        [
            ("The start fee in Gothenburg is 395 kr.", True),
            ("The start fee in Stockholm is 495 kr.", True),
            ("The start fee in Stockholm is 395 kr.", False),
            ("The RUT deduction is capped at 75 000 kr per person and year.", True),
            ("The RUT deduction is capped at 75 000 kr a year.", True),
            ("The RUT deduction is capped at 75 000 kr per household and year.", False),
        ],
    ),
    "a compound with a linking vowel names its head's row": (
        {
            "kb/vaccin.md": (
                "# Vaccinationer\n\n| Vaccin | Ordinarie pris | Pris under vaccinationsveckorna |\n"
                "|---|---|---|\n| Hund, grundvaccin | 495 kr | 395 kr |\n"
                "| Hund, kennelhosta | 395 kr | 315 kr |\n"
            )
        },
        [
            ("Under vaccinationsveckorna kostar kennelhostevaccinet 315 kr.", True),
            ("Under vaccinationsveckorna kostar kennelhostevaccinet 395 kr.", False),
        ],
    ),
    "a heading's period a number headed column and an abbreviated per": (
        {
            "kb/pensionat.md": (
                "# Djurpensionat\n\n## Priser per dygn\n\n"
                "| Djur | Pris per dygn | Från 7 dygn |\n|---|---|---|\n"
                "| Katt | 195 kr | 175 kr |\n| Kanin | 125 kr | 110 kr |\n\n"
                "## Läkemedel\n\n- Avmaskningstablett: 49,50 kr/st\n"
            )
        },
        [
            ("En katt kostar 195 kr per dygn.", True),  # the heading states the table's period
            ("En katt kostar 195 kr per vecka.", False),
            ("Från 7 dygn kostar en katt 175 kr per dygn.", True),
            ("Pris per dygn katt: 175 kr.", False),  # the plain price is the one without "7 dygn"
            ("En avmaskningstablett kostar 49,5 kr per styck.", True),  # "/st" is "per styck"
            ("En avmaskningstablett kostar 49,5 kr per förpackning.", False),
        ],
    ),
}
BEHAVIOURS["a weekday the fact's subject does not name is another's"] = (
    {
        "kb/onboarding.md": (
            "# Onboarding\n\n- Starter and Team: self-service guides and a 45-minute group "
            "webinar on Tuesdays at 10:00 and Thursdays at 15:00 (CET).\n"
        )
    },
    [
        ("The Tuesday group webinar starts at 10:00.", True),
        ("The Thursday group webinar starts at 15:00 CET.", True),
        ("The Thursday group webinar starts at 10:00 CET.", False),
    ],
)
BEHAVIOURS["a bound's words say nothing of the subject"] = (
    {
        "kb/staff.md": (
            "# Staff hire\n\n| Role | Weekday (per hour) |\n|---|---|\n| Server | 495 kr |\n\n"
            "Minimum booking: 4 hours per staff member.\n\n"
            "Staff hire cancelled less than 48 hours before the event is charged in full.\n"
        ),
        "kb/cakes.md": (
            "# Add-ons\n\n| Add-on | Price per person |\n|---|---|\n"
            "| Coffee and cake | 59 kr |\n| Late-night sliders | 69 kr |\n\n"
            "## Wedding cakes\n\nCake orders must be placed at least 4 weeks before the wedding.\n"
        ),
    },
    [
        (
            "A server costs 495 kr per hour, and each staff member must be booked for at "
            "least 4 hours.",
            True,
        ),
        ("A server costs 495 kr per hour, and must be booked for at least 6 hours.", False),
        ("Wedding cakes must be ordered no later than 4 weeks before the big day.", True),
        ("Wedding cakes must be ordered no later than 6 weeks before the big day.", False),
    ],
)
BEHAVIOURS["a table cell's own weekdays qualify its times"] = (
    {
        "kb/season.md": (
            "# Season\n\n| Production | Start times |\n|---|---|\n"
            "| Frost over Haga | Tue–Sat 19.30, Sun 15.00 |\n\n"
            "Frost over Haga on Thursday 11 December 2025 at 19.30 is signed.\n"
        )
    },
    [
        ("Sunday performances of Frost over Haga start at 3 pm.", True),
        ("Monday performances of Frost over Haga start at 3 pm.", False),
    ],
)
BEHAVIOURS["a one-letter unit alone in a header's brackets is its column's"] = (
    {
        "kb/liftar.md": (
            "# Liftar\n\n| Lift | Längd (m) | Fallhöjd (m) |\n|---|---|---|\n"
            "| Björnliften | 980 | 240 |\n| Ripliften | 640 | 150 |\n"
        )
    },
    [
        ("Björnliften är 980 meter lång.", True),
        ("Björnliften har 240 meters fallhöjd.", True),
        ("Björnliften är 980 km lång.", False),
        ("Ripliften är 980 meter lång.", False),
    ],
)
BEHAVIOURS["a compound's tail alone does not name it"] = (
    {
        "kb/priser.md": (
            "# Timpriser\n\n| Yrkesgrupp | Vardag |\n|---|---|\n"
            "| Rörmokare | 795 kr |\n| Värmetekniker | 845 kr |\n| Avloppsfilmning | 1 250 kr |\n"
        ),
        "kb/jour.md": (
            "# Jour\n\nVid stopp i avloppet eller utebliven värme når du vår jour på "
            "0771-62 40 40.\n"
        ),
    },
    [
        ("Ring vår jour på 0771-62 40 40, så kommer en tekniker ut.", True),
        ("En tekniker kostar 795 kr i timmen på vardagar.", False),  # the plumber's price
        ("En värmetekniker kostar 845 kr i timmen på vardagar.", True),
    ],
)
BEHAVIOURS["a price per person is one per the person its subject names"] = (
    {
        "kb/dinner.md": (
            "# Christmas buffet\n\nOur Christmas buffet is served every evening in December.\n\n"
            "- Julbord, adults: SEK 695 per person\n"
            "- Julbord, children 4–12 years: SEK 295\n"
        )
    },
    [
        ("The julbord costs SEK 695 per adult.", True),
        ("The julbord costs SEK 695 per child.", False),
        ("The julbord costs SEK 695 per group.", False),
    ],
)
BEHAVIOURS["the other language's line, when none in the claim's supports it"] = (
    {
        "kb/groups.md": (
            "# Group bookings\n\nGroups get a discount on weekday evenings and matinees.\n\n"
            "- 20–39 people: 15% off\n- 40 people or more: 20% off\n"
        ),
        "kb/svenska/biljetter.md": (
            "# Biljetter och besök\n\n- Pensionärer (65 år och äldre): 15 procents rabatt\n"
            "- Studerande: 25 procents rabatt på vardagskvällar och matinéer\n"
        ),
    },
    [
        ("Grupper på 20–39 personer får 15 procents rabatt på vardagskvällar.", True),
        ("Studerande får 15 procents rabatt på vardagskvällar.", False),  # a Swedish label's 25
    ],
)
BEHAVIOURS["a time unit alone in a header's brackets makes its column durations"] = (
    {
        "kb/tjanster.md": (
            "# Hälsotjänster\n\n| Tjänst | Pris (kr) | Tid (min) |\n|---|---|---|\n"
            "| Hälsokontroll | 595 | 30 |\n| Resevaccinationsrådgivning | 350 | 45 |\n"
        )
    },
    [
        ("En hälsokontroll tar 30 minuter.", True),
        ("Rådgivningen inför resan tar fyrtiofem minuter.", True),
        ("En hälsokontroll tar 30 timmar.", False),
        ("En hälsokontroll tar 45 minuter.", False),
    ],
)
BEHAVIOURS["a comparative after a negation is the opposite bound"] = (
    {
        "kb/el.md": "# Electricity\n\nUse an approved cable in one piece, at most 25 m long.\n",
        "kb/svenska/el.md": "# El\n\nKabeln får vara högst 25 meter lång.\n",
    },
    [
        ("Your cable must be in one piece and no longer than 25 metres.", True),
        ("Your cable must be in one piece and not longer than 25 metres.", True),
        ("Your cable must be in one piece and at least 25 metres long.", False),
        ("Kabeln är inte längre än 25 meter.", True),
        ("Kabeln är inte kortare än 25 meter.", False),
    ],
)
BEHAVIOURS["tonnes are a unit, in English as in Swedish"] = (
    {
        "kb/crane.md": (
            "# Crane lifts\n\n| Boat weight | Lift | Lift and wash |\n|---|---|---|\n"
            "| up to 3 tonnes | 1 150 kr | 1 650 kr |\n| 3–6 tonnes | 1 650 kr | 2 250 kr |\n"
        ),
    },
    [
        ("För båtar upp till 3 ton kostar ett lyft 1 150 kr.", True),
        ("För båtar upp till 3 kg kostar ett lyft 1 150 kr.", False),
    ],
)
BEHAVIOURS['"åt gången" is per occasion'] = (
    {
        "kb/skolor.md": (
            "# Skolklasser\n\nVi tar emot skolklasser för bokprat tisdagar kl. 9–11, "
            "högst 28 elever åt gången.\n"
        )
    },
    [
        ("Skolklasser får komma med högst 28 elever per tillfälle.", True),
        ("School classes may bring at most 28 pupils at a time.", True),
        ("Skolklasser får komma med högst 28 elever per dag.", False),
    ],
)
BEHAVIOURS["a number of the same line stated beside the claim competes for its own words"] = (
    {
        "kb/mattor.md": (
            "# Mattvätt\n\n| Mattyp | Pris per m² | Minsta pris | Leveranstid |\n"
            "|---|---|---|---|\n| Trasmatta | 145 kr | 295 kr | 7 dagar |\n"
            "| Handknuten matta | 320 kr | 795 kr | 3 veckor |\n"
        ),
    },
    [
        (
            "En handknuten matta kostar 320 kr per kvadratmeter, med ett minsta pris på 795 kr.",
            True,
        ),
        (
            "En handknuten matta kostar 795 kr per kvadratmeter, med ett minsta pris på 320 kr.",
            False,
        ),
        ("En handknuten matta har ett minsta pris på 320 kr.", False),
    ],
)
BEHAVIOURS["another table's column names a claim only if a cell under it could state it"] = (
    {
        "kb/leverans.md": (
            "# Hämtning och leverans\n\n## Så fungerar det\n\n1. Vi hämtar mellan 17.00 och "
            "21.00.\n2. Vi levererar tillbaka efter 3 arbetsdagar. Tvätt per kilo levereras "
            "redan efter 2 arbetsdagar.\n"
        ),
        "kb/foretag.md": (
            "# För företag\n\n| Abonnemang | Månadsavgift | Tvätt som ingår per månad | "
            "Hämtningar per vecka |\n|---|---|---|---|\n| Bas | 1 250 kr | 25 kg | 1 |\n"
            "| Plus | 2 890 kr | 60 kg | 2 |\n| Premium | 5 400 kr | 120 kg | 3 |\n\n"
            "## Personalförmån\n\nAnställda hos företag med Plus eller Premium får 20 % "
            "rabatt på kemtvätt i våra butiker. Med Bas får de anställda 10 % rabatt. Visa "
            "företagskortet vid inlämning.\n"
        ),
    },
    [
        # "Tvätt" names the kilo column, whose cells are weights, not days.
        ("Tvätten levereras tillbaka efter 3 arbetsdagar.", True),
        ("Tvätten levereras tillbaka efter 2 arbetsdagar.", False),
        ("I Plus ingår 60 kg tvätt per månad.", True),
        ("I Plus ingår 25 kg tvätt per månad.", False),
        # A row's key names a thing that prose says more of, whatever its cells hold.
        ("Med Bas får de anställda 10 % rabatt på kemtvätt.", True),
        ("Med Bas får de anställda 20 % rabatt på kemtvätt i butikerna.", False),
    ],
)
BEHAVIOUR_CHECKS = {name: checker(kb) for name, (kb, _) in BEHAVIOURS.items()}


@pytest.mark.parametrize(
    ("behaviour", "answer", "grounded"),
    [
        (name, answer, grounded)
        for name, (_, cases) in BEHAVIOURS.items()
        for answer, grounded in cases
    ],
)
def test_each_behaviour_on_its_small_kb(behaviour, answer, grounded):
    verdict = BEHAVIOUR_CHECKS[behaviour](answer)
    assert verdict.grounded is grounded, verdict.unsupported


@pytest.mark.parametrize(
    ("claim_text", "fact_text", "competes"),
    [
        ("Vi installerar inom 150 km.", "- Installerad effekt: 51,3 MWp", False),
        ("Batteriet laddar med 5 kW.", "- Lagring: 10 kWh", False),
        ("Paketet väger 2 kg.", "- Kuvert: högst 500 g", True),
        ("Det ingår 100 GB.", "- Lagring: 5 TB", True),  # units of no known dimension
    ],
)
def test_a_measure_competes_in_any_unit_of_its_own_dimension_only(claim_text, fact_text, competes):
    """ "150 km" could not be stated from "51.3 MWp": it names no such sibling (rows 6, 7b)."""
    [claim] = extract_claims(claim_text, language="sv")
    [fact] = extract_facts(fact_text + "\n", file="kb/a.md", language="sv")
    assert rule.could_be_stated_from(claim, fact) is competes
