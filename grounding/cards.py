"""Fact cards: the KB's facts a question is about, beside the retrieved chunks.

Pure: no ORM, no I/O. Retrieval finds chunks by their words; a card is a single
fact found by its key (:mod:`grounding.facts`), so a question reaches a fact
whose chunk ranked low, or that the KB states in the other language only. The
generator gets the cards with their references, and the guard counts a card's
line as retrieved.

| a fact scores | for |
|---|---|
| a fact's key or alias term the question names | the term's weight (a name counts twice another word) |
| a question term the KB's own pages translate (a fact stated in both languages: its keys' terms pair up) | as the term it translates to |
| a question that asks for its kind ("ring", "call", "telefonnummer" for a phone number) | one |

A fact needs ``MIN_SCORE``; the best ``MAX_CARDS`` are cards, the KB's order
breaking ties. Facts already on a retrieved line are not repeated.
"""

from collections.abc import Iterable, Sequence

from grounding.facts import Fact
from grounding.lexicon import merged
from grounding.lookup import FactLookup
from grounding.snippets import Snippet
from grounding.terms import terms, text_language

MAX_CARDS = 8
MIN_SCORE = 2.0


def fact_cards(
    facts: FactLookup, question: str, snippets: Sequence[Snippet] = (), *, limit: int = MAX_CARDS
) -> list[Fact]:
    """The facts ``question`` names best that are not on a line of ``snippets``."""
    if not question.strip():
        return []
    language = text_language(question)
    asked = terms(question, language)
    asked |= frozenset().union(*(facts.translations(term) for term in asked))
    kinds = _asked_kinds(question)
    seen = {(s.file, n) for s in snippets for n, _ in s.lines()}
    scores: dict[int, tuple[float, int, Fact]] = {}
    for order, fact in enumerate(_candidates(facts, asked, kinds)):
        if (fact.file, fact.line) in seen or id(fact) in scores:
            continue
        named = (fact.key | facts.aliases(fact)) & asked
        score = sum(facts.weight(term) for term in named) + (str(fact.kind) in kinds)
        if named and score >= MIN_SCORE:
            scores[id(fact)] = (score, order, fact)
    # Ties go by the KB's order (file, line), never by the order sets happened to be read in.
    ranked = sorted(
        scores.values(), key=lambda entry: (-entry[0], entry[2].file, entry[2].line, entry[1])
    )
    return [fact for _, _, fact in ranked[:limit]]


def _candidates(facts: FactLookup, asked: Iterable[str], kinds: frozenset) -> list[Fact]:
    """The facts with a key or alias term the question names, and those of an asked kind."""
    found: list[Fact] = []
    for term in sorted(asked):
        found.extend(facts.keyed_by(term))
    for kind in sorted(kinds):
        found.extend(facts.of_kind(kind))
    return found


def _asked_kinds(question: str) -> frozenset:
    words = {word.strip(".,;:!?()").lower() for word in question.split()}
    return frozenset(kind for word, kind in merged("kind_words").items() if word in words)
