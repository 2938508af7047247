import threading

import pytest
from django.db import connection

from grounding import services
from grounding.models import KBChunk, KBDocument, KBFact, KBIndexState
from grounding.selectors import current_index
from grounding.services import (
    KBDirectoryNotFound,
    fact_fields,
    kb_reindex,
    read_kb_dir,
    source_facts,
)

from .conftest import SHIPPED_KB

PRICING = """---
title: Priser
category: pricing
keywords: pris, kostar
lang: sv
---
# Priser

## Premium
- Premium: 399 kr/månad
"""

CONTACT = "# Kontakt\n\nTelefon: +46 8 123 45 67\n"
EN_BILLING = "# Billing\n\nInvoices are due in 30 days.\n"


@pytest.fixture
def kb_dir(write_kb):
    return write_kb(
        {"pricing.md": PRICING, "support/contact.md": CONTACT, "en/billing.md": EN_BILLING}
    )


def _ids(model, path: str) -> list[int]:
    """The ids of ``model``'s rows (chunks or facts) of the document at ``path``."""
    return list(model.objects.filter(document__path=path).values_list("id", flat=True))


def _version() -> int:
    return KBIndexState.objects.get().version


@pytest.mark.django_db
def test_first_reindex_adds_every_file(kb_dir):
    """A first run adds all files, stores their chunks and bumps the version to 1."""
    summary = kb_reindex(kb_dir=kb_dir)
    assert (summary.added, summary.changed, summary.unchanged, summary.removed) == (3, 0, 0, 0)
    assert summary.version == 1 == _version()
    assert summary.chunks == KBChunk.objects.count() > 0
    assert sorted(KBDocument.objects.values_list("path", flat=True)) == [
        "kb/en/billing.md",
        "kb/pricing.md",
        "kb/support/contact.md",
    ]


@pytest.mark.django_db
def test_document_metadata_comes_from_front_matter_folders_and_text(kb_dir):
    """Front matter wins; else folders give category and language, the heading the title."""
    kb_reindex(kb_dir=kb_dir)
    pricing = KBDocument.objects.get(path="kb/pricing.md")
    assert (pricing.title, pricing.category, pricing.language) == ("Priser", "pricing", "sv")
    assert pricing.keywords == ["pris", "kostar"]
    assert len(pricing.content_hash) == 64
    contact = KBDocument.objects.get(path="kb/support/contact.md")
    assert (contact.title, contact.category, contact.language) == ("Kontakt", "support", "sv")
    billing = KBDocument.objects.get(path="kb/en/billing.md")
    assert (billing.title, billing.category, billing.language) == ("Billing", "", "en")


@pytest.mark.django_db
def test_chunks_keep_file_lines_and_never_front_matter(kb_dir):
    """Stored chunks quote their file at their line numbers, front matter excluded."""
    kb_reindex(kb_dir=kb_dir)
    lines = PRICING.split("\n")
    for chunk in KBChunk.objects.filter(document__path="kb/pricing.md"):
        assert "category:" not in chunk.text
        assert chunk.text.split("\n") == lines[chunk.start_line - 1 : chunk.end_line]
    premium = KBChunk.objects.get(heading="Priser > Premium")
    assert premium.text == "## Premium\n- Premium: 399 kr/månad"
    assert premium.start_line == 9


@pytest.mark.django_db
def test_path_is_kb_relative_whatever_the_directory_name(tmp_path):
    """The stored path is "kb/" + the path inside the directory, not the directory's name."""
    other = tmp_path / "knowledge"
    (other / "a").mkdir(parents=True)
    (other / "a" / "b.md").write_text("# B\ntext\n", encoding="utf-8")
    kb_reindex(kb_dir=other)
    assert list(KBDocument.objects.values_list("path", flat=True)) == ["kb/a/b.md"]


@pytest.mark.django_db
def test_unchanged_run_writes_nothing_and_keeps_the_version(kb_dir, django_assert_max_num_queries):
    """A second run over the same files skips all of them without writing (4 reads)."""
    kb_reindex(kb_dir=kb_dir)
    indexed_at = dict(KBDocument.objects.values_list("path", "indexed_at"))
    with django_assert_max_num_queries(4):
        summary = kb_reindex(kb_dir=kb_dir)
    assert (summary.added, summary.changed, summary.unchanged, summary.removed) == (0, 0, 3, 0)
    assert summary.version == 1 == _version()
    assert dict(KBDocument.objects.values_list("path", "indexed_at")) == indexed_at


