"""``python -m config.serve``: daphne's command line, with the server patches asked for."""

import subprocess
import sys

from tests.live import ROOT, product_env


def serve_help(**settings: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "config.serve", "--help"],
        cwd=ROOT,
        env=product_env(**settings),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def installed(done: subprocess.CompletedProcess) -> list[str]:
    line = next(line for line in done.stderr.splitlines() if line.startswith("Server patches:"))
    return [name for name in line.removeprefix("Server patches:").strip().split(", ") if name]


def test_the_command_line_is_daphnes():
    """Options and the application path are daphne's (``--help`` lists them)."""
    done = serve_help()
    assert "--websocket-max-message-size" in done.stdout
    assert "application" in done.stdout


def test_each_patch_follows_its_setting():
    """Every patch is on by default, and its setting alone turns it off."""
    everything = installed(serve_help())
    assert everything == [
        "SERVER_UVLOOP",
        "SERVER_CLOSE_CODES",
        "GC_TUNING",
    ]
    for name in everything:
        assert installed(serve_help(**{name: "0"})) == [n for n in everything if n != name]


def test_a_project_without_the_products_settings_is_served_too():
    """The bench's Channels floor runs under ``config.serve`` with settings of its own."""
    done = serve_help(DJANGO_SETTINGS_MODULE="bench.floors.channels_settings")
    assert installed(done) == ["SERVER_UVLOOP", "SERVER_CLOSE_CODES", "GC_TUNING"]


def test_the_reactor_runs_on_uvloop_only_when_asked():
    """SERVER_UVLOOP decides the loop under daphne's Twisted reactor."""
    probe = (
        "import config.serve\n"
        "try:\n    config.serve.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "import daphne.server\n"
        "print(type(daphne.server.twisted_loop).__module__)"
    )
    for value, expected in (("1", "uvloop"), ("0", "asyncio")):
        done = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=ROOT,
            env=product_env(SERVER_UVLOOP=value),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert done.stdout.splitlines()[-1].startswith(expected), done.stdout
