"""Importing the fixture website and local files (grounding/kbimport/service.py)."""

import json
import os
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from grounding.chunking import parse_front_matter
from grounding.kbimport.service import ImportOptions, import_sources
from grounding.models import KBDocument
from grounding.services import kb_reindex
from tests.kbimport.site import AVBOKNING_DOCX, VILLKOR_PDF


def run_import(url, kb_dir, **overrides):
    return import_sources([url], kb_dir=kb_dir, options=ImportOptions.from_settings(**overrides))


def files(kb_dir):
    return sorted(str(p.relative_to(kb_dir)) for p in kb_dir.rglob("*.md"))


def test_a_site_is_imported_page_by_page_with_its_boilerplate_stripped(
    site, import_settings, tmp_path
):
    state, url = site
    report = run_import(url + "/", tmp_path)
    host = "imported/127-0-0-1"
    assert files(tmp_path) == [
        f"{host}/dokument-avbokning.md",
        f"{host}/dokument-villkor.md",
        f"{host}/gammal-kampanj.md",
        f"{host}/index.md",
        f"{host}/kulturochfritid-aktiviteter.md",
        f"{host}/nyheter.md",
        f"{host}/oppettider.md",
        f"{host}/priser.md",
    ]
    failed = dict(report.failed)
    assert failed[url + "/loop-a"].startswith("redirect loop")
    assert failed[url + "/saknas"] == "HTTP 404"
    assert failed[url + "/stor"].startswith("over 200000 bytes")
    assert "no text" in failed[url + "/dokument/karta.pdf"]
    assert failed[url + "/logo.png"] == "content type 'image/png' is not imported"
    skipped = dict(report.skipped)
    assert skipped[url + "/privat/personal"] == "disallowed by robots.txt"
    assert skipped["https://example.org/partner"] == "leaves the site"
    assert not any(path.startswith("/privat") for path in state.requests)
    assert state.user_agents == {import_settings.KB_IMPORT_USER_AGENT}

    everything = "".join(p.read_text() for p in tmp_path.rglob("*.md"))
    for noise in ("kakor", "Org.nr", "Integritetspolicy", "Logga in", "javascript", "<", "Skript"):
        assert noise not in everything, noise
    prices = (tmp_path / host / "priser.md").read_text()
    assert "| Familjestuga | 950 kr | 5 700 kr | 4 |" in prices
    assert "- Sänglinne: 95 kr per person" in prices
    front = parse_front_matter(prices)
    assert front.get("source") == url + "/priser"
    assert front.get("title") == "Priser"
    assert front.get("category") == "Övrigt"
    activities = parse_front_matter(
        (tmp_path / host / "kulturochfritid-aktiviteter.md").read_text()
    )
    assert activities.get("category") == "Kultur och fritid"
    assert (
        "| Mer än 30 dagar före ankomst | 100 % |"
        in (tmp_path / host / "dokument-avbokning.md").read_text()
    )


def test_a_second_import_rewrites_only_the_changed_page_and_removes_the_vanished_one(
    site, import_settings, tmp_path
):
    state, url = site
    run_import(url + "/", tmp_path)
    host = tmp_path / "imported" / "127-0-0-1"
    before = {p.name: p.stat().st_mtime_ns for p in host.glob("*.md")}
    state.version = 2
    report = run_import(url + "/", tmp_path)
    assert report.updated == [url + "/nyheter"]
    assert report.removed == [url + "/gammal-kampanj"]
    assert report.added == []
    assert len(report.unchanged) == 6
    assert not (host / "gammal-kampanj.md").exists()
    assert "08.00–22.00" in (host / "nyheter.md").read_text()
    after = {p.name: p.stat().st_mtime_ns for p in host.glob("*.md")}
    assert {name for name in after if after[name] != before[name]} == {"nyheter.md"}


