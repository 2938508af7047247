"""What ``make bench`` counts as a server's memory (bench/__main__.py)."""

import subprocess
import sys

import psutil

from bench.__main__ import MB, _rss

HOLDS_80_MB = (
    "import sys, time; held = b'x' * (80 * 2**20); print('ready', flush=True); time.sleep(120)"
)


def test_a_servers_memory_includes_its_own_processes():
    """The audit writer's RSS counts with the server's: a child holding 80 MB adds them."""
    child = subprocess.Popen([sys.executable, "-c", HOLDS_80_MB], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        me = psutil.Process()
        assert _rss(me) - me.memory_info().rss >= 75 * MB
    finally:
        child.kill()
        child.wait()
