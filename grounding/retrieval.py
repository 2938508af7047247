"""One retrieval step of a chat turn: follow-ups, category, top-k relative to the best hit.

Pure given an index. A short acknowledgement (``ja``, ``ok``, ``gärna``,
``yes``) carries no topic of its own, so it is answered from the previous
question's context: the previous query is searched again, with its category.
"""

from dataclasses import dataclass, field

from django.conf import settings

from grounding.cards import fact_cards
from grounding.facts import Fact
from grounding.index import KBIndex
from grounding.snippets import Snippet
from grounding.text import words

ACKNOWLEDGEMENTS = frozenset(
    {
        # Swedish
        "ja", "jaa", "japp", "jo", "javisst", "jajamen", "ok", "okej", "okey", "okay", "gärna",
        "tack", "tackar", "toppen", "bra", "fint", "precis", "absolut", "visst", "självklart",
        "jaha", "aha", "mm", "mhm", "kör", "fortsätt", "mer",
        # English
        "yes", "yeah", "yep", "yup", "sure", "please", "thanks", "thank", "thx", "great",
        "fine", "cool", "nice", "alright", "right", "more", "continue",
    }
)  # fmt: skip
# Words that may accompany an acknowledgement without making it a question.
_FILLERS = frozenset(
    {
        "så", "mycket", "väldigt", "det", "den", "du", "dig", "bara", "berätta", "gör",
        "låter", "mig", "you", "very", "much", "so", "that", "sounds", "go", "on", "tell", "me",
        "do", "it", "a", "lot",
    }
)  # fmt: skip
_MAX_FOLLOW_UP_WORDS = 5


@dataclass(frozen=True, slots=True)
class RetrievalResult:
    snippets: list[Snippet] = field(default_factory=list)
    category: str | None = None
    query: str = ""  # the query actually searched (the previous one for a follow-up)
    cards: list[Fact] = field(default_factory=list)  # facts the question names (grounding.cards)

    @property
    def context(self) -> list[Snippet]:
        """What the generator answers from and the guard counts as retrieved: the snippets,
        then each card's line as a one-line snippet under its subject."""
        lines = [
            Snippet(
                file=card.file,
                text=card.text,
                start_line=card.line,
                heading=card.subject_text.rpartition(" > ")[0],
                category="card",
            )
            for card in dict.fromkeys(self.cards)
        ]
        return [*self.snippets, *dict.fromkeys(lines)]


def is_follow_up(text: str) -> bool:
    """Whether ``text`` is a short acknowledgement such as ``ja``, ``ok tack`` or ``yes please``."""
    found = words(text) or [w for w in text.lower().split() if w.isalpha()]
    if not found or len(found) > _MAX_FOLLOW_UP_WORDS:
        return False
    return all(w in ACKNOWLEDGEMENTS or w in _FILLERS for w in found) and any(
        w in ACKNOWLEDGEMENTS for w in found
    )


def retrieve(
    index: KBIndex,
    query: str,
    *,
    previous_query: str | None = None,
    top_k: int | None = None,
    threshold: float | None = None,
) -> RetrievalResult:
    """Search ``index`` for ``query`` (or ``previous_query`` when ``query`` is a follow-up).

    Callers keep ``result.query`` as the next turn's ``previous_query``, so a
    chain of acknowledgements stays on the original question.
    """
    if previous_query and is_follow_up(query):
        query = previous_query
    top_k = settings.RETRIEVAL_TOP_K if top_k is None else top_k
    threshold = settings.RETRIEVAL_RELATIVE_THRESHOLD if threshold is None else threshold
    category = index.detect_category(query)
    snippets = index.search(query, top_k=top_k, threshold=threshold, category=category)
    cards = fact_cards(index.facts, query, snippets) if snippets else []
    return RetrievalResult(snippets=snippets, category=category, query=query, cards=cards)
