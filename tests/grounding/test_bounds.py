"""Bounds on a KB file's text (grounding/bounds.py): what is kept, what is reported."""

from hypothesis import given
from hypothesis import strategies as st

from grounding.bounds import bounded_text


def _table(columns: int, rows: int) -> str:
    header = "| " + " | ".join(f"kol{i}" for i in range(columns)) + " |"
    rule = "|" + "---|" * columns
    body = ["| " + " | ".join(str(r * i) for i in range(columns)) + " |" for r in range(rows)]
    return "\n".join([header, rule, *body])


def test_a_wide_table_is_read_to_its_first_columns_and_reported_once():
    bounded = bounded_text("# T\n\n" + _table(5000, 3), max_columns=50, max_numbers=0)
    rows = bounded.text.split("\n")[2:]
    assert all(row.count("|") == 51 for row in rows)
    assert bounded.skipped == ["line 3: a table row of 5000 columns read to its first 50"]


def test_a_line_of_too_many_numbers_is_cut_after_the_last_one_kept():
    line = "Värden: " + ", ".join(str(n) for n in range(500))
    bounded = bounded_text(line, max_columns=0, max_numbers=200)
    assert bounded.text.endswith(", 199")
    assert bounded.skipped == ["line 1: 500 numbers read to the first 200"]


def test_a_file_of_too_many_numbers_is_read_to_the_line_that_crosses_the_bound():
    text = "\n".join(f"- Produkt {i}: {i * 10} kr" for i in range(1000))
    bounded = bounded_text(text, max_columns=0, max_numbers=0, max_file_numbers=100)
    assert bounded.text.split("\n")[-1] == "- Produkt 49: 490 kr"
    assert bounded.skipped == [
        "line 51: the file's first 100 numbers read; the rest of the file skipped"
    ]


@given(st.text(max_size=2000))
def test_a_text_within_the_bounds_is_unchanged(text):
    bounded = bounded_text(text, max_columns=10_000, max_numbers=10_000, max_file_numbers=10**6)
    assert bounded.text == text and bounded.skipped == []
