"""`grounding_eval --mutate` on the shipped KB and every development KB, each indexed alone.

The cases are in cited form (``grounding.mutation``): every number carries a ``[PATH:LINE]``
reference, and the wrong answers cite what a generator making the mistake would cite.

The issue's targets (issue 41, Deliver 7 and Acceptance): every generated wrong answer
withheld, at least 97 % of the generated restatements passed, at most 5 % of the facts
impossible to tell apart. The indistinguishable and the restatement targets hold on every KB.
The guard does not yet withhold every generated wrong answer: ``WRONG_PASSES_AT_MOST`` is what
each KB reaches today (measured 2026-12-04, the same over three hash seeds), a floor that must
only move towards the target. The miss classes are in the report of the branch that made these
cases (issue-41-mutate).
"""

import json
import os
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from grounding import selectors

DEV_SET = settings.BASE_DIR / "tests" / "grounding" / "dev"
# Generated wrong answers the guard lets through today (of 1,091, 528, 196, 941, 686 and 498:
# a fact's kin in other sections gives it more siblings to be mistaken for; insurance 12 -> 8
# and kommun 13 -> 10 with those siblings and "högst ett", 2026-12-04); the target is
# 0 for each.
WRONG_PASSES_AT_MOST = {
    "kb": 12,
    "bikeshop": 6,
    "broadband": 1,
    "insurance": 8,
    "kommun": 10,
    "utility": 3,
}
# The target, 97 % of the restatements, on every KB (kommun: 171 of 181 before
# 2026-12-04's changes, 181 after).
MIN_RESTATED = dict.fromkeys(WRONG_PASSES_AT_MOST, 0.97)
MAX_INDISTINGUISHABLE = 0.05
MIN_WRONG = 50
# The kinds every KB's report has (a reversed bound, period or condition only where it says one).
CITED_KINDS = {
    "restate_exact",
    "wrong_sibling_cited_source",
    "wrong_sibling_cited_true",
    "wrong_subject",
    "wrong_digit",
    "wrong_words",
    "no_reference",
}  # fewer generated wrong answers would mean nothing


def _kb_dir(name: str):
    if name == "kb":
        return settings.BASE_DIR / "kb"
    kb_dir = DEV_SET / name
    if not kb_dir.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"development set not found at {kb_dir}")
        pytest.skip(f"development set not found at {kb_dir}")
    return kb_dir


def _report(name: str) -> dict:
    selectors.clear_index_cache()
    out = StringIO()
    try:
        call_command(
            "grounding_eval",
            "--mutate",
            "--kb-dir",
            str(_kb_dir(name)),
            "--json",
            stdout=out,
            stderr=StringIO(),
        )
    except CommandError:
        pass  # the figures below say which target was missed
    finally:
        selectors.clear_index_cache()
    return json.loads(out.getvalue())


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", sorted(WRONG_PASSES_AT_MOST))
def test_the_cited_guard_report_of_each_kb_passes_restatements_and_withholds_wrong_answers(name):
    report = _report(name)
    restated, withheld = report["grounded"], report["withheld"]
    wrong_passed = withheld["total"] - withheld["passed"]
    misses = [(m["kind"], m["answer"]) for m in report["misses"] if m["expect"] == "withheld"]
    assert restated["passed"] >= MIN_RESTATED[name] * restated["total"], report["misses"]
    assert report["indistinguishable_share"] <= MAX_INDISTINGUISHABLE, report["indistinguishable"]
    assert wrong_passed <= WRONG_PASSES_AT_MOST[name], misses
    assert withheld["total"] >= MIN_WRONG, "too few generated wrong answers to mean anything"
    made = {entry["kind"] for entry in report["kinds"] if entry["total"]}
    assert made >= CITED_KINDS, CITED_KINDS - made
