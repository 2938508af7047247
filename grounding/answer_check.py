"""The grounding check on a given question and answer, as staff run it.

Used by ``manage.py verify_answer`` and the admin's retrieval preview: the
same retrieval and verification the chat uses, without the LLM.
"""

from dataclasses import dataclass, field

from grounding.cited import NO_SUPPORT, verify_cited
from grounding.index import KBIndex
from grounding.retrieval import retrieve
from grounding.snippets import Snippet


@dataclass
class AnswerCheck:
    grounded: bool
    text: str  # the answer, or the message the client would see instead
    reason: str | None
    citations: list[dict]
    unsupported: list[dict]
    snippets: list[Snippet] = field(default_factory=list)
    category: str | None = None

    def as_dict(self) -> dict:
        return {
            "grounded": self.grounded,
            "text": self.text,
            "reason": self.reason,
            "citations": self.citations,
            "unsupported": self.unsupported,
            "retrieved": [
                {"file": s.file, "line": s.start_line, "score": round(float(s.score), 4)}
                for s in self.snippets
            ],
            "category": self.category,
        }


def unsupported_with_locations(unsupported) -> list[dict]:
    """Each unsupported number with the KB lines stating its value (the facts considered)."""
    return [item.as_dict() for item in unsupported]


def answer_check(
    *,
    index: KBIndex,
    question: str,
    answer: str,
    top_k: int | None = None,
    threshold: float | None = None,
    withheld_text: str = "Jag kan inte verifiera det.",
    no_support_text: str = "Jag hittar inget stöd i kunskapsbasen.",
    uncited: bool = False,
) -> AnswerCheck:
    """Retrieve for ``question`` and verify ``answer`` against what was retrieved
    (``uncited``: a person's message, whose numbers cite nothing: ``CitedChecker``)."""
    result = retrieve(index, question, top_k=top_k, threshold=threshold)
    verdict = verify_cited(
        answer, result.context, facts=index.facts, question=question, uncited=uncited
    )
    if verdict.reason == NO_SUPPORT:
        return AnswerCheck(False, no_support_text, NO_SUPPORT, [], [], [], result.category)
    return AnswerCheck(
        grounded=verdict.grounded,
        text=answer if verdict.grounded else withheld_text,
        reason=verdict.reason,
        citations=[c.as_dict() for c in verdict.citations],
        unsupported=unsupported_with_locations(verdict.unsupported),
        snippets=list(result.snippets),
        category=result.category,
    )
