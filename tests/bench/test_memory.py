"""What ``make bench`` counts as a server's memory (bench/__main__.py)."""

import subprocess
import sys

import psutil

from bench.__main__ import MB, _children_rss

HOLDS_80_MB = (
    "import sys, time; held = b'x' * (80 * 2**20); print('ready', flush=True); time.sleep(120)"
)


def test_a_servers_own_processes_memory_is_counted():
    """The audit writer's RSS is reported beside the server's: a child holding 80 MB shows."""
    child = subprocess.Popen([sys.executable, "-c", HOLDS_80_MB], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        assert _children_rss(psutil.Process()) >= 75 * MB
    finally:
        child.kill()
        child.wait()
