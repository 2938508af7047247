"""The import's rules (grounding/kbimport/documents.py): paths, categories, cleaning, header."""

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding.chunking import parse_front_matter
from grounding.kbimport.documents import (
    ImportedDocument,
    category_for,
    clean_markdown,
    content_sha1,
    file_path,
    page_path,
    sha1_of_file,
    web_url,
)

RULES = [("*/kulturochfritid/*", "Kultur och fritid"), ("/priser*", "Priser")]


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("https://www.example.se/", "imported/www-example-se/index.md"),
        ("https://www.example.se/priser", "imported/www-example-se/priser.md"),
        ("https://example.se/a/B%C3%A5t.html", "imported/example-se/a-båt.md"),
        ("https://example.se/sok?q=1", "imported/example-se/sok-q-1.md"),
        ("https://example.se/../../etc/passwd", "imported/example-se/etc-passwd.md"),
    ],
)
def test_a_page_becomes_a_file_under_its_host(url, path):
    assert page_path(url) == path


@given(st.text(max_size=300))
def test_any_url_path_stays_inside_the_import_folder(path):
    kb_path = page_path("https://example.se/" + path)
    assert kb_path.startswith("imported/example-se/") and ".." not in kb_path
    assert kb_path.count("/") == 2


def test_a_local_file_keeps_its_folders_in_its_name():
    assert file_path("villkor/2027.pdf") == "imported/files/villkor-2027-pdf.md"


@pytest.mark.parametrize(
    ("url", "category"),
    [
        ("https://k.se/kulturochfritid/bibliotek", "Kultur och fritid"),
        ("https://k.se/priser", "Priser"),
        ("https://k.se/PRISER/stugor", "Priser"),
        ("https://k.se/om-oss", "Övrigt"),
    ],
)
def test_the_first_matching_url_pattern_gives_the_category(url, category):
    assert category_for(url, RULES, default="Övrigt") == category


def test_cleaning_leaves_nothing_executable_and_keeps_the_text():
    dirty = (
        "# Rubrik\n\n<script>alert(1)</script>Text & mer <b>fetstil</b> a < b\x00\n\n\n\n"
        '<a href="javascript:alert(2)">länk</a><style>p{}</style><img src=x onerror=alert(3)>'
    )
    clean = clean_markdown(dirty)
    for bad in ("<", "script", "alert", "javascript", "onerror", "\x00", "\n\n\n"):
        assert bad not in clean.replace("a < b", "")
    assert "Text & mer fetstil a < b" in clean and "länk" in clean


def test_a_table_without_a_header_row_gets_its_first_row_as_header():
    table = "|  |  |\n| --- | --- |\n| Avbokning | Återbetalning |\n| 30 dagar | 100 % |\n"
    assert clean_markdown(table).splitlines()[:3] == [
        "| Avbokning | Återbetalning |",
        "| --- | --- |",
        "| 30 dagar | 100 % |",
    ]


def test_the_header_is_front_matter_the_reindex_reads():
    document = ImportedDocument(
        kb_path="imported/x/priser.md",
        source="https://x.se/priser",
        title='Priser "2027" för\nstugor',
        category="Övrigt",
        markdown="# Priser\n\nStuga: 650 kr\n",
    )
    text = document.file_text(datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC))
    front = parse_front_matter(text)
    assert front.get("source") == "https://x.se/priser"
    assert front.get("title") == 'Priser "2027" för stugor'
    assert front.get("category") == "Övrigt"
    assert sha1_of_file(text) == content_sha1(document.markdown) == document.sha1


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("https://x.se/a", "https://x.se/a"),
        ("javascript:alert(1)", ""),
        ("file:///etc/passwd", ""),
        ("villkor.pdf", ""),
        ("http://", ""),
    ],
)
def test_only_a_web_address_is_a_source_url(value, url):
    assert web_url(value) == url


def test_cleaning_removes_bidi_controls_and_invisible_format_characters():
    """An imported page's U+202E around a price (shown reversed by a browser), its isolates,
    marks, zero-width characters and soft hyphens do not reach the KB."""
    dirty = "Premium kostar \u202e399\u202c kr/\u2067må\u2069nad\u200e\u200f\u200b\ufeff\u00ad.\n"
    assert clean_markdown(dirty) == "Premium kostar 399 kr/månad.\n"


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        ("Se [partnern](https://other.example/a) nu.", "Se partnern nu."),
        ("Se \\[partnern\\](https://other.example/a) nu.", "Se partnern nu."),  # trafilatura's
        ('Läs [villkoren](https://o.example/v_(1) "Villkor").', "Läs villkoren."),
        ("![Karta](https://o.example/k.png) här", "Karta här"),
        ("Se [frågor][faq].\n\n[faq]: https://o.example/faq", "Se frågor."),
        ("Skriv till <https://o.example/kontakt>.", "Skriv till https://o.example/kontakt."),
        ("&#91;Boka&#93;(https://o.example)", "Boka"),
        ("[[nästlad](a)](https://o.example)", "nästlad"),
    ],
)
def test_links_in_any_form_are_imported_as_their_text(dirty, clean):
    """No markdown link (inline, escaped, image, reference, autolink, entity-written) survives."""
    from markdown_it import MarkdownIt

    cleaned = clean_markdown(dirty)
    assert cleaned == clean + "\n"
    tokens = MarkdownIt("commonmark").parse(cleaned)
    inline = [child.type for token in tokens for child in token.children or ()]
    assert "link_open" not in inline and "image" not in inline


@given(st.text(alphabet="[]()<>!:\\ab/ \n", max_size=60))
def test_no_markdown_link_survives_cleaning(text):
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(clean_markdown(text))
    inline = [child.type for token in tokens for child in token.children or ()]
    assert "link_open" not in inline and "image" not in inline


@pytest.mark.parametrize(
    "caption",
    ["| Priser per person |  |  |", "| Priser per person |  |  |\n|---|---|---|"],
    ids=["spanning cell", "caption as header"],
)
def test_a_caption_row_goes_above_the_table_and_the_real_header_leads(caption):
    table = f"{caption}\n| Besökare | Dag | Säsong |\n|---|---|---|\n| Vuxen | 120 kr | 900 kr |\n"
    assert clean_markdown(table).splitlines() == [
        "Priser per person",
        "",
        "| Besökare | Dag | Säsong |",
        "|---|---|---|",
        "| Vuxen | 120 kr | 900 kr |",
    ]


def test_a_table_whose_first_cell_alone_is_filled_in_a_data_row_keeps_its_rows():
    """Only leading caption rows move: a data row with empty cells stays where it is."""
    table = "| Stuga | Pris |\n|---|---|\n| Liten |  |\n| Stor | 900 kr |\n"
    assert clean_markdown(table) == table
