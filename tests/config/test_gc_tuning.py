"""Garbage-collector tuning of the served process (run in fresh interpreters: it is global)."""

from tests.live import run_python


def test_freeze_and_a_clock_for_full_collections():
    """Start-up objects are frozen, and full collections leave Python's schedule."""
    out = run_python(
        """
        import gc
        from config.server.gc_tuning import tune
        tune(freeze=True, full_collection_seconds=60)
        print(gc.get_freeze_count() > 1000, gc.get_threshold()[2] >= 1_000_000)
        """
    )
    assert out == "True True"


def test_young_collections_wait_for_the_configured_number_of_allocations():
    """``young_threshold`` replaces Python's 700; the older generations keep theirs."""
    out = run_python(
        """
        import gc
        from config.server.gc_tuning import tune
        middle = gc.get_threshold()[1]
        tune(freeze=False, full_collection_seconds=0, young_threshold=10_000)
        print(gc.get_threshold()[:2] == (10_000, middle))
        """
    )
    assert out == "True"


def test_garbage_that_reached_the_oldest_generation_is_still_collected():
    """A garbage cycle that young collections cannot see goes at the next timed collection."""
    out = run_python(
        """
        import gc, time, weakref
        from config.server.gc_tuning import tune

        class Node:
            pass

        tune(freeze=False, full_collection_seconds=0.2)
        a, b = Node(), Node()
        a.other, b.other = b, a
        alive = weakref.ref(a)
        gc.collect(1); gc.collect(1)  # survives young collections: now in the oldest
        del a, b
        gc.collect(1)
        young_only = alive() is not None
        deadline = time.monotonic() + 5
        while alive() is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        print(young_only, alive() is None)
        """
    )
    assert out == "True True"


def test_a_project_without_the_settings_keeps_pythons_collector():
    """``tune_from_settings`` under settings that do not ask for it changes nothing."""
    out = run_python(
        """
        import gc
        import django
        from django.conf import settings
        settings.configure()
        django.setup()
        before = gc.get_threshold()
        from config.server.gc_tuning import tune_from_settings
        tune_from_settings()
        print(gc.get_threshold() == before, gc.get_freeze_count())
        """
    )
    assert out == "True 0"
