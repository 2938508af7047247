"""`manage.py check --deploy --fail-level WARNING` passes with the production environment."""

import os
import secrets
import subprocess
import sys

from django.conf import settings

# Variables the settings read for security; cleared so the shell running the
# tests cannot make either case pass or fail.
SECURITY_VARIABLES = (
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "DJANGO_SECURE_SSL_REDIRECT",
    "DJANGO_SESSION_COOKIE_SECURE",
    "DJANGO_CSRF_COOKIE_SECURE",
    "DJANGO_SECURE_HSTS_SECONDS",
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "DJANGO_SECURE_HSTS_PRELOAD",
    "DJANGO_SECURE_PROXY_SSL_HEADER",
    "TRUSTED_PROXIES",
)


def production_env() -> dict[str, str]:
    return {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "chat.example.com",
        "CSRF_TRUSTED_ORIGINS": "https://chat.example.com",
        "DJANGO_SECURE_SSL_REDIRECT": "1",
        "DJANGO_SESSION_COOKIE_SECURE": "1",
        "DJANGO_CSRF_COOKIE_SECURE": "1",
        "DJANGO_SECURE_HSTS_SECONDS": "31536000",
        "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
        "DJANGO_SECURE_HSTS_PRELOAD": "1",
        "DJANGO_SECURE_PROXY_SSL_HEADER": "1",
    }


def deploy_check(overrides: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in SECURITY_VARIABLES}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", **overrides})
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_environment_passes_the_deploy_check():
    """DEBUG off, a long random key, the host, secure cookies, HSTS and SSL redirect: no issues."""
    done = deploy_check(production_env())
    assert done.returncode == 0, done.stderr
    assert "no issues" in done.stdout


def test_three_variables_pass_the_deploy_check():
    """DJANGO_DEBUG=0, a secret key and the host are enough: secure cookies, HSTS and the
    SSL redirect default to on in production."""
    done = deploy_check(
        {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "chat.example.com",
        }
    )
    assert done.returncode == 0, done.stderr
    assert "no issues" in done.stdout


def test_a_variable_turns_one_production_default_off():
    """DJANGO_SECURE_SSL_REDIRECT=0 (TLS redirect done by the proxy) turns off that one only."""
    done = deploy_check(
        {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "chat.example.com",
            "DJANGO_SECURE_SSL_REDIRECT": "0",
        }
    )
    assert "security.W008" in done.stderr
    for warning in ("W004", "W012", "W016"):
        assert f"security.{warning}" not in done.stderr, warning


def test_development_defaults_fail_the_deploy_check():
    """The defaults that keep `make run` on plain http are flagged as unfit for production."""
    done = deploy_check({})
    assert done.returncode != 0
    for warning in ("W004", "W008", "W009", "W012", "W016"):
        assert f"security.{warning}" in done.stderr, warning
