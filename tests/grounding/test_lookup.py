"""The KB-wide fact lookup (grounding/lookup.py): a fact's siblings, found once and kept."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding import lookup
from grounding.facts import extract_facts
from grounding.lookup import FactTable

PRICES = """# Priser

| Plan | Pris per månad | Bindningstid |
|---|---|---|
| Bas | 199 kr | 12 månader |
| Plus | 299 kr | 24 månader |
| Max | 399 kr | 24 månader |

## Support

- Telefon: 08-123 45 67
- Chatt: vardagar 8-17
"""


def _table() -> FactTable:
    return FactTable.from_documents({"kb/priser.md": PRICES})


def _all_names(table: FactTable) -> list[str]:
    found = (names for fact in table.facts for _, names in table.siblings(fact))
    return sorted(frozenset().union(*found))


@given(st.data())
def test_the_siblings_named_by_some_terms_are_those_of_all_its_siblings_the_terms_name(data):
    table = _table()
    fact = data.draw(st.sampled_from(table.facts))
    words = frozenset(data.draw(st.lists(st.sampled_from(_all_names(table)), max_size=4)))
    every = table.siblings(fact)
    assert table.siblings(fact, named_by=words) == [
        (other, names) for other, names in every if names & words
    ]


def test_a_cells_siblings_are_the_other_rows_of_its_column_and_columns_of_its_row():
    table = _table()
    plus = next(fact for fact in table.facts if fact.value == "299")
    values = sorted(other.value for other, _ in table.siblings(plus))
    assert values == ["199", "24", "399"]


def _described(table: FactTable) -> list[list[tuple]]:
    return [
        [(other.value, other.line, other.cell, names) for other, names in table.siblings(fact)]
        for fact in table.facts
    ]


def test_siblings_found_again_after_the_table_let_them_go_are_the_same(monkeypatch):
    kept = _described(_table())
    monkeypatch.setattr(lookup, "SIBLINGS_KEPT", 2)  # every fact evicts the ones before it
    table = _table()
    assert _described(table) == kept
    assert _described(table) == kept  # found again, each after the others' eviction


def test_a_table_keeps_at_most_its_bound_of_siblings(monkeypatch):
    monkeypatch.setattr(lookup, "SIBLINGS_KEPT", 4)
    table = _table()
    for fact in table.facts:
        table.siblings(fact)
        kept = sum(len(found) for found, _ in table._siblings_found.values())
        assert kept <= max(4, len(table.siblings(fact)))


@pytest.mark.parametrize("times", [1, 2])
def test_a_fact_of_another_table_gets_its_siblings_here_but_is_not_kept(times):
    table = _table()
    edited = extract_facts(PRICES.replace("299 kr", "289 kr"), file="kb/priser.md")
    stranger = next(fact for fact in edited if fact.value == "289")
    for _ in range(times):
        found = table.siblings(stranger)
    assert found and id(stranger) not in table._siblings_found


_SWEDISH = """# Priser

- Årskortet kostar 5 900 kr.
- Vi svarar inom 5 dagar.
- Returer hanteras på 5 dagar.
"""
_ENGLISH = """# Prices

- The annual pass costs SEK 5,900.
- We reply within 5 days.
"""


def _bilingual() -> FactTable:
    return FactTable.from_documents({"kb/priser.md": _SWEDISH, "kb/english/prices.md": _ENGLISH})


def test_a_value_stated_once_in_each_language_pairs_the_words_of_its_keys():
    table = _bilingual()
    assert "årskort" in table.translations("annual") | table.translations("pass")


def test_a_value_one_language_states_twice_pairs_no_words():
    table = _bilingual()
    # "5 days" restates one of two Swedish lines: which one, nothing says.
    assert not table.translations("reply") & {"retur", "returer", "hantera", "hanteras"}


_SHOP = """# Webbshop

## Hämta i butik

- Vi sparar din order i butiken i 7 dagar.
"""
_PRESCRIPTIONS = """# Recept

## Hämta ut recept

- Vi sparar beställda läkemedel i butiken i 14 dagar.
- Vi svarar på frågor om recept inom 2 dagar.
"""


def test_a_like_number_of_another_file_whose_key_shares_two_terms_is_a_sibling():
    table = FactTable.from_documents({"kb/webbshop.md": _SHOP, "kb/recept.md": _PRESCRIPTIONS})
    kept = next(fact for fact in table.facts if fact.value == "14")
    siblings = {other.value: names for other, names in table.siblings(kept)}
    # "sparar ... i butiken ... dagar": the web shop's order, told apart by its own words.
    assert "order" in siblings["7"]


def test_a_like_number_sharing_one_term_with_the_key_is_no_sibling():
    table = FactTable.from_documents({"kb/webbshop.md": _SHOP, "kb/recept.md": _PRESCRIPTIONS})
    answered = next(fact for fact in table.facts if fact.value == "2")
    assert "7" not in {other.value for other, _ in table.siblings(answered)}


_CONTRACTS = """# Contracts

## When a fixed-price contract ends

We send you a reminder at least 60 days before your fixed-price contract ends.

## Moving

Tell us at least 14 days before you move.
"""


def test_the_sections_under_one_heading_are_siblings_whatever_their_keys():
    table = FactTable.from_documents({"kb/contracts.md": _CONTRACTS})
    reminder = next(fact for fact in table.facts if fact.value == "60")
    siblings = {other.value: names for other, names in table.siblings(reminder)}
    assert "moving" in siblings["14"] or "move" in siblings["14"]