def test_a_page_that_fails_keeps_its_previous_version_and_is_reported(
    site, import_settings, tmp_path, monkeypatch
):
    state, url = site
    run_import(url + "/", tmp_path)
    respond = state.respond
    monkeypatch.setattr(
        state, "respond", lambda path: (503, {}, b"") if path == "/priser" else respond(path)
    )
    report = run_import(url + "/", tmp_path)
    assert (url + "/priser", "HTTP 503") in report.failed
    assert report.removed == []
    assert (tmp_path / "imported" / "127-0-0-1" / "priser.md").exists()
    manifest = json.loads((tmp_path / "imported" / "127-0-0-1" / "manifest.json").read_text())
    assert url + "/priser" in manifest


def test_a_site_that_is_down_loses_nothing(site, import_settings, tmp_path, monkeypatch):
    state, url = site
    run_import(url + "/", tmp_path)
    monkeypatch.setattr(state, "respond", lambda path: (500, {}, b""))
    report = run_import(url + "/", tmp_path)
    assert report.imported == 0 and report.removed == []
    assert len(files(tmp_path)) == 8


def test_a_crawl_cut_short_by_the_page_limit_removes_nothing(site, import_settings, tmp_path):
    _, url = site
    run_import(url + "/", tmp_path)
    report = run_import(url + "/", tmp_path, max_pages=2)
    assert report.removed == []
    assert any(reason.startswith("over the page limit") for _, reason in report.skipped)
    assert len(files(tmp_path)) == 8


def test_depth_zero_imports_only_the_given_page(site, import_settings, tmp_path):
    _, url = site
    report = run_import(url + "/priser", tmp_path, max_depth=0)
    assert report.added == [url + "/priser"]
    assert files(tmp_path) == ["imported/127-0-0-1/priser.md"]


def test_importing_one_page_of_an_imported_site_removes_none_of_the_others(
    site, import_settings, tmp_path
):
    state, url = site
    run_import(url + "/", tmp_path)
    state.version = 2
    report = run_import(url + "/nyheter", tmp_path, max_depth=0)
    assert (report.updated, report.removed) == ([url + "/nyheter"], [])
    assert len(files(tmp_path)) == 8
    report = run_import(url + "/", tmp_path)  # the whole site again: now the campaign goes
    assert report.removed == [url + "/gammal-kampanj"]


def test_a_sitemap_lists_the_pages_to_import(site, import_settings, tmp_path, monkeypatch):
    state, url = site
    sitemap = (
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{url}/priser</loc></url><url><loc>{url}/oppettider</loc></url>"
        "<url><loc>https://example.org/elsewhere</loc></url></urlset>"
    ).encode()
    respond = state.respond
    monkeypatch.setattr(
        state,
        "respond",
        lambda path: (
            (200, {"Content-Type": "application/xml"}, sitemap)
            if path == "/sitemap.xml"
            else respond(path)
        ),
    )
    report = run_import(url + "/sitemap.xml", tmp_path)
    assert sorted(report.added) == [url + "/oppettider", url + "/priser"]
    assert ("https://example.org/elsewhere", "leaves the site") in report.skipped


@pytest.mark.django_db
def test_the_imported_pages_index_with_their_source_url_and_category(
    site, import_settings, tmp_path
):
    _, url = site
    run_import(url + "/", tmp_path)
    kb_reindex(kb_dir=tmp_path)
    prices = KBDocument.objects.get(path="kb/imported/127-0-0-1/priser.md")
    assert (prices.source_url, prices.title, prices.category) == (
        url + "/priser",
        "Priser",
        "Övrigt",
    )
    assert (
        KBDocument.objects.get(path="kb/imported/127-0-0-1/kulturochfritid-aktiviteter.md").category
        == "Kultur och fritid"
    )


