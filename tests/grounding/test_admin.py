import pytest
from django.urls import reverse

from grounding.models import KBChunk, KBDocument
from grounding.services import kb_reindex


@pytest.fixture
def indexed(write_kb, db):
    kb_reindex(kb_dir=write_kb({"pricing.md": "# Priser\n\n- Premium: 399 kr/månad\n"}))
    return KBDocument.objects.get()


def test_document_and_chunk_pages_load(admin_client, indexed):
    """Changelists, search, filters and detail pages of the KB index load."""
    chunk = KBChunk.objects.get()
    urls = [
        reverse("admin:grounding_kbdocument_changelist"),
        reverse("admin:grounding_kbdocument_changelist") + "?q=pricing&language__exact=sv",
        reverse("admin:grounding_kbdocument_change", args=[indexed.pk]),
        reverse("admin:grounding_kbchunk_changelist") + "?q=Premium",
        reverse("admin:grounding_kbchunk_change", args=[chunk.pk]),
        reverse("admin:grounding_kbindexstate_changelist"),
    ]
    for url in urls:
        response = admin_client.get(url)
        assert response.status_code == 200, url
    page = admin_client.get(reverse("admin:grounding_kbdocument_change", args=[indexed.pk]))
    assert "399 kr/månad" in page.content.decode()


def test_kb_rows_cannot_be_added_changed_or_deleted(admin_client, indexed):
    """The KB is edited as files: the admin refuses add, change and delete."""
    assert admin_client.get(reverse("admin:grounding_kbdocument_add")).status_code == 403
    assert admin_client.get(reverse("admin:grounding_kbchunk_add")).status_code == 403
    delete = reverse("admin:grounding_kbdocument_delete", args=[indexed.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    change = reverse("admin:grounding_kbdocument_change", args=[indexed.pk])
    admin_client.post(change, {"path": "kb/other.md", "title": "X"})
    indexed.refresh_from_db()
    assert indexed.path == "kb/pricing.md"
    assert KBDocument.objects.count() == 1


def test_bulk_delete_action_is_not_offered(admin_client, indexed):
    """No "delete selected" action on the KB changelists."""
    for name in ("kbdocument", "kbchunk"):
        response = admin_client.get(reverse(f"admin:grounding_{name}_changelist"))
        assert "delete_selected" not in response.content.decode()
