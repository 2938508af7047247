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
    """No delay between requests, a size cap the large page is over, the fixture site allowed."""
    settings.KB_IMPORT_DELAY = 0
    settings.KB_IMPORT_MAX_BYTES = 200_000
    settings.KB_IMPORT_TIMEOUT = 5
    # The fixture site is on loopback: reachable only because it is named here.
    settings.KB_IMPORT_INTERNAL_HOSTS = ["127.0.0.1"]
    return settings
