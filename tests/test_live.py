"""The test harness itself: a child that ignores SIGTERM is killed, and a test that would
wait for it forever fails by the run's timeout instead of hanging the suite."""

import os
import signal
import subprocess
import sys
import textwrap
import tomllib

from tests.live import ROOT, stop_process

# A child that ignores SIGTERM (as a stuck ``audit_writer`` did) and says when it does.
STUBBORN_CHILD = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ignoring', flush=True)\n"
    "while True:\n"
    "    time.sleep(1)\n"
)


def stubborn_child() -> subprocess.Popen:
    child = subprocess.Popen(
        [sys.executable, "-c", STUBBORN_CHILD], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "ignoring"  # its handler is in place
    return child


def test_stop_process_kills_a_child_that_ignores_sigterm_after_its_bounded_wait():
    child = stubborn_child()
    try:
        assert stop_process(child, timeout=1) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_stop_process_kills_the_children_a_stopped_process_left_behind():
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            f"child = subprocess.Popen([sys.executable, '-c', {STUBBORN_CHILD!r}])\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    grandchild = int(parent.stdout.readline())
    try:
        stop_process(parent, timeout=1)
        assert not pid_alive(grandchild)
    finally:
        if pid_alive(grandchild):
            os.kill(grandchild, signal.SIGKILL)


def pid_alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_the_run_has_a_per_test_timeout_that_interrupts_a_blocked_test():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    options = options["ini_options"]
    assert 60 <= options["timeout"] <= 600
    assert options["timeout_method"] == "signal"


def test_a_test_waiting_forever_on_a_child_that_ignores_sigterm_fails_by_timeout(tmp_path):
    """The same wait the audit writer's fixture once did, with no bound, in a run of its own
    with a short timeout: it fails with "Timeout" and the run ends."""
    (tmp_path / "test_stuck.py").write_text(
        textwrap.dedent(
            f"""
            import subprocess, sys

            def test_stuck():
                child = subprocess.Popen(
                    [sys.executable, "-c", {STUBBORN_CHILD!r}], stdout=subprocess.PIPE
                )
                try:
                    child.stdout.readline()
                    child.terminate()
                    child.wait()  # never returns: SIGTERM is ignored
                finally:
                    child.kill()
                    child.wait()
            """
        )
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\ntimeout = 3\ntimeout_method = signal\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:django", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,  # the outer bound: this test itself cannot hang either
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Timeout (>3.0s)" in done.stdout
    assert "1 failed" in done.stdout
