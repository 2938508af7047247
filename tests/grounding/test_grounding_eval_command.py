"""`manage.py grounding_eval`: per-kind counts, every miss, and the exit status."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from grounding import selectors
from grounding.evaluation import Outcome
from grounding.management.commands import grounding_eval
from grounding.models import KBDocument

PRICING = "# Priser\n\n- Premium kostar 399 kr/månad.\n- Basic kostar 99 kr/månad.\n"
CONTACT = "# Kontakt\n\nKundtjänstens telefonnummer är 08-123 45 67.\n"
# Other topics, so that the words of a question tell the files apart (BM25's IDF).
OTHER = {
    "delivery.md": "# Leverans\n\nVi levererar inom tre arbetsdagar.\n",
    "returns.md": "# Retur\n\nDu kan returnera en vara inom en månad.\n",
}

GROUNDED = {
    "question": "Vad kostar Premium?",
    "answer": "Premium kostar 399 kr/månad [kb/pricing.md:3].",
    "expect": "grounded",
    "kind": "exact",
}
GROUNDED_PHONE = {
    "question": "Vilket telefonnummer har kundtjänsten?",
    "answer": "Ring 08-123 45 67 [kb/sub/contact.md:3].",
    "expect": "grounded",
    "kind": "variant_phone",
}
WITHHELD = {
    "question": "Vad kostar Premium?",
    "answer": "Premium kostar 398 kr/månad [kb/pricing.md:3].",
    "expect": "withheld",
    "kind": "off_by_one",
}
# Grounded by the case file, but the KB says otherwise: the checker withholds it.
MISSED_GROUNDED = {
    "question": "Vad kostar Basic?",
    "answer": "Basic kostar 77 kr/månad [kb/pricing.md:4].",
    "expect": "grounded",
    "kind": "exact",
}
# Withheld by the case file, but the KB supports it: the checker lets it through.
PASSED_WITHHELD = {
    "question": "Vad kostar Premium?",
    "answer": "Premium kostar 399 kr/månad [kb/pricing.md:3].",
    "expect": "withheld",
    "kind": "wrong_number",
}


@pytest.fixture
def kb(write_kb):
    selectors.clear_index_cache()
    yield write_kb(
        {"pricing.md": PRICING, "sub/contact.md": CONTACT, "notes.txt": "99 kr", **OTHER}
    )
    selectors.clear_index_cache()


@pytest.fixture
def case_file(tmp_path):
    def write(*cases: dict):
        path = tmp_path / "cases.jsonl"
        path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n")
        return path

    return write


def run(*args) -> tuple[str, int]:
    """The command's output and exit status."""
    out = StringIO()
    try:
        call_command("grounding_eval", *map(str, args), stdout=out)
    except CommandError as error:
        return out.getvalue() + str(error), error.returncode
    return out.getvalue(), 0


@pytest.mark.django_db(transaction=True)
def test_all_cases_as_expected_exit_zero_with_counts_per_kind(kb, case_file):
    """Counts are printed per kind and in total, grounded and withheld apart; exit 0."""
    cases = case_file(GROUNDED, GROUNDED_PHONE, WITHHELD)
    output, status = run(cases, "--kb-dir", kb)
    assert status == 0, output
    assert "grounded cases passed:   2/2" in output
    assert "withheld cases withheld: 1/1" in output
    assert "grounded  exact" in output and "grounded  variant_phone" in output
    assert "withheld  off_by_one" in output
    assert "Misses: 0" in output


