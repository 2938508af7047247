"""``python -m config.serve``: daphne's command line on a uvloop event loop."""

import subprocess
import sys

from tests.live import ROOT


def test_the_reactor_runs_on_uvloop():
    """Importing daphne after ``use_uvloop`` gives its Twisted reactor a uvloop loop."""
    probe = (
        "from config.serve import use_uvloop; use_uvloop();"
        "import daphne.server, uvloop;"
        "print(type(daphne.server.twisted_loop).__module__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip().startswith("uvloop")


def test_the_command_line_is_daphnes():
    """Options and the application path are daphne's (``--help`` lists them)."""
    done = subprocess.run(
        [sys.executable, "-m", "config.serve", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--websocket-max-message-size" in done.stdout
    assert "application" in done.stdout
