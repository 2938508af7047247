"""Citations are labelled with the document's title (chat.citations)."""

from chat.citations import document_titles, file_label, with_titles
from grounding.index import ChunkRecord, KBIndex


def index_of(*records):
    return KBIndex(list(records))


def test_title_from_front_matter_then_first_heading_then_file_name():
    index = index_of(
        ChunkRecord(file="kb/pricing.md", text="Basic 99 kr", start_line=8, end_line=8,
                    title="Priser och abonnemang", heading="Priser > Basic"),
        ChunkRecord(file="kb/apps.md", text="Appen finns", start_line=3, end_line=3,
                    heading="Appar > Android"),
        ChunkRecord(file="kb/support/sla_terms.md", text="Svar inom en dag", start_line=1,
                    end_line=1),
    )  # fmt: skip
    assert document_titles(index) == {
        "kb/pricing.md": "Priser och abonnemang",
        "kb/apps.md": "Appar",
        "kb/support/sla_terms.md": "Sla terms",
    }


def test_citations_get_a_title_and_keep_their_fields():
    index = index_of(
        ChunkRecord(file="kb/pricing.md", text="x", start_line=1, end_line=1, title="Priser")
    )
    cited = [{"file": "kb/pricing.md", "snippet": "x", "line": 1, "score": 1.0}]
    assert with_titles(cited, index) == [{**cited[0], "title": "Priser"}]
    unknown = [{"file": "kb/gone.md", "snippet": "y", "line": 2, "score": 0.5}]
    assert with_titles(unknown, index)[0]["title"] == "Gone"


def test_file_label_never_shows_folders_or_extension():
    assert file_label("kb/en/contact-us.md") == "Contact us"