@pytest.mark.django_db
def test_changed_file_replaces_its_chunks_only(kb_dir):
    """A changed file gets new chunks; other files keep theirs; the version moves."""
    kb_reindex(kb_dir=kb_dir)
    contact_chunks = _ids(KBChunk, "kb/support/contact.md")
    (kb_dir / "pricing.md").write_text(PRICING.replace("399", "449"), encoding="utf-8")
    summary = kb_reindex(kb_dir=kb_dir)
    assert (summary.added, summary.changed, summary.unchanged, summary.removed) == (0, 1, 2, 0)
    assert summary.version == 2
    texts = KBChunk.objects.filter(document__path="kb/pricing.md").values_list("text", flat=True)
    assert any("449 kr" in t for t in texts)
    assert not any("399 kr" in t for t in texts)
    assert _ids(KBChunk, "kb/support/contact.md") == contact_chunks


@pytest.mark.django_db
def test_removed_file_is_dropped_with_its_chunks(kb_dir):
    """A deleted file disappears from the index with its chunks."""
    kb_reindex(kb_dir=kb_dir)
    (kb_dir / "support" / "contact.md").unlink()
    summary = kb_reindex(kb_dir=kb_dir)
    assert (summary.added, summary.changed, summary.unchanged, summary.removed) == (0, 0, 2, 1)
    assert summary.version == 2
    assert not KBDocument.objects.filter(path="kb/support/contact.md").exists()
    assert not KBChunk.objects.filter(text__contains="+46 8 123 45 67").exists()


@pytest.mark.django_db
def test_hidden_folders_and_other_files_are_ignored(kb_dir):
    """Only *.md files outside hidden folders are indexed."""
    (kb_dir / ".drafts").mkdir()
    (kb_dir / ".drafts" / "secret.md").write_text("# Utkast\n", encoding="utf-8")
    (kb_dir / "notes.txt").write_text("inte markdown", encoding="utf-8")
    assert kb_reindex(kb_dir=kb_dir).added == 3


@pytest.mark.django_db
def test_missing_directory_is_an_error(tmp_path):
    """Reindexing a directory that does not exist raises and changes nothing."""
    with pytest.raises(KBDirectoryNotFound):
        kb_reindex(kb_dir=tmp_path / "missing")
    assert not KBIndexState.objects.exists()


@pytest.mark.django_db
def test_progress_reports_each_indexed_and_removed_file(kb_dir):
    """The progress callback hears about every file written or removed."""
    messages: list[str] = []
    kb_reindex(kb_dir=kb_dir, progress=messages.append)
    assert sum(m.startswith("Indexed kb/") for m in messages) == 3
    (kb_dir / "pricing.md").unlink()
    kb_reindex(kb_dir=kb_dir, progress=messages.append)
    assert "Removed kb/pricing.md" in messages


@pytest.mark.django_db
def test_query_count_does_not_grow_with_file_count(write_kb, django_assert_max_num_queries):
    """Writes are bulk statements: 120 files (240 chunks, 360 facts) in a bounded number.

    SQLite takes at most 999 parameters per statement, so the 360 facts of 17
    columns need 7 inserts; far fewer than one per file.
    """
    kb = write_kb({f"doc{i}.md": f"# Dok {i}\n\nRad {i}\n\n## Del\nMer {i}\n" for i in range(120)})
    with django_assert_max_num_queries(22):
        summary = kb_reindex(kb_dir=kb)
    assert summary.added == 120 and summary.chunks == 240


@pytest.mark.django_db
def test_shipped_kb_indexes_cleanly():
    """The shipped KB indexes with no front matter in any chunk and a category per document."""
    summary = kb_reindex(kb_dir=SHIPPED_KB)
    assert summary.added == len(read_kb_dir(SHIPPED_KB)) >= 10
    assert not KBChunk.objects.filter(text__startswith="---").exists()
    assert not KBChunk.objects.filter(text__contains="keywords:").exists()
    assert not KBDocument.objects.filter(category="").exists()
    assert (
        KBDocument.objects.get(path="kb/pricing.md")
        .chunks.filter(text__contains="- Premium: 399 kr/månad")
        .exists()
    )