def test_local_files_and_folders_are_imported_and_a_symlink_out_is_skipped(
    import_settings, tmp_path
):
    source, kb_dir, outside = tmp_path / "docs", tmp_path / "kb", tmp_path / "secret"
    for folder in (source / "villkor", kb_dir, outside):
        folder.mkdir(parents=True)
    (source / "villkor" / "bokning.pdf").write_bytes(VILLKOR_PDF)
    (source / "avbokning.docx").write_bytes(AVBOKNING_DOCX)
    (source / "om.html").write_text(
        "<html><head><title>Om oss</title></head><body><main><h1>Om oss</h1>"
        "<p>Vi har funnits sedan 1987 och har 45 stugor vid sjön.</p></main></body></html>"
    )
    (source / "faq.md").write_text("# Frågor\n\nHundar är välkomna.\n")
    (source / "bild.png").write_bytes(b"\x89PNG")
    (outside / "lösen.md").write_text("# Hemligt\n\nLösenord: 1234\n")
    os.symlink(outside / "lösen.md", source / "lösen.md")
    report = import_sources([str(source)], kb_dir=kb_dir, options=ImportOptions.from_settings())
    assert files(kb_dir) == [
        "imported/files/avbokning-docx.md",
        "imported/files/faq-md.md",
        "imported/files/om-html.md",
        "imported/files/villkor-bokning-pdf.md",
    ]
    assert (str(source / "lösen.md"), "links outside the folder") in report.skipped
    assert "1234" not in "".join(p.read_text() for p in kb_dir.rglob("*.md"))
    assert "45 stugor" in (kb_dir / "imported/files/om-html.md").read_text()


