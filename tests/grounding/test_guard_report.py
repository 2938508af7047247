"""`grounding_eval --mutate` on the shipped KB and every development KB, each indexed alone.

The issue's targets: every generated wrong answer withheld, at least 95 % of the generated
restatements passed, at most 5 % of the facts impossible to tell apart. All three hold and
are asserted: ``WRONG_PASSES_AT_MOST`` is 0 for every KB (it was the number each KB let
through while mechanisms landed, 2026-11-24; what they were is in docs/grounding.md).
"""

import json
import os
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from grounding import selectors

DEV_SET = settings.BASE_DIR / "tests" / "grounding" / "dev"
WRONG_PASSES_AT_MOST = {
    "kb": 0,
    "bikeshop": 0,
    "broadband": 0,
    "insurance": 0,
    "kommun": 0,
    "utility": 0,
}
MIN_RESTATED = 0.95
MAX_INDISTINGUISHABLE = 0.05


def _kb_dir(name: str):
    if name == "kb":
        return settings.BASE_DIR / "kb"
    kb_dir = DEV_SET / name
    if not kb_dir.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"development set not found at {kb_dir}")
        pytest.skip(f"development set not found at {kb_dir}")
    return kb_dir


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", sorted(WRONG_PASSES_AT_MOST))
def test_the_guard_report_of_each_kb(name):
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
    report = json.loads(out.getvalue())
    restated, withheld = report["grounded"], report["withheld"]
    wrong_passed = withheld["total"] - withheld["passed"]
    misses = [m["answer"] for m in report["misses"] if m["expect"] == "withheld"]
    assert restated["passed"] >= MIN_RESTATED * restated["total"], report["misses"]
    assert report["indistinguishable_share"] <= MAX_INDISTINGUISHABLE, report["indistinguishable"]
    assert wrong_passed <= WRONG_PASSES_AT_MOST[name], misses
    assert withheld["total"] >= 50, "too few generated wrong answers to mean anything"
