"""Scale-out: two daphne processes behind one PostgreSQL database and one Redis layer.

A browser session is its ``sessionid`` cookie; every WebSocket here sends it,
so connections to A and to B are tabs of the same conversation.
"""

import asyncio
import json
import time
from collections import Counter
from contextlib import AsyncExitStack

import httpx
import pytest
from websockets.asyncio.client import connect

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

RECV_TIMEOUT_SECONDS = 10.0
HTTP_TIMEOUT_SECONDS = 10.0
CALLBACK_REQUEST = "Ring mig på 070-123 45 67"
CALLBACK_DONE = "Callback scheduled to 070-123 45 67"
# A frame type the server does not know: its error reply is an ordered
# marker, since a connection answers its frames in the order they arrive.
PROBE = {"type": "scaleout_probe"}
CONFIRMS_PER_PROCESS = 10
RELOAD_BUDGET_SECONDS = 1.0
# Longer than channels-redis' blocking receive (``brpop_timeout``, 5 s).
IDLE_SECONDS = 6.5
PRICE_QUESTION = "Vad kostar premium?"
NEW_KB_FILE = "scaleout/fjallugglan.md"
NEW_KB_TEXT = (
    "# Kontoret Fjällugglan\n\n"
    "Kontoret Fjällugglan i Sorsele har öppet till klockan 19:45 på lördagar.\n"
)
NEW_FACT_QUESTION = "Hur länge har kontoret Fjällugglan öppet på lördagar?"


class Tab:
    """One WebSocket connection of a browser session, with bounded receives."""

    def __init__(self, ws) -> None:
        self.ws = ws

    async def send(self, frame: dict) -> None:
        await self.ws.send(json.dumps(frame))

    async def recv(self) -> dict:
        return json.loads(await asyncio.wait_for(self.ws.recv(), RECV_TIMEOUT_SECONDS))

    async def until(self, frame_type: str) -> tuple[dict, list[dict]]:
        """The next frame of ``frame_type`` and the frames that came before it."""
        before = []
        while (frame := await self.recv())["type"] != frame_type:
            before.append(frame)
        return frame, before

    async def probe(self) -> list[dict]:
        """Every frame that reached this tab before the answer to a probe."""
        await self.send(PROBE)
        error, before = await self.until("error")
        assert error["code"] == "unknown_type", error
        return before

    async def ask(self, text: str) -> dict:
        """This tab's answer to ``text`` (another tab's questions and answers reach it too)."""
        message_id = f"ask-{id(self)}-{time.monotonic_ns()}"
        await self.send({"type": "message", "id": message_id, "text": text})
        while (response := (await self.until("response"))[0])["messageId"] != message_id:
            pass
        return response

    async def suggest_callback(self) -> str:
        """Ask for a call back; the new suggestion's id."""
        suggestion_id, _ = await self.suggest_callback_with_prompt()
        return suggestion_id

    async def suggest_callback_with_prompt(self) -> tuple[str, str]:
        """Ask for a call back; the new suggestion's id and the question asking to confirm."""
        await self.send({"type": "message", "text": CALLBACK_REQUEST})
        suggestion, before = await self.until("action_suggestion")
        assert suggestion["action"] == "schedule_callback", suggestion
        [prompt] = [frame["text"] for frame in before if frame["type"] == "response"]
        return suggestion["suggestionId"], prompt


async def open_tab(stack: AsyncExitStack, server, cookie: str) -> Tab:
    ws = await stack.enter_async_context(
        connect(
            server.ws_url,
            additional_headers={"Cookie": f"sessionid={cookie}"},
            open_timeout=RECV_TIMEOUT_SECONDS,
            close_timeout=2,
        )
    )
    return Tab(ws)


def history(server, cookie: str) -> dict:
    response = httpx.get(
        server.http_url + "/history/",
        cookies={"sessionid": cookie},
        timeout=HTTP_TIMEOUT_SECONDS,
    )
    response.raise_for_status()
    return response.json()


