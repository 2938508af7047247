"""daphne under cProfile, for ``python -m bench --profile``.

    BENCH_PROFILE_OUT=out.prof python -m bench.profiled_daphne -b 127.0.0.1 -p PORT app:application

Profiles only between SIGUSR1 (start) and SIGUSR2 (stop and write), so
start-up and connection set-up stay out of the figures. ``out.prof`` is the
main thread, which runs the event loop (where every frame is built and
sent); ``out.threads.prof`` is every work item the thread pools ran meanwhile
(database calls, index loads). cProfile times are wall times: a call that
releases the GIL also counts the wait to get it back.
"""

import cProfile
import os
import pstats
import signal
import sys
import threading
from concurrent.futures import thread as futures_thread

from config import serve

loop_profile = cProfile.Profile()
_work_profiles: list[cProfile.Profile] = []
_lock = threading.Lock()
_active = False
_run_work_item = futures_thread._WorkItem.run


def _profiled_work_item(self) -> None:
    if not _active:
        return _run_work_item(self)
    profile = cProfile.Profile()
    try:
        profile.runcall(_run_work_item, self)
    finally:
        with _lock:
            _work_profiles.append(profile)


def start(signum, frame) -> None:
    global _active
    _active = True
    loop_profile.enable()


def stop(signum, frame) -> None:
    global _active
    loop_profile.disable()
    _active = False
    out = os.environ["BENCH_PROFILE_OUT"]
    with _lock:
        profiles = list(_work_profiles)
    if profiles:
        pstats.Stats(*profiles).dump_stats(out.removesuffix(".prof") + ".threads.prof")
    loop_profile.dump_stats(out)  # last: its appearance means both are written


def main() -> None:
    futures_thread._WorkItem.run = _profiled_work_item
    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    serve.main(sys.argv[1:])  # served as make run serves it, server patches included


if __name__ == "__main__":
    main()