@pytest.mark.django_db(transaction=True)
def test_kb_dir_indexes_only_that_directorys_markdown_files(kb, case_file, tmp_path):
    """--kb-dir replaces the index with the directory's *.md files, subfolders included."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "other.md").write_text("# Annat\n\nPris: 5 kr\n")
    call_command("reindex_kb", "--kb-dir", str(other), stdout=StringIO())
    err = StringIO()
    call_command(
        "grounding_eval",
        str(case_file(GROUNDED)),
        "--kb-dir",
        str(kb),
        stdout=StringIO(),
        stderr=err,
    )
    assert f"Index replaced by {kb} alone: 4 added" in err.getvalue()
    assert sorted(KBDocument.objects.values_list("path", flat=True)) == [
        "kb/delivery.md",
        "kb/pricing.md",
        "kb/returns.md",
        "kb/sub/contact.md",
    ]


@pytest.mark.django_db(transaction=True)
def test_a_passed_withheld_case_exits_one_and_is_listed_as_a_miss(kb, case_file):
    """A withheld case the checker lets through fails the run and shows what was cited."""
    output, status = run(case_file(GROUNDED, PASSED_WITHHELD), "--kb-dir", kb)
    assert status == 1
    assert "withheld cases withheld: 0/1" in output
    assert "expected withheld, got GROUNDED" in output
    assert "cites kb/pricing.md:3" in output
    assert "1 withheld cases passed" in output


@pytest.mark.django_db(transaction=True)
def test_a_missed_grounded_case_shows_reason_and_where_the_number_is(kb, case_file):
    """A withheld grounded case is listed with the reason and the lines considered."""
    output, status = run(case_file(GROUNDED, MISSED_GROUNDED), "--kb-dir", kb)
    assert status == 0, output  # no --min-grounded: a grounded miss alone does not fail
    assert "grounded cases passed:   1/2" in output
    assert "expected grounded, got WITHHELD" in output
    assert "unsupported '77" in output
    assert "retrieved: kb/pricing.md:1" in output


@pytest.mark.django_db(transaction=True)
def test_min_grounded_fails_below_the_rate_and_passes_at_it(kb, case_file):
    """--min-grounded 0.6 fails at 1/2 grounded and passes at 0.5."""
    cases = case_file(GROUNDED, MISSED_GROUNDED)
    output, status = run(cases, "--kb-dir", kb, "--min-grounded", "0.6")
    assert status == 1 and "below 60.0%" in output
    assert run(cases, "--min-grounded", "0.5")[1] == 0


@pytest.mark.django_db(transaction=True)
def test_json_output_has_totals_kinds_and_misses(kb, case_file):
    """--json prints one object: totals, per-kind tallies and the misses with their details."""
    out = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "grounding_eval",
            str(case_file(GROUNDED, MISSED_GROUNDED, PASSED_WITHHELD)),
            "--kb-dir",
            str(kb),
            "--json",
            stdout=out,
        )
    report = json.loads(out.getvalue())
    assert report["grounded"] == {"passed": 1, "total": 2}
    assert report["withheld"] == {"passed": 0, "total": 1}
    assert {"expect": "grounded", "kind": "exact", "passed": 1, "total": 2} in report["kinds"]
    assert [m["kind"] for m in report["misses"]] == ["exact", "wrong_number"]
    missed = report["misses"][0]
    assert missed["grounded"] is False and missed["reason"]
    assert missed["unsupported"][0]["text"].startswith("77")
    assert missed["retrieved"][0]["file"] == "kb/pricing.md"


@pytest.mark.django_db(transaction=True)
def test_a_right_number_without_its_reference_is_a_grounded_miss(kb, case_file):
    """A case file in free text (no references) is no longer grounded: "no reference"."""
    uncited = {**GROUNDED, "answer": "Premium kostar 399 kr/månad."}
    output, status = run(case_file(GROUNDED, uncited), "--kb-dir", kb)
    assert status == 0, output
    assert "grounded cases passed:   1/2" in output
    assert "unsupported '399 kr' (no reference)" in output


@pytest.mark.django_db(transaction=True)
def test_a_malformed_case_file_names_the_line(kb, tmp_path):
    """A case without `expect`, or with an unknown one, is an error naming its line."""
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(GROUNDED) + "\n" + json.dumps({**GROUNDED, "expect": "maybe"}))
    output, status = run(path, "--kb-dir", kb)
    assert status == 1 and "line 2" in output


@pytest.mark.django_db(transaction=True)
def test_a_missing_kb_dir_is_an_error(case_file, tmp_path):
    """A --kb-dir that does not exist ends the command with an error."""
    output, status = run(case_file(GROUNDED), "--kb-dir", tmp_path / "missing")
    assert status == 1 and "not found" in output


@pytest.mark.django_db(transaction=True)
def test_a_miss_lists_the_kb_lines_that_state_its_number(kb, case_file):
    """A number the KB states for another subject is shown with the line that states it."""
    swapped = {**MISSED_GROUNDED, "answer": "Basic kostar 399 kr/månad [kb/pricing.md:3]."}
    output, _ = run(case_file(swapped), "--kb-dir", kb)
    assert "expected grounded, got WITHHELD" in output
    assert "in the KB: kb/pricing.md:3 - Premium kostar 399 kr/månad." in output


@pytest.mark.django_db(transaction=True)
def test_mutate_makes_cases_from_the_kbs_facts_and_prints_rates_per_kind(kb):
    """No case file: restatements and wrong answers of the KB's own facts, per kind; the
    small KB's guard withholds every wrong one, so the exit status is 0."""
    output, status = run("--mutate", "--kb-dir", kb)
    assert status == 0, output
    assert "generated from" in output
    for kind in (
        "restate_exact",
        "restate_words",
        "wrong_sibling_cited",
        "wrong_digit",
        "wrong_words",
    ):
        assert kind in output, kind
    assert "Facts no reader can tell apart: 0 pairs (0.0% of the facts)" in output


@pytest.mark.django_db(transaction=True)
def test_mutate_json_lists_the_facts_no_reader_can_tell_apart(write_kb):
    """Two prices under one heading with the same words: a pair for the editor, no swap."""
    selectors.clear_index_cache()
    twice = "# Priser\n\n- Premium kostar 399 kr/månad.\n- Premium kostar 499 kr/månad.\n"
    kb_dir = write_kb({"pricing.md": twice})
    out = StringIO()
    with pytest.raises(CommandError):  # 100 % of the facts cannot be told apart
        call_command("grounding_eval", "--mutate", "--kb-dir", str(kb_dir), "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert result["facts"] == 2 and result["indistinguishable_share"] == 1.0
    pair = result["indistinguishable"][0]
    assert {pair["a"]["value"], pair["b"]["value"]} == {"399", "499"}
    assert not any(k["kind"].startswith("wrong_sibling") for k in result["kinds"])
    selectors.clear_index_cache()


@pytest.mark.django_db(transaction=True)
def test_mutate_fails_when_a_generated_wrong_answer_passes(kb, monkeypatch):
    """A guard that lets everything through is caught: exit 1, naming the count."""
    monkeypatch.setattr(grounding_eval, "chat_check", lambda q, a: Outcome(True, None, {}))
    output, status = run("--mutate", "--kb-dir", kb)
    assert status == 1
    assert "generated wrong answers passed" in output


@pytest.mark.django_db(transaction=True)
def test_mutate_and_a_case_file_together_are_refused(kb, case_file):
    output, status = run(case_file(GROUNDED), "--mutate")
    assert status == 1 and "not both" in output
