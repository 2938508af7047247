"""Suite-wide test setup.

With ``CI=true`` any skipped test fails the run: CI must prove the
PostgreSQL, Redis and browser tests instead of skipping them.
"""

import os

import pytest


@pytest.fixture(autouse=True)
def _fast_product_settings(settings):
    """No token delay, no rate limit surprises, SMS kept in memory, cheap hashing, the audit
    writer in process."""
    settings.LLM_TOKEN_DELAY_MS = "0"
    settings.LLM_BACKEND = "mock"
    settings.SMS_BACKEND = "actions.sms.LocmemBackend"
    settings.KB_VERSION_CHECK_SECONDS = 0
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # A test's own event loop writes from a thread: its database is the test's transaction,
    # which a writer process would not see (tests/chat/test_audit_process.py starts one).
    settings.AUDIT_WRITER_PROCESS = False


@pytest.fixture(autouse=True)
def _fresh_connection_counts():
    """Each test starts with no open connections counted (a test may leave one open)."""
    from chat.composition import connections_by_address

    connections_by_address().open.clear()
    yield
    connections_by_address().open.clear()


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped:
        reporter.write_line(
            f"CI=true: {len(skipped)} test(s) were skipped; CI must run them all.", red=True
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
