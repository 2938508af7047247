"""In Chromium: a citation of an imported page links to the page it came from."""

import pytest

from grounding.kbimport.service import ImportOptions, import_sources
from tests.chat.browser import ask, launch, needs_chromium, new_page
from tests.chat.conftest import context_factory  # noqa: F401 (the browser tests' fixture)
from tests.kbimport.site import FixtureSite, serve
from tests.live import daphne_server, prepare_database, product_env

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def imported_site(tmp_path_factory):
    """The fixture site, running, and imported into a KB directory of its own."""
    state = FixtureSite()
    server, url = serve(state)
    kb_dir = tmp_path_factory.mktemp("kb")
    options = ImportOptions(
        max_pages=50,
        max_depth=2,
        max_bytes=200_000,
        timeout=5,
        delay=0,
        internal_hosts=("127.0.0.1",),
    )
    import_sources([url + "/"], kb_dir=kb_dir, options=options)
    yield url, kb_dir
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def server_url(imported_site, tmp_path_factory):
    _, kb_dir = imported_site
    db = tmp_path_factory.mktemp("browser") / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}", KB_DIR=str(kb_dir), LLM_TOKEN_DELAY_MS="0")
    prepare_database(env)
    with daphne_server(env, start_timeout=120) as (port, _):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = launch(p)
        yield chromium
        chromium.close()


def test_a_citation_of_an_imported_page_links_to_its_source(
    context_factory,  # noqa: F811
    server_url,
    imported_site,
):
    site_url, _ = imported_site
    page = new_page(None, server_url, context=context_factory())
    answer = ask(page, "Slutstädning?")
    assert answer.get_attribute("data-status") == "done"
    assert "450 kr" in answer.locator(".text").inner_text()
    answer.locator("summary").first.click()
    link = answer.get_by_role("link", name="Öppna sidan Priser")
    assert link.get_attribute("href") == site_url + "/priser"
    assert link.get_attribute("target") == "_blank"
    assert set(link.get_attribute("rel").split()) == {"noopener", "noreferrer"}
