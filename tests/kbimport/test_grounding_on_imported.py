"""Grounding holds on imported content: the fixture site's own case file through grounding_eval.

The site is imported into an empty KB directory, indexed on its own, and its cases
(``cases.jsonl``: 20 correct answers, 20 wrong ones, table cells included) must meet the
development KBs' targets: at least 97 % of correct answers pass and every wrong one is
withheld. A cell keeps its row and column through the import (a markdown table).
"""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from grounding import selectors
from grounding.kbimport.service import ImportOptions, import_sources

CASES = Path(__file__).parent / "cases.jsonl"


@pytest.mark.django_db(transaction=True)
def test_the_imported_site_meets_the_development_kbs_targets(site, import_settings, tmp_path):
    _, url = site
    import_sources([url + "/"], kb_dir=tmp_path, options=ImportOptions.from_settings())
    selectors.clear_index_cache()
    out = StringIO()
    try:
        call_command(
            "grounding_eval",
            str(CASES),
            "--kb-dir",
            str(tmp_path),
            "--min-grounded",
            "0.97",
            stdout=out,
        )
    except CommandError as error:
        pytest.fail(f"{error}\n{out.getvalue()}")
    finally:
        selectors.clear_index_cache()
    assert "grounded cases passed:   20/20" in out.getvalue()