def rows_for(cluster, suggestion_id: str) -> dict:
    """What PostgreSQL holds for one suggestion, read with psycopg, not the ORM."""
    [(status, executions, duplicates, callbacks)] = cluster.query(
        """
        SELECT s.status,
               (SELECT count(*) FROM actions_execution e WHERE e.suggestion_id = s.id),
               (SELECT coalesce(sum(e.duplicate_confirms), 0)
                  FROM actions_execution e WHERE e.suggestion_id = s.id),
               (SELECT count(*) FROM actions_callbackrequest c WHERE c.suggestion_id = s.id)
        FROM actions_suggestion s
        WHERE s.suggestion_id = %s
        """,
        (suggestion_id,),
    )
    return {
        "status": status,
        "executions": executions,
        "duplicate_confirms": duplicates,
        "callbacks": callbacks,
    }


async def confirm_and_collect(tab: Tab, suggestion_id: str) -> list[bool]:
    """Confirm, then the ``ignored`` flag of every ``action_executed`` this tab saw.

    That is its own answer plus, when another tab won, the winner's result
    relayed over the channel layer (which may arrive before or after its own).
    """
    await tab.send({"type": "confirm_action", "suggestionId": suggestion_id})
    seen = await tab.probe()
    # A tab that lost waits for the winner's relayed result too.
    while True in _flags(seen, suggestion_id) and False not in _flags(seen, suggestion_id):
        seen.append(await tab.recv())
    return sorted(_flags(seen, suggestion_id))


def _flags(frames: list[dict], suggestion_id: str) -> list[bool]:
    flags = []
    for frame in frames:
        assert frame["type"] == "action_executed", frame
        assert frame["suggestionId"] == suggestion_id, frame
        assert frame["result"]["success"] is True, frame
        if not frame["result"]["ignored"]:
            assert frame["result"]["message"] == CALLBACK_DONE, frame
        flags.append(frame["result"]["ignored"])
    return flags


async def test_both_processes_report_healthy_with_the_same_index_version(both_running):
    """``/healthz`` on A and on B: ok (database, Redis layer, index) and one KB version."""
    versions = []
    for server in (both_running.a, both_running.b):
        response = httpx.get(server.http_url + "/healthz", timeout=HTTP_TIMEOUT_SECONDS)
        body = response.json()
        assert response.status_code == 200, body
        assert body["status"] == "ok", body
        assert all(check["ok"] for check in body["checks"].values()), body
        versions.append(body["checks"]["kb_index"]["version"])
    assert versions[0] == versions[1]
    assert versions[0] >= 1


async def test_a_confirm_on_a_reaches_the_tab_on_b(both_running):
    """Two tabs of one conversation on A and B: B gets A's ``action_executed`` via Redis."""
    cookie = both_running.session_cookie()
    async with AsyncExitStack() as stack:
        tab_a = await open_tab(stack, both_running.a, cookie)
        suggestion_id = await tab_a.suggest_callback()
        tab_b = await open_tab(stack, both_running.b, cookie)

        await tab_a.send({"type": "confirm_action", "suggestionId": suggestion_id})
        own, _ = await tab_a.until("action_executed")
        relayed, before = await tab_b.until("action_executed")

        assert own["result"] == {"success": True, "ignored": False, "message": CALLBACK_DONE}
        assert before == []
        assert relayed == own
        # Exactly one relay, and none echoed back to the tab that confirmed.
        assert await tab_b.probe() == []
        assert await tab_a.probe() == []


async def test_twenty_concurrent_confirms_across_two_processes_execute_once(both_running):
    """20 tabs (10 on A, 10 on B) confirm A's suggestion at once: one runs, 19 are ignored."""
    cookie = both_running.session_cookie()
    async with AsyncExitStack() as stack:
        first = await open_tab(stack, both_running.a, cookie)
        suggestion_id = await first.suggest_callback()
        servers = [both_running.a] * (CONFIRMS_PER_PROCESS - 1)
        servers += [both_running.b] * CONFIRMS_PER_PROCESS
        tabs = [first] + [await open_tab(stack, server, cookie) for server in servers]

        seen = await asyncio.gather(*(confirm_and_collect(tab, suggestion_id) for tab in tabs))

        # One tab saw only its own executed answer; each of the other 19 saw its
        # own ignored answer and the winner's result relayed to it once.
        assert Counter(tuple(flags) for flags in seen) == {(False,): 1, (False, True): 19}
        leftovers = await asyncio.gather(*(tab.probe() for tab in tabs))
        assert leftovers == [[]] * len(tabs)

    assert rows_for(both_running, suggestion_id) == {
        "status": "executed",
        "executions": 1,
        "duplicate_confirms": 19,
        "callbacks": 1,
    }


