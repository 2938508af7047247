"""The case runner: parsing case files and keeping grounded and withheld tallies apart."""

import json

import pytest

from grounding.evaluation import CaseFormatError, Expect, Outcome, evaluate, parse_cases


def _line(expect: str, kind: str, answer: str = "a") -> str:
    return json.dumps({"question": "q", "answer": answer, "expect": expect, "kind": kind})


def test_blank_and_comment_lines_are_skipped_and_lines_numbered_from_one():
    cases = parse_cases(["", "# note", _line("grounded", "exact")])
    assert [(c.line, c.expect, c.kind) for c in cases] == [(3, Expect.GROUNDED, "exact")]


@pytest.mark.parametrize(
    "bad",
    ["{not json", json.dumps({"question": "q", "answer": "a"}), _line("perhaps", "exact")],
)
def test_a_bad_line_is_an_error_naming_it(bad):
    with pytest.raises(CaseFormatError, match="line 2"):
        parse_cases([_line("grounded", "exact"), bad])


def test_tallies_keep_grounded_and_withheld_apart_per_kind():
    """A checker that passes everything scores every grounded case and no withheld one."""
    cases = parse_cases(
        [
            _line("grounded", "exact"),
            _line("grounded", "paraphrase"),
            _line("withheld", "wrong_number"),
            _line("withheld", "mixed"),
        ]
    )
    report = evaluate(cases, lambda question, answer: Outcome(grounded=True))
    assert (report.grounded.passed, report.grounded.total) == (2, 2)
    assert (report.withheld.passed, report.withheld.total) == (0, 2)
    assert str(report.tally(Expect.WITHHELD, "mixed")) == "0/1"
    assert report.kinds(Expect.GROUNDED) == ["exact", "paraphrase"]
    assert [m.case.kind for m in report.misses] == ["wrong_number", "mixed"]


def test_the_check_gets_question_and_answer_and_its_details_reach_the_report():
    seen = []

    def check(question, answer):
        seen.append((question, answer))
        return Outcome(grounded=False, reason="No support", details={"retrieved": []})

    report = evaluate(parse_cases([_line("grounded", "exact", answer="x")]), check)
    assert seen == [("q", "x")]
    miss = report.as_dict()["misses"][0]
    assert miss["reason"] == "No support" and miss["retrieved"] == []
    assert report.grounded.rate == 0.0


def test_a_cited_case_reaches_the_check_with_its_references():
    """A ``cases_ref.jsonl`` line (REFERENCED.md: a ``source`` field, a swap's suffixed kind)
    parses, and the check gets the answer with its references as written."""
    cited = {
        "question": "Vad kostar Basic?",
        "answer": "Basic kostar 399 kr/månad [kb/pricing.md:18].",
        "expect": "withheld",
        "kind": "swapped_subject_cited_source",
        "source": 54,
    }
    seen = []
    cases = parse_cases([json.dumps(cited, ensure_ascii=False)])
    report = evaluate(cases, lambda q, a: seen.append(a) or Outcome(grounded=False))
    assert seen == ["Basic kostar 399 kr/månad [kb/pricing.md:18]."]
    assert [(c.kind, c.expect) for c in cases] == [("swapped_subject_cited_source", "withheld")]
    assert report.misses == []
