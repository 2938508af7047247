"""Cases made from a KB's own facts (``grounding.mutation``), without a checker."""

from hypothesis import given, settings
from hypothesis import strategies as st

from grounding.evaluation import Expect
from grounding.facts import extract_facts
from grounding.mutation import mutation_cases, statement_of
from grounding.references import strip_references

TABLE = """# Hemförsäkring

| | Hem Start | Hem Mellan |
|---|---|---|
| Premie per månad | 89 kr/mån | 139 kr/mån |
| Självrisk | 3 000 kr | 1 500 kr |
"""
PROSE = """# Villkor

## Uppsägning

Du kan säga upp avtalet senast 30 dagar före förnyelsen.
Pappersfaktura kostar 29,50 kr per avi inkl. moms.
"""
LIST = """# Fakturor

- Fakturaavgift för e-faktura: 0 kr
- Fakturaavgift för pappersfaktura: 29 kr
"""


def facts(markdown: str):
    return extract_facts(markdown, file="kb/x.md")


def cases_of(markdown: str):
    return mutation_cases(facts(markdown)).cases


def answers(markdown: str, kind: str, start: str = "") -> set[str]:
    return {c.answer for c in cases_of(markdown) if c.kind == kind and c.answer.startswith(start)}


def test_a_table_cell_is_said_with_its_row_and_column():
    cell = next(f for f in facts(TABLE) if f.value == "139")
    statement = statement_of(cell)
    assert statement.sentence == "Hem Mellan premie per månad: 139 kr/mån."
    assert statement.reading.text.startswith("139")


def test_a_restatement_cites_the_facts_line_after_the_number_unit_and_period():
    assert answers(TABLE, "restate_exact", "Hem Mellan premie") == {
        "Hem Mellan premie per månad: 139 kr/mån [kb/x.md:5]."
    }
    assert answers(PROSE, "restate_exact", "Pappersfaktura") == {
        "Pappersfaktura kostar 29,50 kr per avi [kb/x.md:6] inkl. moms."
    }


def test_every_number_of_a_restated_line_cites_that_line():
    line = "# Konto\n\nEfter 5 felaktiga försök låses kontot i 15 minuter.\n"
    assert answers(line, "restate_exact") == {
        "Efter 5 [kb/x.md:3] felaktiga försök låses kontot i 15 minuter [kb/x.md:3]."
    }


def test_a_cells_sibling_value_is_cited_both_ways_and_its_subject_with_this_facts_line():
    mellan = "Hem Mellan premie"
    assert answers(TABLE, "wrong_sibling_cited_source", mellan) == {
        "Hem Mellan premie per månad: 89 kr/mån [kb/x.md:5]."
    }
    assert answers(TABLE, "wrong_sibling_cited_true", mellan) == {
        "Hem Mellan premie per månad: 89 kr/mån [kb/x.md:5]."
    }
    assert answers(TABLE, "wrong_subject", "Hem Start premie") == {
        "Hem Start premie per månad: 139 kr/mån [kb/x.md:5]."
    }


def test_a_list_items_sibling_is_cited_at_its_own_line_and_its_label_at_this_one():
    e_invoice = "Fakturaavgift för e-faktura"
    assert answers(LIST, "wrong_sibling_cited_source", e_invoice) == {
        "Fakturaavgift för e-faktura: 29 kr [kb/x.md:4]."
    }
    assert answers(LIST, "wrong_sibling_cited_true", e_invoice) == {
        "Fakturaavgift för e-faktura: 29 kr [kb/x.md:3]."
    }
    assert "Fakturaavgift för pappersfaktura: 0 kr [kb/x.md:3]." in answers(LIST, "wrong_subject")


def test_only_siblings_of_the_same_unit_and_period_are_swapped():
    swapped = answers(TABLE, "wrong_sibling_cited_true", "Hem Start självrisk")
    assert swapped == {"Hem Start självrisk: 1 500 kr [kb/x.md:6]."}


