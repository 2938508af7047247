"""The product's token schedule, replayed by the floors.

The orchestrator records one product turn (its ``stream`` deltas and its
``response``) and hands it to each floor in ``BENCH_FRAMES`` /
``BENCH_RESPONSE``, with the delay in ``BENCH_TOKEN_DELAY_MS``. A floor then
sends each delta when its last token falls due on the mock's clock
(``chat.llm.mock.paced``: token ``i`` is due ``i + 1`` delays after the
start, however busy the loop is), so a delta the number guard held back
("399 kr/månad.") goes out when all its tokens are due. Unlike the product,
a floor never joins deltas that fell due together: it sends them one frame
each, as a bare consumer does.
"""

import asyncio
import json
import os
import re
from dataclasses import dataclass

# The mock LLM's tokens (chat.llm.mock._TOKEN): a word with its trailing space.
_TOKEN = re.compile(r"\S+\s*|\s+")


def token_count(delta: str) -> int:
    """How many mock tokens (so how many token delays) a streamed delta carries."""
    return max(1, len(_TOKEN.findall(delta)))


@dataclass(frozen=True)
class Schedule:
    deltas: tuple[str, ...]
    response: dict
    delay: float  # seconds between tokens

    @classmethod
    def from_env(cls) -> "Schedule":
        return cls(
            deltas=tuple(json.loads(os.environ["BENCH_FRAMES"])),
            response=json.loads(os.environ["BENCH_RESPONSE"]),
            delay=float(os.environ.get("BENCH_TOKEN_DELAY_MS", "0")) / 1000,
        )

    def frames(self, message_id: str):
        """The turn's frames, each after its token delays: an async iterator of dicts."""
        return _frames(self, message_id)


async def _frames(schedule: Schedule, message_id: str):
    loop = asyncio.get_running_loop()
    due = loop.time()
    for delta in schedule.deltas:
        if schedule.delay:
            due += schedule.delay * token_count(delta)
            await asyncio.sleep(max(0.0, due - loop.time()))
        else:
            for _ in range(token_count(delta)):
                await asyncio.sleep(0)  # yields to the loop, like the mock with no delay
        yield {"type": "stream", "delta": delta, "messageId": message_id}
    yield {"type": "stream_end", "reason": "done", "messageId": message_id}
    yield {**schedule.response, "messageId": message_id}
