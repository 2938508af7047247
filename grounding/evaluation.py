"""Score a checker on question/answer cases: pass counts per kind, and every miss.

Pure: the cases come in as text, the check as a callable (``grounding_eval``
passes ``answer_check`` on the current index, the check ``verify_answer``
runs), so no ORM and no I/O here.

A case file holds one JSON object per line (blank lines and lines starting
with ``#`` are skipped):

| field | meaning |
|---|---|
| ``question`` | the customer's question (what retrieval searches for) |
| ``answer`` | the answer to check |
| ``expect`` | ``grounded`` (must pass) or ``withheld`` (must be blocked) |
| ``kind`` | what the case tests, e.g. ``paraphrase`` or ``swapped_subject`` |

The two figures are kept apart, per kind and in total: a checker that
blocks everything scores every withheld case and no grounded one.
"""

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum


class Expect(StrEnum):
    GROUNDED = "grounded"
    WITHHELD = "withheld"


class CaseFormatError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Case:
    question: str
    answer: str
    expect: Expect
    kind: str
    line: int  # 1-based line of the case file (of the KB file, for a generated case)
    source: str = ""  # the KB file a generated case was made from


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the check said about one case: the verdict and what it looked at."""

    grounded: bool
    reason: str | None = None
    details: dict = field(default_factory=dict)  # citations, unsupported, retrieved...


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: Case
    outcome: Outcome

    @property
    def passed(self) -> bool:
        """Whether the checker did what the case expects."""
        return self.outcome.grounded == (self.case.expect == Expect.GROUNDED)


@dataclass(frozen=True, slots=True)
class Tally:
    passed: int
    total: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 1.0

    def __str__(self) -> str:
        return f"{self.passed}/{self.total}"


@dataclass(frozen=True, slots=True)
class Report:
    results: list[CaseResult]

    def tally(self, expect: Expect, kind: str | None = None) -> Tally:
        chosen = [
            r
            for r in self.results
            if r.case.expect == expect and (kind is None or r.case.kind == kind)
        ]
        return Tally(sum(r.passed for r in chosen), len(chosen))

    def kinds(self, expect: Expect) -> list[str]:
        """The kinds of ``expect`` cases, in the order they first appear in the file."""
        return list(dict.fromkeys(r.case.kind for r in self.results if r.case.expect == expect))

    @property
    def misses(self) -> list[CaseResult]:
        return [r for r in self.results if not r.passed]

    @property
    def grounded(self) -> Tally:
        return self.tally(Expect.GROUNDED)

    @property
    def withheld(self) -> Tally:
        return self.tally(Expect.WITHHELD)

    def as_dict(self) -> dict:
        return {
            "grounded": _tally_dict(self.grounded),
            "withheld": _tally_dict(self.withheld),
            "kinds": [
                {"expect": str(expect), "kind": kind, **_tally_dict(self.tally(expect, kind))}
                for expect in Expect
                for kind in self.kinds(expect)
            ],
            "misses": [
                {
                    "line": r.case.line,
                    **({"source": r.case.source} if r.case.source else {}),
                    "kind": r.case.kind,
                    "expect": str(r.case.expect),
                    "question": r.case.question,
                    "answer": r.case.answer,
                    "grounded": r.outcome.grounded,
                    "reason": r.outcome.reason,
                    **r.outcome.details,
                }
                for r in self.misses
            ],
        }


def _tally_dict(tally: Tally) -> dict:
    return {"passed": tally.passed, "total": tally.total}


def parse_cases(lines: Iterable[str]) -> list[Case]:
    """The cases of a JSONL case file; ``CaseFormatError`` names the first bad line."""
    cases = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
            case = Case(
                question=str(data["question"]),
                answer=str(data["answer"]),
                expect=Expect(data["expect"]),
                kind=str(data.get("kind") or "unspecified"),
                line=number,
            )
        except (ValueError, KeyError, TypeError) as error:
            raise CaseFormatError(f"line {number}: {error}") from error
        cases.append(case)
    return cases


def evaluate(cases: Iterable[Case], check: Callable[[str, str], Outcome]) -> Report:
    """Run ``check(question, answer)`` on every case."""
    return Report([CaseResult(case, check(case.question, case.answer)) for case in cases])