@pytest.mark.django_db(transaction=True)
def test_the_command_reports_as_json_and_fails_when_nothing_was_imported(
    site, import_settings, tmp_path
):
    _, url = site
    out = StringIO()
    call_command("import_kb", url + "/", "--kb-dir", str(tmp_path), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert len(report["added"]) == 8 and {"url", "reason"} <= set(report["skipped"][0])
    with pytest.raises(CommandError, match="nothing could be imported"):
        call_command(
            "import_kb",
            url + "/saknas",
            "--depth",
            "0",
            "--kb-dir",
            str(tmp_path),
            stdout=StringIO(),
        )


@pytest.mark.django_db
def test_the_admins_retrieval_preview_links_an_imported_chunk_to_its_page(
    site, import_settings, tmp_path, admin_client
):
    from django.urls import reverse

    from grounding import selectors

    _, url = site
    run_import(url + "/", tmp_path)
    kb_reindex(kb_dir=tmp_path)
    selectors.clear_index_cache()
    try:
        response = admin_client.get(
            reverse("retrieval-preview"),
            {"question": "Slutstädning?", "top_k": 5, "threshold": 0.2},
        )
    finally:
        selectors.clear_index_cache()
    body = response.content.decode()
    assert "kb/imported/127-0-0-1/priser.md" in body
    assert f'<a href="{url}/priser" rel="noopener noreferrer" target="_blank">' in body


def test_a_page_slower_than_the_timeout_fails_and_nothing_is_written(
    site, import_settings, tmp_path
):
    _, url = site
    report = run_import(url + "/langsam", tmp_path, max_depth=0, timeout=0.5)
    assert report.failed == [(url + "/langsam", "timed out")]
    assert files(tmp_path) == []


def test_a_page_in_the_wrong_encoding_is_read_with_replacements(site, import_settings, tmp_path):
    _, url = site
    report = run_import(url + "/latin1", tmp_path, max_depth=0)
    assert report.added == [url + "/latin1"]
    text = (tmp_path / "imported" / "127-0-0-1" / "latin1.md").read_text(encoding="utf-8")
    assert "45 kr" in text and "\ufffd" in text


@pytest.mark.django_db
def test_a_caption_row_table_imports_with_its_header_and_its_cells_keep_their_columns(
    site, import_settings, tmp_path
):
    """The fixture site's "Entré": a first row "Priser per person" spanning the columns and a
    <caption>. The real header leads, so a price of another visitor group is withheld."""
    from grounding import selectors
    from grounding.answer_check import answer_check

    _, url = site
    report = run_import(url + "/entre", tmp_path, max_depth=0)
    assert report.added == [url + "/entre"]
    body = (tmp_path / "imported/127-0-0-1/entre.md").read_text()
    assert "Priser per person\n\n| Besökare | Per dag | Per säsong |\n|---|---|---|\n" in body
    assert "Hyra vid badet\n\n| Utrustning | Per timme |\n|---|---|\n" in body
    kb_reindex(kb_dir=tmp_path)
    selectors.clear_index_cache()
    try:
        index = selectors.current_index()
        question = "Vad kostar entré för barn per dag?"
        lines = body.split("\n")
        child = f"[imported/127-0-0-1/entre.md:{_line_of(lines, '| Barn |')}]"
        adult = f"[imported/127-0-0-1/entre.md:{_line_of(lines, '| Vuxen |')}]"

        def check(answer: str):
            return answer_check(index=index, question=question, answer=answer)

        right = check(f"Barn betalar 60 kr per dag {child}.")
        wrong = [check(f"Barn betalar 120 kr per dag {line}.") for line in (child, adult)]
    finally:
        selectors.clear_index_cache()
    assert right.grounded, right.as_dict()
    assert not any(answer.grounded for answer in wrong)


def test_links_of_html_and_markdown_pages_are_imported_as_text(site, import_settings, tmp_path):
    """A markdown link written as text in an HTML page, and a text/markdown page's links,
    images, reference links and autolinks: their text reaches the KB, no target does."""
    _, url = site
    report = run_import(url + "/entre", tmp_path, max_depth=0)
    report = run_import(url + "/guide.md", tmp_path, max_depth=0)
    assert report.added == [url + "/guide.md"]
    entre = (tmp_path / "imported/127-0-0-1/entre.md").read_text()
    guide = (tmp_path / "imported/127-0-0-1/guide.md").read_text()
    assert "Biljetter säljs även hos vår partner och på deras sida." in " ".join(entre.split())
    assert "Läs villkoren innan du bokar." in guide and "Karta över campingen" in guide
    assert "Se vanliga frågor eller https://other.example/kontakt." in guide
    for text in (entre, guide):
        body = text.split("---\n", 2)[2]
        assert "](" not in body and "[faq]" not in body and "partner.example" not in body


def test_a_page_that_sends_a_byte_at_a_time_is_cut_at_its_total_deadline(
    site, import_settings, tmp_path
):
    """Every read comes well inside the read timeout, but the page as a whole is cut."""
    _, url = site
    import_settings.KB_IMPORT_PAGE_SECONDS = 2
    report = run_import(url + "/droppande", tmp_path, max_depth=0)
    assert report.failed == [(url + "/droppande", "over the time limit (2 s)")]


def test_a_crawl_past_its_run_deadline_skips_the_rest_and_removes_nothing(
    site, import_settings, tmp_path
):
    """The pages not reached before ``KB_IMPORT_RUN_SECONDS`` are reported, not lost."""
    from grounding.kbimport.crawl import CrawlLimits, crawl
    from grounding.kbimport.service import confined_transport

    _, url = site
    ticks = iter(range(0, 10_000, 10))  # each look at the clock: ten more seconds
    limits = CrawlLimits(max_pages=50, max_depth=2, max_bytes=200_000, delay=0, run_seconds=45)
    import httpx

    with httpx.Client(transport=confined_transport(["127.0.0.1"]), timeout=5) as client:
        visits = list(
            crawl(client, url + "/", limits, user_agent="test", clock=lambda: next(ticks))
        )
    fetched = [v for v in visits if v.page is not None or v.error is not None]
    late = [v for v in visits if v.skipped == "over the run's time limit (45 s)"]
    assert 1 <= len(fetched) <= 3 and late
    assert visits.index(late[0]) > visits.index(fetched[-1])


def test_an_import_cut_by_its_run_deadline_removes_no_earlier_page(site, import_settings, tmp_path):
    _, url = site
    run_import(url + "/", tmp_path)
    before = files(tmp_path)
    import_settings.KB_IMPORT_RUN_SECONDS = 0
    report = run_import(url + "/", tmp_path)
    assert report.removed == [] and files(tmp_path) == before
    assert report.skipped and all(
        "time limit" in why or "leaves" in why or "robots" in why for _, why in report.skipped
    )


def _line_of(lines: list[str], start: str) -> int:
    """The 1-based line of the first line that starts with ``start``."""
    return next(number for number, line in enumerate(lines, 1) if line.startswith(start))
