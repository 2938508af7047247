import pytest
from django.urls import reverse

from grounding.admin import NEEDS_KEY, NO_SUBJECT, SHARED_LINE
from grounding.models import KBChunk, KBDocument, KBFact
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


# --- facts --------------------------------------------------------------------


def _fact(document, ordinal, value, *, line, subject="", kind="amount", unit="SEK", key=None):
    return KBFact.objects.create(
        document=document,
        ordinal=ordinal,
        value=value,
        kind=kind,
        unit=unit,
        subject_text=subject,
        line=line,
        text=f"line {line}",
        entity=[subject.lower()] if key is None and subject else (key or []),
    )


def test_fact_pages_load_with_filters_and_search(admin_client, indexed):
    """The facts changelist filters by file, kind and ambiguity and searches value and subject."""
    fact = KBFact.objects.filter(document=indexed).first()
    assert fact is not None and fact.value == "399"
    changelist = reverse("admin:grounding_kbfact_changelist")
    for query in (
        "",
        f"?document__id__exact={indexed.pk}",
        "?kind__exact=amount",
        "?ambiguous=any",
        "?ambiguous=no_subject",
        "?ambiguous=shared_line",
        "?q=399",
        "?q=Premium",
    ):
        response = admin_client.get(changelist + query)
        assert response.status_code == 200, query
    assert "kb/pricing.md:3" in admin_client.get(changelist + "?q=399").content.decode()
    detail = admin_client.get(reverse("admin:grounding_kbfact_change", args=[fact.pk]))
    assert detail.status_code == 200
    assert admin_client.get(reverse("admin:grounding_kbfact_add")).status_code == 403


def test_ambiguity_flags_facts_without_subject_or_with_an_indistinguishable_twin(
    admin_client, indexed
):
    """A KB editor finds the numbers whose subject the KB leaves unclear."""
    KBFact.objects.all().delete()
    _fact(indexed, 0, "45", line=10, subject="Hem")
    _fact(indexed, 1, "60", line=10, subject="Hem")  # same line, kind and subject
    _fact(indexed, 2, "14", line=10, subject="Hem", kind="duration")  # another kind
    _fact(indexed, 3, "99", line=11, subject="")  # no subject
    _fact(indexed, 4, "199", line=12, subject="Standard")  # clear
    _fact(indexed, 5, "690", line=13, subject="Work")  # SEK beside EUR: the unit tells
    _fact(indexed, 6, "62", line=13, subject="Work", unit="EUR")
    _fact(indexed, 7, "+46184205500", line=14, subject="Phone", kind="phone", unit="")
    _fact(indexed, 8, "+46184205500", line=14, subject="Phone", kind="phone", unit="")  # same value

    def values(query: str) -> set[str]:
        page = admin_client.get(reverse("admin:grounding_kbfact_changelist") + query)
        return {fact.value for fact in page.context["cl"].result_list}

    assert values("?ambiguous=shared_line") == {"45", "60"}
    assert values("?ambiguous=no_subject") == {"99"}
    assert values("?ambiguous=any") == {"45", "60", "99"}
    page = admin_client.get(reverse("admin:grounding_kbfact_changelist")).content.decode()
    assert SHARED_LINE in page and NO_SUBJECT in page


def test_a_fact_with_no_key_is_flagged_and_facts_are_found_by_their_id(admin_client, indexed):
    """A number nothing in the KB says the subject of needs a key from an editor; the id a
    generator cites finds its fact."""
    KBFact.objects.all().delete()
    keyed = _fact(indexed, 0, "399", line=3, subject="Premium")
    _fact(indexed, 1, "99", line=4, subject="Priser", key=[])
    keyed.fact_id = "F:3f513e88"
    keyed.save()
    changelist = reverse("admin:grounding_kbfact_changelist")

    def values(query: str) -> set[str]:
        page = admin_client.get(changelist + query)
        return {fact.value for fact in page.context["cl"].result_list}

    assert values("?ambiguous=needs_key") == {"99"}
    assert "99" in values("?ambiguous=any")
    assert values("?q=F:3f513e88") == {"399"}
    assert NEEDS_KEY in admin_client.get(changelist).content.decode()
