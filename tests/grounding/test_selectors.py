import threading

import pytest
from django.db import connection
from django.db.models import F

from grounding import selectors
from grounding.index import KBIndex
from grounding.models import KBChunk, KBDocument, KBIndexState
from grounding.selectors import acurrent_index, current_index, index_is_empty
from grounding.services import kb_reindex, read_kb_dir, source_facts, source_records

PRICING = "---\ncategory: pricing\nkeywords: pris\n---\n# Priser\n\n- Premium: 399 kr/månad\n"
CONTACT = "# Kontakt\n\nTelefon: +46 8 123 45 67\n"


@pytest.fixture
def kb_dir(write_kb):
    return write_kb({"pricing.md": PRICING, "contact.md": CONTACT})


@pytest.mark.django_db
def test_empty_database_gives_an_empty_index():
    """Before any reindex the index is empty, version 0, and says so."""
    assert index_is_empty()
    index = current_index()
    assert len(index) == 0 and index.version == 0


@pytest.mark.django_db
def test_index_holds_what_the_reindex_stored(kb_dir):
    """After a reindex the index has every chunk, the version and the document metadata."""
    kb_reindex(kb_dir=kb_dir)
    assert not index_is_empty()
    index = current_index()
    assert index.version == 1
    assert {r.file for r in index.records} == {"kb/pricing.md", "kb/contact.md"}
    assert index.search("premium", top_k=5, threshold=0.0)[0].file == "kb/pricing.md"
    assert index.detect_category("Vad är priset?") == "pricing"
    assert all(r.chunk_id for r in index.records)


@pytest.mark.django_db
def test_records_from_the_database_equal_records_from_the_files(kb_dir):
    """The database round trip keeps every field retrieval uses."""
    kb_reindex(kb_dir=kb_dir)
    from_db = {(r.file, r.start_line): r for r in current_index().records}
    for source in read_kb_dir(kb_dir).values():
        for record in source_records(source):
            stored = from_db[(record.file, record.start_line)]
            assert stored.__class__(**{**_fields(stored), "chunk_id": None}) == record


@pytest.mark.django_db
def test_facts_from_the_database_equal_facts_from_the_files(kb_dir):
    """The stored facts come back as the very facts extract_facts gave at reindex."""
    kb_reindex(kb_dir=kb_dir)
    facts = current_index().facts
    for source in read_kb_dir(kb_dir).values():
        expected = source_facts(source)
        assert expected
        lines = range(1, source.text.count("\n") + 2)
        assert [fact for line in lines for fact in facts.on_line(source.path, line)] == expected
        for fact in expected:
            for key in fact.keys():  # noqa: SIM118 (a Fact, not a dict)
                assert fact in facts.by_value(key)


def _fields(record) -> dict:
    return {name: getattr(record, name) for name in record.__slots__}


@pytest.mark.django_db
def test_unchanged_version_reuses_the_cached_index(kb_dir, django_assert_num_queries):
    """With the version unchanged a call costs one query and returns the same object."""
    kb_reindex(kb_dir=kb_dir)
    first = current_index()
    with django_assert_num_queries(1):
        assert current_index() is first


@pytest.mark.django_db
def test_new_version_reloads_chunks_and_facts_in_one_query_each(kb_dir, django_assert_num_queries):
    """A changed version reloads all chunks and all facts (plus two reads of the version)."""
    kb_reindex(kb_dir=kb_dir)
    old = current_index()
    (kb_dir / "pricing.md").write_text(PRICING.replace("399", "449"), encoding="utf-8")
    kb_reindex(kb_dir=kb_dir)
    with django_assert_num_queries(4) as captured:
        new = current_index()
    assert sum("grounding_kbchunk" in q["sql"] for q in captured.captured_queries) == 1
    assert sum("grounding_kbfact" in q["sql"] for q in captured.captured_queries) == 1
    assert new is not old and new.version == 2
    assert any("449 kr" in r.text for r in new.records)


@pytest.mark.django_db
def test_version_bumped_elsewhere_is_picked_up(kb_dir):
    """A bump by another process (a row update) makes the next call reload."""
    kb_reindex(kb_dir=kb_dir)
    old = current_index()
    KBChunk.objects.filter(document__path="kb/contact.md").delete()
    KBIndexState.objects.update(version=F("version") + 1)
    new = current_index()
    assert new.version == old.version + 1
    assert {r.file for r in new.records} == {"kb/pricing.md"}


@pytest.mark.django_db
def test_same_version_number_in_a_recreated_database_still_reloads(kb_dir, write_kb):
    """A fresh database that reaches the same version number does not serve the old cache."""
    kb_reindex(kb_dir=kb_dir)
    assert current_index().version == 1
    KBDocument.objects.all().delete()
    KBIndexState.objects.all().delete()
    (kb_dir / "pricing.md").unlink()
    kb_reindex(kb_dir=kb_dir)
    index = current_index()
    assert index.version == 1
    assert {r.file for r in index.records} == {"kb/contact.md"}


@pytest.mark.django_db(transaction=True)
def test_concurrent_callers_share_one_load(kb_dir, monkeypatch):
    """Threads asking at once after a version change trigger a single reload."""
    kb_reindex(kb_dir=kb_dir)
    builds = []

    class CountingIndex(KBIndex):
        def __init__(self, *args, **kwargs):
            builds.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(selectors, "KBIndex", CountingIndex)
    results: list[KBIndex] = []
    start = threading.Barrier(6)

    def ask():
        try:
            start.wait()
            results.append(current_index())
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 6
    assert len({id(index) for index in results}) == 1
    assert len(builds) == 1


@pytest.mark.django_db(transaction=True)
async def test_async_callers_get_the_current_index(kb_dir):
    """acurrent_index runs the sync selector off the event loop."""
    from channels.db import database_sync_to_async

    await database_sync_to_async(kb_reindex)(kb_dir=kb_dir)
    index = await acurrent_index()
    assert index.version == 1
    assert index.search("telefon", top_k=5, threshold=0.0)[0].file == "kb/contact.md"
