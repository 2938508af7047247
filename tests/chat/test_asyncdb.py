"""The boundary between async code and the ORM: where a sync call runs, and its connections."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from chat import asyncdb


async def test_a_writer_call_runs_on_its_executors_thread_between_two_connection_closes(
    monkeypatch,
):
    closes = []
    monkeypatch.setattr(
        asyncdb, "close_old_connections", lambda: closes.append(threading.get_ident())
    )

    def write(*, rows):
        closes.append(("write", rows))
        return threading.get_ident()

    with ThreadPoolExecutor(max_workers=1) as executor:
        thread = await asyncdb.on_thread_of(executor, write, rows=3)
    assert thread != threading.get_ident()
    assert closes == [thread, ("write", 3), thread]


async def test_a_failing_writer_call_still_closes_its_connections_and_raises(monkeypatch):
    closes = []
    monkeypatch.setattr(asyncdb, "close_old_connections", lambda: closes.append(1))

    def write():
        raise RuntimeError("the database said no")

    with (
        ThreadPoolExecutor(max_workers=1) as executor,
        pytest.raises(RuntimeError, match="the database said no"),
    ):
        await asyncdb.on_thread_of(executor, write)
    assert closes == [1, 1]