@pytest.mark.django_db(transaction=True)
def test_reader_during_reindex_sees_old_or_new_index_never_a_mix(write_kb):
    """A concurrent reader sees all of the old index or all of the new one, never a mix."""
    files = 60
    kb = write_kb({f"doc{i}.md": f"# Dok {i}\n\nalpha {i}\n" for i in range(files)})
    kb_reindex(kb_dir=kb)
    write_kb({f"doc{i}.md": f"# Dok {i}\n\nbeta {i}\n" for i in range(files)})

    inside_transaction = threading.Event()
    read_inside = threading.Event()
    done = threading.Event()
    snapshots: list[tuple[int, frozenset[str]]] = []
    read_during_write: list[frozenset[str]] = []
    errors: list[BaseException] = []

    def read_once() -> frozenset[str]:
        index = current_index()
        kinds = frozenset(r.text.split("\n")[-1].split()[0] for r in index.records)
        snapshots.append((index.version, kinds))
        assert len(index.records) == files
        return kinds

    def reader():
        try:
            while not done.is_set() or not snapshots or snapshots[-1][0] < 2:
                read_once()
                if inside_transaction.is_set() and not read_inside.is_set():
                    read_during_write.append(read_once())
                    read_inside.set()
        except BaseException as error:  # reported by the main thread
            errors.append(error)
            read_inside.set()
        finally:
            connection.close()

    def progress(message: str) -> None:
        # Hold the write transaction open until the reader has read inside it.
        if message.startswith("Indexed") and not inside_transaction.is_set():
            inside_transaction.set()
            assert read_inside.wait(timeout=10)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        summary = kb_reindex(kb_dir=kb, progress=progress)
    finally:
        done.set()
        thread.join(timeout=30)
    assert not errors, errors
    assert summary.changed == files and summary.version == 2
    assert read_during_write == [frozenset({"alpha"})]
    assert {kinds for _, kinds in snapshots} == {frozenset({"alpha"}), frozenset({"beta"})}
    for version, kinds in snapshots:
        assert kinds == {1: frozenset({"alpha"}), 2: frozenset({"beta"})}[version]


# --- facts --------------------------------------------------------------------

TABLE = """# Avgifter

| Kärl | Per månad | Per år |
|---|---|---|
| 190 liter | 120 kr | 1 440 kr |
| 370 liter | 210 kr | 2 520 kr |
"""


@pytest.mark.django_db
def test_reindex_stores_every_fact_extract_facts_finds(kb_dir):
    """Each document's facts are stored beside its chunks, field for field."""
    summary = kb_reindex(kb_dir=kb_dir)
    assert summary.facts == KBFact.objects.count() > 0
    for source in read_kb_dir(kb_dir).values():
        expected = [fact_fields(fact) for fact in source_facts(source)]
        rows = KBFact.objects.filter(document__path=source.path).order_by("ordinal")
        stored = [{name: getattr(row, name) for name in FACT_FIELDS} for row in rows]
        assert stored == expected


FACT_FIELDS = (
    "value", "kind", "unit", "period", "subject_text", "subject", "qualifiers", "context",
    "line", "cell_row", "cell_column", "text", "language",
    "fact_id", "entity", "attribute", "group",  # the card: its id, key and group (issue 41)
)  # fmt: skip


@pytest.mark.django_db
def test_table_cells_are_stored_with_their_line_and_cell(write_kb):
    """A table cell's fact keeps its file, line and (row, column)."""
    kb_reindex(kb_dir=write_kb({"avfall.md": TABLE}))
    fact = KBFact.objects.get(value="2520")
    assert (fact.document.path, fact.line) == ("kb/avfall.md", 6)
    assert fact.cell_row is not None and fact.cell_column is not None
    assert fact.text == "| 370 liter | 210 kr | 2 520 kr |"
    assert fact.kind == "amount"


@pytest.mark.django_db
def test_changed_file_replaces_its_facts_and_unchanged_files_are_not_parsed(kb_dir, monkeypatch):
    """Only a changed file is parsed for facts again; the others keep their rows."""
    kb_reindex(kb_dir=kb_dir)
    contact_facts = _ids(KBFact, "kb/support/contact.md")
    parsed = []
    real = services.extract_facts
    monkeypatch.setattr(
        services, "extract_facts", lambda text, **kw: parsed.append(kw["file"]) or real(text, **kw)
    )
    (kb_dir / "pricing.md").write_text(PRICING.replace("399", "449"), encoding="utf-8")
    kb_reindex(kb_dir=kb_dir)
    assert parsed == ["kb/pricing.md"]
    values = set(
        KBFact.objects.filter(document__path="kb/pricing.md").values_list("value", flat=True)
    )
    assert "449" in values and "399" not in values
    assert _ids(KBFact, "kb/support/contact.md") == contact_facts


