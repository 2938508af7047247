"""The fact table's siblings: read once per fact and kept, within a bound."""

from grounding import lookup
from grounding.lookup import FactTable

PRICES = "# Priser\n\n- Bas: 149 kr/månad\n- Plus: 299 kr/månad\n- Max: 499 kr/månad\n"


def _table() -> FactTable:
    return FactTable.from_documents({"kb/priser.md": PRICES})


def _fact(table: FactTable, value: str):
    return next(fact for fact in table.facts if fact.value == value)


def test_a_facts_siblings_are_the_other_items_of_its_list_with_their_names():
    table = _table()
    siblings = table.siblings(_fact(table, "299"))
    assert sorted(sibling.value for sibling, _ in siblings) == ["149", "499"]
    assert table.sibling_names(_fact(table, "299")) == frozenset().union(
        *(names for _, names in siblings)
    )
    assert "max" in table.sibling_names(_fact(table, "299"))


def test_siblings_are_read_once_per_fact(monkeypatch):
    table = _table()
    reads = []
    read = table._read_siblings
    monkeypatch.setattr(table, "_read_siblings", lambda fact: reads.append(fact) or read(fact))
    plus = _fact(table, "299")
    first = table.siblings(plus)
    assert table.siblings(plus) == first
    table.sibling_names(plus)
    assert reads == [plus]


def test_the_kept_siblings_are_bounded(monkeypatch):
    monkeypatch.setattr(lookup, "SIBLINGS_KEPT", 2)
    table = _table()
    for value in ("149", "299", "499"):
        table.siblings(_fact(table, value))
    assert len(table._siblings_kept) <= 2
    assert sorted(s.value for s, _ in table.siblings(_fact(table, "149"))) == ["299", "499"]
