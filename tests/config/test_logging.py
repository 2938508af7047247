"""Log lines carry the turn's conversation and message ids; JSON when LOG_FORMAT=json."""

import asyncio
import dataclasses
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from chat import audit, metrics
from chat.composition import turn_services
from chat.context import ConversationContext
from chat.llm import LLMBackend, LLMError, LLMRequest
from chat.logcontext import bind_conversation, bind_turn, current_ids, unbind_conversation
from chat.pipeline import Turn
from config.logging import JsonFormatter, PlainFormatter, TurnContextFilter

probe = logging.getLogger("tests.config.probe")


@contextmanager
def captured_lines(
    formatter: logging.Formatter | None = None, level: int = logging.INFO
) -> Iterator[io.StringIO]:
    """Everything logged at ``level`` and above, formatted as the console handler would."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(TurnContextFilter())
    handler.setFormatter(formatter or JsonFormatter())
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


def json_lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


@given(st.text())
def test_any_message_is_one_json_line_that_round_trips(text):
    """Newlines, quotes and any unicode in a message still make exactly one parseable line."""
    record = logging.LogRecord("t", logging.WARNING, __file__, 1, "%s", (text,), None)
    TurnContextFilter().filter(record)
    line = JsonFormatter().format(record)
    assert "\n" not in line
    assert json.loads(line)["message"] == text


def test_lines_inside_a_turn_carry_its_ids_and_lines_outside_do_not():
    """bind_turn tags every line in its block and restores the previous state after it."""
    with captured_lines() as stream:
        probe.info("before")
        with bind_turn("conv-1", "msg_1"):
            probe.info("during", extra={"status": "done"})
        probe.info("after")
    before, during, after = json_lines(stream)
    assert (before["conversation_id"], before["message_id"]) == (None, None)
    assert during["conversation_id"] == "conv-1" and during["message_id"] == "msg_1"
    assert during["level"] == "INFO" and during["logger"] == probe.name
    assert during["message"] == "during" and during["status"] == "done"
    assert (after["conversation_id"], after["message_id"]) == (None, None)


def test_a_connection_binding_lasts_until_undone_and_turns_nest_inside_it():
    """The conversation bound at connect stays; a turn adds its message id and leaves."""
    token = bind_conversation("conv-2")
    try:
        with bind_turn("conv-2", "msg_2"):
            assert current_ids() == ("conv-2", "msg_2")
        assert current_ids() == ("conv-2", None)
    finally:
        unbind_conversation(token)
    assert current_ids() == (None, None)


async def test_ids_follow_the_turn_into_tasks_and_worker_threads():
    """Tasks started in the turn and sync_to_async threads log with the turn's ids."""

    def in_thread():
        probe.info("thread")

    async def in_task():
        await asyncio.sleep(0)
        probe.info("task")

    with captured_lines() as stream:
        with bind_turn("conv-3", "msg_3"):
            task = asyncio.create_task(in_task())
            await sync_to_async(in_thread, thread_sensitive=False)()
        # The task outlives the block and still belongs to the turn that started it.
        await task
        probe.info("outside")
    lines = {line["message"]: line for line in json_lines(stream)}
    for name in ("thread", "task"):
        assert (lines[name]["conversation_id"], lines[name]["message_id"]) == ("conv-3", "msg_3")
    assert lines["outside"]["message_id"] is None


def test_exceptions_and_unserialisable_extras_still_make_one_json_line():
    """A traceback goes in its own field; an object extra is written as its str()."""
    with captured_lines() as stream:
        try:
            raise ValueError("boom")
        except ValueError:
            probe.exception("failed", extra={"request": object()})
    (line,) = json_lines(stream)
    assert "ValueError: boom" in line["exception"]
    assert line["request"].startswith("<object object")


def test_plain_lines_name_the_turn_only_inside_one():
    """The terminal format adds [conversation message] to a turn's lines and nothing elsewhere."""
    with captured_lines(PlainFormatter()) as stream:
        probe.info("idle")
        with bind_turn("conv-4", "msg_4"):
            probe.info("busy")
    idle, busy = stream.getvalue().splitlines()
    assert "[" not in idle and idle.endswith(f"INFO {probe.name} idle")
    assert busy.endswith(f"INFO {probe.name} [conv-4 msg_4] busy")


def test_turn_summary_line_has_ids_status_and_timings():
    """The metrics hook logs one DEBUG line per turn, tagged with the turn."""
    with captured_lines(level=logging.DEBUG) as stream, bind_turn("conv-5", "msg_5"):
        metrics.turn_finished("done", 210.5, 1800.0)
    (line,) = json_lines(stream)
    assert line["conversation_id"] == "conv-5" and line["message_id"] == "msg_5"
    assert (line["status"], line["ttft_ms"], line["total_ms"]) == ("done", 210.5, 1800.0)


def run_with_settings(env_overrides: dict[str, str]) -> str:
    """stderr of a process that sets Django up and logs one line inside a turn."""
    code = (
        "import django, logging\n"
        "django.setup()\n"
        "from chat.logcontext import bind_turn\n"
        "with bind_turn('conv-6', 'msg_6'):\n"
        "    logging.getLogger('probe').info('hello')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("LOG_FORMAT", "LOG_LEVEL")}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", **env_overrides})
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stderr.strip().splitlines()[-1]


def test_log_format_json_setting_makes_the_console_write_json():
    """LOG_FORMAT=json switches the console handler to JSON lines with the turn's ids."""
    line = json.loads(run_with_settings({"LOG_FORMAT": "json"}))
    assert (line["message"], line["conversation_id"], line["message_id"]) == (
        "hello",
        "conv-6",
        "msg_6",
    )


def test_default_log_format_is_plain_text():
    """Without LOG_FORMAT the console stays human-readable."""
    line = run_with_settings({})
    assert line.endswith("INFO probe [conv-6 msg_6] hello")


class FailingBackend(LLMBackend):
    """Fails before its first token, so the turn logs its fallback."""

    name = "failing"

    @property
    def model(self) -> str:
        return "failing-1"

    async def stream(self, request: LLMRequest) -> AsyncIterator[str]:
        raise LLMError("upstream returned 503")
        yield  # an async generator, like every backend


@pytest.fixture
def indexed_kb(transactional_db):
    from grounding import selectors
    from grounding.services import kb_reindex

    selectors.clear_index_cache()
    kb_reindex(kb_dir=settings.KB_DIR)
    yield
    selectors.clear_index_cache()


@pytest.mark.usefixtures("indexed_kb")
async def test_a_turn_logs_with_its_ids_and_never_the_users_text():
    """Every INFO+ line of a failing turn is tagged with it; the question appears in none."""
    question = "Vad kostar premium per månad för företaget Zyxwvut?"
    context = ConversationContext()
    turn = Turn(
        context=context,
        text=question,
        message_id="msg_7",
        services=dataclasses.replace(turn_services(), backend=FailingBackend()),
    )
    with captured_lines() as stream, bind_turn(context.id, turn.message_id):
        events = [event async for event in turn.events()]
        await audit.drain()
    assert events[-1].status == "error"
    lines = json_lines(stream)
    assert lines, "the failed LLM call is logged"
    for line in lines:
        assert line["conversation_id"] == str(context.id) and line["message_id"] == "msg_7"
        assert "Zyxwvut" not in json.dumps(line, ensure_ascii=False)
