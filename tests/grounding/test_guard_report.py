"""`grounding_eval --mutate` on the shipped KB and every development KB, each indexed alone.

The cases are in cited form (``grounding.mutation``): every number carries a ``[PATH:LINE]``
reference, and the wrong answers cite what a generator making the mistake would cite.

The issue's targets (issue 41, Deliver 7 and Acceptance): every generated wrong answer
withheld, at least 97 % of the generated restatements passed, at most 5 % of the facts
impossible to tell apart. The indistinguishable target holds on every KB, the restatement
target on every KB but kommun. The guard does not yet withhold every generated wrong answer:
``WRONG_PASSES_AT_MOST`` and ``MIN_RESTATED`` are what each KB reaches today (measured
2026-12-02 on main 69e2373's guard, bikeshop and insurance again on 2026-12-03), floors that
must only move towards the targets. The miss classes are in the report of the branch that made
these cases (issue-41-mutate).
"""

import json
import os
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from grounding import selectors

DEV_SET = settings.BASE_DIR / "tests" / "grounding" / "dev"
# Generated wrong answers the guard lets through today (of 911, 468, 172, 869, 638 and 441;
# bikeshop 10 -> 6 and insurance 23 -> 12 with the days row and the list-of-days clause of
# 2026-12-03, the same over three hash seeds);
# the target is 0 for each. kommun's figure depends on the hash seed (the guard's and
# retrieval's set order): 10 to 12 over three processes, so its floor is the worst seen + 1.
WRONG_PASSES_AT_MOST = {
    "kb": 12,
    "bikeshop": 6,
    "broadband": 1,
    "insurance": 12,
    "kommun": 13,
    "utility": 3,
}
# The target, 97 % of the restatements, holds on every KB but kommun, where the
# questions "Avgifter" and "Library" (a heading several files share) do not retrieve the cited
# line: 167 to 171 of 181 pass (92.3-94.5 %, by hash seed).
MIN_RESTATED = {name: 0.97 for name in WRONG_PASSES_AT_MOST} | {"kommun": 0.91}
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
