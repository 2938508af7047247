"""Cases made from a KB's own facts (``grounding.mutation``), without a checker."""

from hypothesis import given, settings
from hypothesis import strategies as st

from grounding.evaluation import Expect
from grounding.facts import extract_facts
from grounding.mutation import mutation_cases, statement_of

TABLE = """# Hemförsäkring

| | Hem Start | Hem Mellan |
|---|---|---|
| Premie per månad | 89 kr/mån | 139 kr/mån |
| Självrisk | 3 000 kr | 1 500 kr |
"""
PROSE = """# Villkor

## Uppsägning

Du kan säga upp avtalet senast 30 dagar före förnyelsen.
Pappersfaktura kostar 29,50 kr per avi.
"""


def facts(markdown: str):
    return extract_facts(markdown, file="kb/x.md")


def cases_of(markdown: str):
    return mutation_cases(facts(markdown)).cases


def test_a_table_cell_is_said_with_its_row_and_column():
    cell = next(f for f in facts(TABLE) if f.value == "139")
    statement = statement_of(cell)
    assert statement.sentence == "Hem Mellan premie per månad: 139 kr/mån."
    assert statement.reading.text.startswith("139")


def test_a_cell_is_swapped_with_its_row_and_column_siblings_only():
    wrong = {
        c.answer
        for c in cases_of(TABLE)
        if c.kind == "wrong_sibling" and c.answer.startswith("Hem Mellan premie")
    }
    assert wrong == {"Hem Mellan premie per månad: 89 kr/mån."}


def test_prose_gets_restatements_and_every_kind_of_wrong_answer():
    kinds = {(c.kind, c.expect) for c in cases_of(PROSE)}
    assert ("restate_exact", Expect.GROUNDED) in kinds
    assert ("restate_words", Expect.GROUNDED) in kinds
    assert ("restate_decimal", Expect.GROUNDED) in kinds
    for kind in ("wrong_digit", "wrong_unit", "wrong_bound", "wrong_words"):
        assert (kind, Expect.WITHHELD) in kinds, kind
    bound = next(c.answer for c in cases_of(PROSE) if c.kind == "wrong_bound")
    assert bound == "Du kan säga upp avtalet tidigast 30 dagar före förnyelsen."
    words = next(c.answer for c in cases_of(PROSE) if c.kind == "restate_words")
    assert words == "Du kan säga upp avtalet senast trettio dagar före förnyelsen."


def test_facts_with_the_same_words_and_other_values_are_listed_not_swapped():
    same = "# Priser\n\n- Premium kostar 399 kr/månad.\n- Premium kostar 499 kr/månad.\n"
    result = mutation_cases(facts(same))
    assert [(a.value, b.value) for a, b in result.indistinguishable] == [("399", "499")]
    assert result.indistinguishable_share == 1.0
    assert not any(c.kind == "wrong_sibling" for c in result.cases)


def test_a_unit_written_with_a_superscript_keeps_it_and_the_number_changes():
    area = "# Gym\n\nOur largest gym has 1,800 m² over two floors.\n"
    digit = next(c.answer for c in cases_of(area) if c.kind == "wrong_digit")
    assert digit == "Our largest gym has 1,801 m² over two floors."


@given(st.integers(min_value=2, max_value=99_999), st.integers(min_value=2, max_value=99_999))
@settings(max_examples=40, deadline=None)
def test_every_wrong_answer_differs_from_what_the_kb_says(first, second):
    markdown = (
        f"# Priser\n\n## Basic\n\nBasic kostar {first} kr.\n\n## Plus\n\nPlus kostar {second} kr.\n"
    )
    for fact in facts(markdown):
        statement = statement_of(fact)
        for case in mutation_cases([fact]).cases:
            if case.expect == Expect.WITHHELD:
                assert case.answer != statement.sentence
