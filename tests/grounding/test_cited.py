"""The cited checker (grounding/cited.py) can be called off from another thread mid-check."""

import threading
from itertools import product

import pytest

from grounding.cited import CheckCancelled, CitedChecker
from grounding.lookup import FactTable
from grounding.snippets import Snippet

NAMES = [
    f"{a}{b}"
    for a, b in product(
        ["Bar", "Kol", "Mur", "Sten", "Vik"], ["by", "dal", "holm", "lund", "vik", "ås"]
    )
]
DOC = "# Produkter\n\n" + "\n".join(
    f"- {name}: {(i + 1) * 10} kr, {i % 9 + 1} kg" for i, name in enumerate(NAMES)
)
SNIPPETS = [Snippet(file="kb/tat.md", text=DOC, start_line=1, heading="")]
# Ten numbers in one sentence, each citing line 3 ("- Barby: 10 kr, 1 kg").
SENTENCE = ", ".join("Barby kostar 10 kr [tat.md:3]" for _ in range(10)) + "."


class BlockingFacts:
    """The KB's facts, with ``siblings`` (the check's costly step) waiting at its first call
    until the test says go, and counting its calls."""

    def __init__(self, facts: FactTable):
        self._facts = facts
        self.entered = threading.Event()
        self.go = threading.Event()
        self.sibling_calls = 0

    def siblings(self, fact):
        self.sibling_calls += 1
        self.entered.set()
        assert self.go.wait(30)
        return self._facts.siblings(fact)

    def __getattr__(self, name):
        return getattr(self._facts, name)


def test_the_sentence_passes_when_nobody_cancels():
    checker = CitedChecker(SNIPPETS, facts=FactTable.from_documents({"kb/tat.md": DOC}))
    _, checks = checker.read_sentence(SENTENCE)
    assert len(checks) == 10 and all(check.fact is not None for check in checks)


def test_a_check_cancelled_from_another_thread_stops_at_its_next_step():
    """The check runs in a worker thread; the turn's thread cancels it mid-number: it raises
    ``CheckCancelled`` and weighs no other number of the sentence."""
    facts = BlockingFacts(FactTable.from_documents({"kb/tat.md": DOC}))
    checker = CitedChecker(SNIPPETS, facts=facts)
    outcome: list[BaseException | object] = []

    def check():
        try:
            outcome.append(checker.read_sentence(SENTENCE))
        except BaseException as error:
            outcome.append(error)

    worker = threading.Thread(target=check)
    worker.start()
    assert facts.entered.wait(30)
    checker.cancel()
    facts.go.set()
    worker.join(30)
    assert not worker.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], CheckCancelled)
    assert facts.sibling_calls == 1  # the nine numbers after it were never weighed


def test_a_cancelled_checker_checks_nothing_more():
    checker = CitedChecker(SNIPPETS, facts=FactTable.from_documents({"kb/tat.md": DOC}))
    checker.cancel()
    with pytest.raises(CheckCancelled):
        checker.read_sentence(SENTENCE)
