"""The mock LLM's clock: tokens on a fixed schedule, joined when the loop falls behind."""

import asyncio
import time

import pytest

from chat.llm.mock import paced

TOKENS = ["Premium ", "kostar ", "399 ", "kr ", "per ", "månad."]


async def chunks_with_times(tokens, delays, *, stall_after: int | None = None, stall=0.0):
    loop = asyncio.get_running_loop()
    start = loop.time()
    out = []
    async for chunk in paced(tokens, delays):
        out.append((chunk, loop.time() - start))
        if stall_after is not None and len(out) == stall_after:
            time.sleep(stall)  # the loop is busy elsewhere: nothing runs meanwhile
    return out


async def test_an_idle_loop_gets_one_token_per_chunk_on_schedule():
    """With nothing else to do, every token is its own chunk, each at its due time."""
    out = await chunks_with_times(TOKENS, [0.02] * len(TOKENS))
    assert [chunk for chunk, _ in out] == TOKENS
    for number, (_, at) in enumerate(out, start=1):
        assert at >= 0.02 * number - 0.002


async def test_tokens_due_during_a_stall_come_out_as_one_chunk():
    """A stall of 2.5 delays after the first token: the next chunk holds the 2 tokens due."""
    out = await chunks_with_times(TOKENS, [0.04] * len(TOKENS), stall_after=1, stall=0.1)
    chunks = [chunk for chunk, _ in out]
    assert "".join(chunks) == "".join(TOKENS)
    # Whole tokens only, and the chunk after the stall holds at least the 2 that fell due
    # (a busy machine may join more; the clock is the wall's).
    boundaries = {len("".join(TOKENS[:n])) for n in range(len(TOKENS) + 1)}
    ends = [len("".join(chunks[: n + 1])) for n in range(len(chunks))]
    assert set(ends) <= boundaries
    first = sum(1 for n in range(1, len(TOKENS) + 1) if len("".join(TOKENS[:n])) <= ends[0])
    second = sum(1 for n in range(1, len(TOKENS) + 1) if len("".join(TOKENS[:n])) <= ends[1])
    assert second - first >= 2
    assert len(chunks) < len(TOKENS)


async def test_a_stall_does_not_push_the_rest_of_the_answer_later():
    """The schedule is absolute: after a stall the last token is still due at the sum of delays."""
    delays = [0.04] * len(TOKENS)
    out = await chunks_with_times(TOKENS, delays, stall_after=1, stall=0.1)
    last_at = out[-1][1]
    assert sum(delays) - 0.002 <= last_at < sum(delays) + 0.03


async def test_cancelling_between_chunks_stops_the_stream():
    """A cancel lands while the stream waits for the next token."""
    received = []

    async def consume():
        async for chunk in paced(TOKENS, [0.05] * len(TOKENS)):
            received.append(chunk)

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.075)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert received == TOKENS[:1]
