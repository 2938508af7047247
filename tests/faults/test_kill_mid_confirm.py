"""``kill -9`` during 20 concurrent confirms, restart, retry: every action ran at most once.

Each round: 20 conversations each get an SMS suggestion, all 20 confirm at
once, the process is killed with SIGKILL a few milliseconds later, started
again as ``make run`` starts it (``recover_executions`` included), and every
client confirms again. The SMS backend appends every send, with its
idempotency key, to a file that survives the kill.

``FAULT_CONFIRM_ROUNDS`` rounds (CI: 3; the acceptance run: 20).
"""

import asyncio
import json
import os
import random
import time
from collections import Counter

import pytest
from websockets.asyncio.client import connect

from tests.faults.conftest import RECV_TIMEOUT_SECONDS, sms_log

CLIENTS = 20
ROUNDS = int(os.environ.get("FAULT_CONFIRM_ROUNDS") or 3)
# Each round restarts the server: more rounds, more time than the run's per-test timeout.
pytestmark = [pytest.mark.postgres, pytest.mark.timeout(600 + 120 * ROUNDS)]
RECOVERY_SECONDS = 1.0


async def recv_until(ws, frame_type: str) -> dict:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_SECONDS))
        if frame["type"] == frame_type:
            return frame


async def suggestion_for(url: str, cookie: str, number: str) -> str:
    async with connect(url, additional_headers={"Cookie": f"sessionid={cookie}"}) as ws:
        await ws.send(json.dumps({"type": "message", "text": f"Skicka sms till {number}"}))
        return (await recv_until(ws, "action_suggestion"))["suggestionId"]


async def opened(url: str, cookie: str):
    return await connect(url, additional_headers={"Cookie": f"sessionid={cookie}"}, close_timeout=1)


async def confirm_on(ws, suggestion_id: str) -> dict | None:
    """The confirm's result, or None when the process died before answering."""
    try:
        await ws.send(json.dumps({"type": "confirm_action", "suggestionId": suggestion_id}))
        return (await recv_until(ws, "action_executed"))["result"]
    except Exception:
        return None
    finally:
        ws.transport.abort()


async def confirm(url: str, cookie: str, suggestion_id: str) -> dict | None:
    return await confirm_on(await opened(url, cookie), suggestion_id)


def test_kill_9_mid_confirm_then_retry_runs_every_action_at_most_once(product_factory, tmp_path):
    product = product_factory(
        EXECUTION_RECOVERY_SECONDS=str(RECOVERY_SECONDS), ACTION_WINDOW_SECONDS="600"
    )
    product.start()
    reported_success: set[str] = set()
    answered_before_kill = unanswered = 0
    started = time.monotonic()
    for round_number in range(ROUNDS):
        cookies = [product.session() for _ in range(CLIENTS)]

        async def set_up(cookies=cookies, round_number=round_number):
            return await asyncio.gather(
                *(
                    suggestion_for(product.ws_url, c, f"070-5{round_number:02d} 12 {n:02d}")
                    for n, c in enumerate(cookies)
                )
            )

        suggestions = asyncio.run(set_up())

        async def confirm_all_then_kill(cookies=cookies, suggestions=suggestions):
            sockets = await asyncio.gather(*(opened(product.ws_url, c) for c in cookies))
            tasks = [
                asyncio.create_task(confirm_on(ws, s))
                for ws, s in zip(sockets, suggestions, strict=True)
            ]
            await asyncio.sleep(random.uniform(0.01, 0.25))
            product.kill_9()
            return await asyncio.gather(*tasks)

        before = asyncio.run(confirm_all_then_kill())
        answered_before_kill += sum(r is not None for r in before)
        unanswered += sum(r is None for r in before)
        reported_success |= {
            s for s, r in zip(suggestions, before, strict=True) if r and r["success"]
        }
        time.sleep(RECOVERY_SECONDS)  # what a real restart takes anyway
        product.start()  # recover_executions runs first, as in `make run`

        async def retry_all(cookies=cookies, suggestions=suggestions):
            return await asyncio.gather(
                *(confirm(product.ws_url, c, s) for c, s in zip(cookies, suggestions, strict=True))
            )

        after = asyncio.run(retry_all())
        assert all(r is not None for r in after), f"round {round_number}: a retry got no answer"
        reported_success |= {s for s, r in zip(suggestions, after, strict=True) if r["success"]}

    executions = product.query(
        "SELECT s.suggestion_id, e.status, e.attempts, e.success FROM actions_execution e "
        "JOIN actions_suggestion s ON s.id = e.suggestion_id"
    )
    by_status = Counter(status for _, status, _, _ in executions)
    succeeded = {sid for sid, status, _, _ in executions if status == "succeeded"}
    sends = sms_log(tmp_path)
    keys_by_number: dict[str, set[str]] = {}
    for send in sends:
        keys_by_number.setdefault(send["to"], set()).add(send["idempotency_key"])
    resent = len(sends) - len({s["idempotency_key"] for s in sends})
    print(
        f"\n{ROUNDS} rounds x {CLIENTS} confirms, kill -9 each round "
        f"({time.monotonic() - started:.0f} s): executions {dict(by_status)}, "
        f"answered before the kill {answered_before_kill}, unanswered {unanswered}, "
        f"SMS sends {len(sends)} (re-sent with the same key after a crash: {resent}), "
        f"recovered (attempts > 1) {sum(a > 1 for _, _, a, _ in executions)}"
    )
    # No claim left unresolved after recovery.
    assert by_status.keys() <= {"succeeded", "failed"}, by_status
    # Every confirm that reported success has a succeeded execution.
    assert reported_success <= succeeded
    # No suggestion executed twice: one execution each (unique), one idempotency key per
    # destination (a re-send after a crash reuses its execution's key), one log row each.
    assert len(executions) == len({sid for sid, *_ in executions}) == ROUNDS * CLIENTS
    assert all(len(keys) == 1 for keys in keys_by_number.values()), keys_by_number
    sms_rows = product.query(
        "SELECT s.suggestion_id, count(m.id) FROM actions_suggestion s "
        "LEFT JOIN actions_smsmessage m ON m.suggestion_id = s.id GROUP BY s.suggestion_id"
    )
    assert {count for _, count in sms_rows} <= {0, 1}
    assert {sid for sid, count in sms_rows if count} == succeeded