@pytest.mark.django_db
def test_an_unchanged_file_is_hashed_but_never_decoded_or_bounded(kb_dir, monkeypatch):
    """Bounding a file's text (its tables' columns, its numbers) costs about a millisecond a
    file: a run over an unchanged KB reads and hashes its files, and bounds only what it
    indexes."""
    kb_reindex(kb_dir=kb_dir)
    bounded = []
    real = services.bounded_text
    monkeypatch.setattr(
        services, "bounded_text", lambda text, **kw: bounded.append(text) or real(text, **kw)
    )
    assert not kb_reindex(kb_dir=kb_dir).changed_anything
    assert bounded == []
    (kb_dir / "pricing.md").write_text(PRICING.replace("399", "449"), encoding="utf-8")
    assert kb_reindex(kb_dir=kb_dir).changed == 1
    assert bounded == [PRICING.replace("399", "449")]


@pytest.mark.django_db
def test_removed_file_takes_its_facts_along(kb_dir):
    """A deleted file's facts disappear with it."""
    kb_reindex(kb_dir=kb_dir)
    (kb_dir / "support" / "contact.md").unlink()
    kb_reindex(kb_dir=kb_dir)
    assert not KBFact.objects.filter(document__path="kb/support/contact.md").exists()
    assert KBFact.objects.filter(document__path="kb/pricing.md").exists()


@pytest.mark.django_db
def test_a_new_fact_extractor_rereads_every_file(kb_dir, monkeypatch):
    """After an upgrade of the code that reads facts, unchanged files are re-extracted too."""
    kb_reindex(kb_dir=kb_dir)
    assert kb_reindex(kb_dir=kb_dir).unchanged == 3
    monkeypatch.setattr(services, "extractor_fingerprint", lambda: "another extractor")
    summary = kb_reindex(kb_dir=kb_dir)
    assert (summary.changed, summary.unchanged) == (3, 0)
    assert kb_reindex(kb_dir=kb_dir).unchanged == 3


def test_the_extractor_fingerprint_covers_the_fact_modules():
    """The fingerprint is a SHA-256 of real module files (a missing one would be skipped)."""
    assert len(services.extractor_fingerprint()) == 64
    assert "grounding.facts" in services._EXTRACTOR_MODULES


def test_a_file_linking_outside_the_kb_is_skipped_and_reported(write_kb, tmp_path, caplog):
    """`kb/passwd.md -> /etc/passwd`, `kb/dotenv.md -> secret.env`: never indexed."""
    secret = tmp_path / "secret.env"
    secret.write_text("DATABASE_PASSWORD=hunter2 kostar 399 kr\n", encoding="utf-8")
    kb_dir = write_kb({"pricing.md": "# Priser\n\nPremium kostar 399 kr/månad.\n"})
    (kb_dir / "dotenv.md").symlink_to(secret)
    (kb_dir / "inside.md").symlink_to(kb_dir / "pricing.md")  # inside the KB: still read
    with caplog.at_level("WARNING", logger="grounding.services"):
        sources = read_kb_dir(kb_dir)
    assert sorted(sources) == ["kb/inside.md", "kb/pricing.md"]
    assert "dotenv.md skipped: it links outside the KB directory" in caplog.text


def test_a_file_over_the_size_cap_is_skipped_and_reported(write_kb, settings, caplog):
    settings.KB_MAX_FILE_BYTES = 1000
    kb_dir = write_kb({"small.md": "# Liten\n\nText.\n", "large.md": "# Stor\n\n" + "x" * 2000})
    with caplog.at_level("WARNING", logger="grounding.services"):
        sources = read_kb_dir(kb_dir)
    assert sorted(sources) == ["kb/small.md"]
    assert "large.md skipped" in caplog.text and "KB_MAX_FILE_BYTES" in caplog.text


@pytest.mark.django_db
def test_a_nul_byte_is_replaced_not_fatal(write_kb):
    kb_dir = write_kb({"pricing.md": "# Priser\n\nPremium\x00 kostar 399 kr/månad.\n"})
    summary = kb_reindex(kb_dir=kb_dir)
    assert summary.added == 1
    assert "\x00" not in KBChunk.objects.get().text


@pytest.mark.django_db
def test_bidi_and_invisible_characters_in_a_kb_file_are_never_indexed(write_kb):
    """A KB file's U+202E override or zero-width space inside a price is dropped before the
    chunks and facts are read: the fact is the price a reader sees, the chunk has none."""
    text = "# Priser\n\n- Premium: \u202e3\u200b99\u202c kr/månad\u2066\u200f\n"
    kb_reindex(kb_dir=write_kb({"pricing.md": text}))
    chunk = KBChunk.objects.get(document__path="kb/pricing.md")
    assert chunk.text == "# Priser\n\n- Premium: 399 kr/månad" and chunk.start_line == 1
    assert list(KBFact.objects.values_list("value", flat=True)) == ["399"]
    assert KBFact.objects.get().text == "- Premium: 399 kr/månad"
