"""Grounding holds on imported content: the fixture site's own case file through grounding_eval.

The site is imported into an empty KB directory, indexed on its own, and its cases
(``cases.jsonl``: 20 correct answers, 20 wrong ones, table cells included) must meet the
development KBs' targets (at least 97 % of correct answers pass and every wrong one is
withheld; not met yet: its figure is a floor). A cell keeps its row and column through the
import (a markdown table). The answers cite nothing: each number is checked as if it cited
each fact stating its value (``--uncited``, the check of an agent's message), so the facts the
import produced are what is measured.
"""

import contextlib
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from grounding import selectors
from grounding.kbimport.service import ImportOptions, import_sources

CASES = Path(__file__).parent / "cases.jsonl"


# What the uncited check reaches on the imported site (correct passed, wrong withheld): the
# targets (20/20 and 20/20) are not met by it; a change may raise these, never lower them.
FLOOR = (19, 17)


@pytest.mark.django_db(transaction=True)
def test_the_imported_site_keeps_what_it_reached(site, import_settings, tmp_path):
    _, url = site
    import_sources([url + "/"], kb_dir=tmp_path, options=ImportOptions.from_settings())
    selectors.clear_index_cache()
    out = StringIO()
    try:
        with contextlib.suppress(CommandError):  # a wrong answer that passes is counted below
            call_command(
                "grounding_eval",
                str(CASES),
                "--kb-dir",
                str(tmp_path),
                "--uncited",
                "--json",
                stdout=out,
                stderr=StringIO(),
            )
    finally:
        selectors.clear_index_cache()
    report = json.loads(out.getvalue())
    reached = (report["grounded"]["passed"], report["withheld"]["passed"])
    assert (report["grounded"]["total"], report["withheld"]["total"]) == (20, 20)
    assert all(now >= least for now, least in zip(reached, FLOOR, strict=True)), report["misses"]
