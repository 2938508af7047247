import pytest

from tests.kbimport.site import FixtureSite, serve


@pytest.fixture
def site():
    """The fixture website on a free loopback port: ``(state, base URL)``."""
    state = FixtureSite()
    server, url = serve(state)
    yield state, url
    server.shutdown()
    server.server_close()


@pytest.fixture
def import_settings(settings):
    """No delay between requests, and a size cap the large page is over."""
    settings.KB_IMPORT_DELAY = 0
    settings.KB_IMPORT_MAX_BYTES = 200_000
    settings.KB_IMPORT_TIMEOUT = 5
    return settings