async def test_a_reindex_is_answered_by_both_processes_within_one_second(both_running):
    """After ``reindex_kb`` exits, A and B both answer from the new document within 1 s."""
    cookie = both_running.session_cookie()
    new_file = both_running.kb_dir / NEW_KB_FILE
    async with AsyncExitStack() as stack:
        # Open before the reindex: these connections hear its announcement.
        tabs = [
            await open_tab(stack, both_running.a, cookie),
            await open_tab(stack, both_running.b, cookie),
        ]
        before = await tabs[0].ask(NEW_FACT_QUESTION)
        assert "19:45" not in before["text"]

        new_file.parent.mkdir(exist_ok=True)
        new_file.write_text(NEW_KB_TEXT, encoding="utf-8")
        command = both_running.manage("reindex_kb")
        exited = time.monotonic()
        assert command.returncode == 0, command.stderr
        answers = await asyncio.gather(*(tab.ask(NEW_FACT_QUESTION) for tab in tabs))
        elapsed = time.monotonic() - exited
        print(f"Both processes answered from the new index {elapsed:.3f} s after exit")

    for answer in answers:
        assert answer["grounded"] is True, answer
        assert "19:45" in answer["text"], answer
        assert f"kb/{NEW_KB_FILE}" in {c["file"] for c in answer["citations"]}, answer
    assert elapsed < RELOAD_BUDGET_SECONDS, f"{elapsed:.3f} s from the command's exit"


async def test_idle_tabs_outlive_the_channel_layers_blocking_read(both_running):
    """Tabs silent for longer than channels-redis' 5 s blocking receive still get answers.

    A Redis read timeout no longer than that receive would end every quiet
    connection with close code 1011 while its user is still reading.
    """
    cookie = both_running.session_cookie()
    async with AsyncExitStack() as stack:
        tabs = [
            await open_tab(stack, both_running.a, cookie),
            await open_tab(stack, both_running.b, cookie),
        ]
        await asyncio.sleep(IDLE_SECONDS)
        answers = await asyncio.gather(*(tab.ask(PRICE_QUESTION) for tab in tabs))
    for answer in answers:
        assert answer["grounded"] is True, answer


async def test_a_conversation_resumes_on_b_after_a_stops(both_running):
    """A turn and a suggestion through A, A stopped: B has the history and runs the action."""
    cookie = both_running.session_cookie()
    async with AsyncExitStack() as stack:
        tab = await open_tab(stack, both_running.a, cookie)
        answer = await tab.ask(PRICE_QUESTION)
        suggestion_id, prompt = await tab.suggest_callback_with_prompt()
    assert answer["grounded"] is True, answer
    # The turn's record lands just after its last frame: A stops once it has.
    for _ in range(100):
        if history(both_running.a, cookie)["messages"][-1]["text"] == prompt:
            break
        await asyncio.sleep(0.1)

    both_running.stop(both_running.a)

    resumed = history(both_running.b, cookie)
    assert [(m["role"], m["text"]) for m in resumed["messages"]] == [
        ("user", PRICE_QUESTION),
        ("assistant", answer["text"]),
        ("user", CALLBACK_REQUEST),
        ("assistant", prompt),
    ]
    assert [s["suggestionId"] for s in resumed["suggestions"]] == [suggestion_id]

    async with AsyncExitStack() as stack:
        tab = await open_tab(stack, both_running.b, cookie)
        await tab.send({"type": "confirm_action", "suggestionId": suggestion_id})
        executed, _ = await tab.until("action_executed")
    assert executed["result"] == {"success": True, "ignored": False, "message": CALLBACK_DONE}
    assert rows_for(both_running, suggestion_id)["executions"] == 1