def test_prose_gets_restatements_and_every_kind_of_wrong_answer():
    kinds = {(c.kind, c.expect) for c in cases_of(PROSE)}
    assert ("restate_exact", Expect.GROUNDED) in kinds
    assert ("restate_words", Expect.GROUNDED) in kinds
    assert ("restate_decimal", Expect.GROUNDED) in kinds
    for kind in (
        "wrong_digit",
        "wrong_unit",
        "wrong_bound",
        "wrong_words",
        "wrong_condition",
        "no_reference",
    ):
        assert (kind, Expect.WITHHELD) in kinds, kind
    assert answers(PROSE, "wrong_bound") == {
        "Du kan säga upp avtalet tidigast 30 dagar [kb/x.md:5] före förnyelsen."
    }
    assert answers(PROSE, "restate_words", "Du kan") == {
        "Du kan säga upp avtalet senast trettio dagar [kb/x.md:5] före förnyelsen."
    }
    assert answers(PROSE, "wrong_condition") == {
        "Pappersfaktura kostar 29,50 kr per avi [kb/x.md:6] exkl. moms."
    }
    assert answers(PROSE, "no_reference", "Du kan") == {
        "Du kan säga upp avtalet senast 30 dagar före förnyelsen."
    }


def test_a_bound_reversed_at_the_start_of_a_sentence_keeps_its_capital():
    line = "# Konto\n\nEfter 5 felaktiga försök låses kontot.\n"
    assert answers(line, "wrong_bound") == {"Före 5 [kb/x.md:3] felaktiga försök låses kontot."}


def test_a_number_that_is_part_of_a_name_gets_no_case_without_its_reference():
    names = "# Appar\n\n## Systemkrav\n\n- Windows: Windows 10 eller senare.\n- Mac: macOS 13.\n"
    kinds = {c.kind for c in cases_of(names)}
    assert "restate_exact" in kinds
    assert "no_reference" not in kinds


def test_facts_with_the_same_words_and_other_values_are_listed_not_swapped():
    same = "# Priser\n\n- Premium kostar 399 kr/månad.\n- Premium kostar 499 kr/månad.\n"
    result = mutation_cases(facts(same))
    assert [(a.value, b.value) for a, b in result.indistinguishable] == [("399", "499")]
    assert result.indistinguishable_share == 1.0
    assert not any(c.kind.startswith(("wrong_sibling", "wrong_subject")) for c in result.cases)


def test_a_unit_written_with_a_superscript_keeps_it_and_the_number_changes():
    area = "# Gym\n\nOur largest gym has 1,800 m² over two floors.\n"
    digit = next(c.answer for c in cases_of(area) if c.kind == "wrong_digit")
    assert digit == "Our largest gym has 1,801 m² [kb/x.md:3] over two [kb/x.md:3] floors."


@given(st.integers(min_value=2, max_value=99_999), st.integers(min_value=2, max_value=99_999))
@settings(max_examples=40, deadline=None)
def test_every_wrong_answer_differs_from_every_restatement(first, second):
    markdown = (
        f"# Priser\n\n## Basic\n\nBasic kostar {first} kr.\n\n## Plus\n\nPlus kostar {second} kr.\n"
    )
    cases = mutation_cases(facts(markdown)).cases
    right = {c.answer for c in cases if c.expect == Expect.GROUNDED}
    assert right
    for case in cases:
        if case.expect == Expect.WITHHELD:
            assert case.answer not in right
            if case.kind != "no_reference":
                assert strip_references(case.answer)[1], case.answer


def test_a_sibling_told_apart_by_its_heading_alone_is_named_by_its_heading():
    sections = (
        "# Priser\n\n## Bas\n\n- Hastighet: 100 Mbit/s\n\n## Plus\n\n- Hastighet: 250 Mbit/s\n"
    )
    bas = [c for c in cases_of(sections) if c.question == "Bas"]
    assert {c.answer for c in bas if c.kind == "wrong_subject"} == {
        "Plus: hastighet: 100 Mbit/s [kb/x.md:5]."
    }
    assert {c.answer for c in bas if c.kind == "wrong_sibling_cited_source"} == {
        "Hastighet: 250 Mbit/s [kb/x.md:9]."
    }


def test_the_condition_reversed_is_the_facts_own_and_only_where_it_states_one():
    lines = (
        "# Laddbox\n\n"
        "- Price including standard installation: SEK 15,900 including VAT, before the deduction.\n"
        "- Alla priser är inklusive 25 % moms.\n"
    )
    assert answers(lines, "wrong_condition") == {
        "Price including standard installation: SEK 15,900 [kb/x.md:3] excluding VAT, "
        "before the deduction."
    }
