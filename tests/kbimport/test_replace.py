"""``import_kb --replace`` (``make import URL=... REPLACE=1``): the import becomes the whole KB,
so the example KB's facts no longer answer; an import that brings nothing changes nothing."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from grounding import selectors
from grounding.models import KBDocument
from tests.live import ROOT

pytestmark = pytest.mark.django_db

EXAMPLE_QUESTION = "What does Basic cost?"
EXAMPLE_LINE = "Basic: 99 SEK/month"  # kb/en/pricing.md
SHOP_PAGE = """# Service

- Basic service for an e-bike: 795 SEK
- Full service for an e-bike: 1 495 SEK
"""


@pytest.fixture
def kb_dir(tmp_path) -> Path:
    """A copy of the example KB, as a fresh clone has it."""
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "kb", kb)
    return kb


@pytest.fixture
def shop_pages(tmp_path) -> Path:
    pages = tmp_path / "shop"
    pages.mkdir()
    (pages / "service.md").write_text(SHOP_PAGE, encoding="utf-8")
    return pages


def retrieved(kb_dir: Path, question: str) -> list[str]:
    """Index ``kb_dir`` as ``make import`` does, then the text of every chunk the question
    retrieves (all that share a term with it): what any answer could be grounded on."""
    call_command("reindex_kb", "--kb-dir", str(kb_dir), stdout=StringIO())
    selectors.clear_index_cache()
    try:
        snippets = selectors.current_index().search(question, top_k=50, threshold=0)
    finally:
        selectors.clear_index_cache()
    return [snippet.text for snippet in snippets]


def indexed_files() -> list[str]:
    return sorted(KBDocument.objects.values_list("path", flat=True))


def test_a_replacing_import_leaves_only_its_pages_and_the_example_facts_no_longer_answer(
    kb_dir, shop_pages
):
    assert any(EXAMPLE_LINE in text for text in retrieved(kb_dir, EXAMPLE_QUESTION))
    out = StringIO()
    call_command("import_kb", str(shop_pages), "--kb-dir", str(kb_dir), "--replace", stdout=out)
    assert "now holds this import only (the files it held are gone)" in out.getvalue()
    assert [p.relative_to(kb_dir) for p in kb_dir.rglob("*.md")] == [
        Path("imported/files/service-md.md")
    ]
    after = retrieved(kb_dir, EXAMPLE_QUESTION)
    assert not any(EXAMPLE_LINE in text for text in after)
    assert [path.rsplit("/", 3)[-3:] for path in indexed_files()] == [
        ["imported", "files", "service-md.md"]
    ]
    shop = retrieved(kb_dir, "What does a basic service cost for an e-bike?")
    assert any("Basic service for an e-bike: 795 SEK" in text for text in shop)
    assert not list(kb_dir.parent.glob(".kb-replacing-*"))  # no staging left behind


def test_an_import_without_replace_keeps_the_example_kb_beside_the_pages(kb_dir, shop_pages):
    before = {p.relative_to(kb_dir) for p in kb_dir.rglob("*.md")}
    call_command("import_kb", str(shop_pages), "--kb-dir", str(kb_dir), stdout=StringIO())
    after = {p.relative_to(kb_dir) for p in kb_dir.rglob("*.md")}
    assert before < after and len(after - before) == 1
    assert any(EXAMPLE_LINE in text for text in retrieved(kb_dir, EXAMPLE_QUESTION))


def test_a_replacing_import_that_brings_nothing_leaves_the_kb_as_it_was(kb_dir, tmp_path):
    before = sorted(p.relative_to(kb_dir) for p in kb_dir.rglob("*"))
    with pytest.raises(CommandError, match="unchanged"):
        call_command(
            "import_kb",
            str(tmp_path / "no-such-folder"),
            "--kb-dir",
            str(kb_dir),
            "--replace",
            stdout=StringIO(),
        )
    assert sorted(p.relative_to(kb_dir) for p in kb_dir.rglob("*")) == before
    assert not list(tmp_path.glob(".kb-replacing-*"))
