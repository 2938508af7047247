"""What one repair round trip costs a turn: time to the end of the answer, and prompt tokens.

    make python ARGS="-m bench.repair_cost"                 # 20 turns of each kind, 20 ms a delta
    make python ARGS="-m bench.repair_cost --runs 5 --delay 0"

Runs ``chat.pipeline.Turn`` in this process with the real OpenAI-compatible backend against
the fake provider of the tests (``tests/fake_openai.py``, loopback), on the shipped ``kb/``
indexed in memory (no database, no socket). Three kinds of turn, ``--runs`` each, every
provider reply streamed word by word with ``--delay`` seconds before each word (a hosted
model streams some 30 to 100 tokens a second):

- ``right``: a right cited answer, shown (no repair);
- ``repaired``: a wrong first answer, withheld at its number, then the right one from the
  repair round trip;
- ``wrong twice``: wrong again in the repair, withheld.

Prints the median and the 90th percentile of the time to the ``Response`` event, the extra
time of the repaired turn over the right one, and the prompt tokens (``estimate_messages_tokens``)
of the turn's request and of its repair request, as the provider received them. ``--prompts``
adds the same estimate for the repair request of each of the 200 model prompts
(``tests/grounding/model``), as if every one of those answers were withheld.
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "Vad kostar Premium per månad?"
TAIL = " Priset gäller per månad och är inklusive moms."
RIGHT = "Premium kostar 399 kr/månad [kb/pricing.md:18]." + TAIL
WRONG = "Premium kostar 499 kr/månad [kb/pricing.md:18]." + TAIL
KINDS = {"right": (RIGHT,), "repaired": (WRONG, RIGHT), "wrong twice": (WRONG, WRONG)}


def _setup() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


async def _turn(index, backend, number: int):
    """One turn; its events and the seconds to its ``Response``."""
    from chat.context import ConversationContext
    from chat.events import Response
    from chat.pipeline import Turn, TurnServices

    async def nothing(*args, **kwargs):
        return None

    async def current_index():
        return index

    services = TurnServices(
        backend=backend,
        current_index=current_index,
        admit=nothing,
        record=lambda record: None,
        suggest=nothing,
        turn_finished=lambda *args: None,
    )
    turn = Turn(
        context=ConversationContext(),
        text=QUESTION,
        message_id=f"b{number}",
        services=services,
    )
    started = time.perf_counter()
    events = [event async for event in turn.events()]
    assert isinstance(events[-1], Response)
    return events[-1], time.perf_counter() - started, turn.record


async def measure(runs: int, delay: float) -> dict:
    from django.conf import settings

    from bench.model_answers import _index
    from chat.llm.openai import OpenAIBackend
    from chat.llm.prompt import estimate_messages_tokens
    from tests.fake_openai import FakeOpenAI, Reply

    index = _index(settings.KB_DIR)
    figures: dict = {"runs": runs, "delay_s": delay, "kinds": {}}
    async with FakeOpenAI() as server:
        backend = OpenAIBackend(base_url=server.base_url, model="fake-model", max_retries=0)
        for kind, texts in KINDS.items():
            times, statuses, tokens = [], set(), []
            for number in range(runs):
                before = len(server.requests)
                server.enqueue(*(Reply.from_text(text, delay=delay) for text in texts))
                response, seconds, record = await _turn(index, backend, number)
                times.append(seconds * 1000)
                statuses.add(response.status)
                tokens.append(
                    [estimate_messages_tokens(r.body["messages"]) for r in server.requests[before:]]
                )
                assert "499" not in record.shown, record.shown
            times.sort()
            figures["kinds"][kind] = {
                "status": sorted(statuses),
                "median_ms": round(statistics.median(times), 1),
                "p90_ms": round(times[int(0.9 * (len(times) - 1))], 1),
                "prompt_tokens": tokens[0],
            }
        await backend.aclose()
    kinds = figures["kinds"]
    figures["extra_ms"] = round(kinds["repaired"]["median_ms"] - kinds["right"]["median_ms"], 1)
    return figures


def prompt_estimates() -> dict:
    """The repair request's estimated tokens for each of the 200 model prompts and answers."""
    from bench.model_answers import KBS, _index, _rows, cited_request
    from chat.llm.prompt import build_repair_messages, estimate_messages_tokens

    model = ROOT / "tests" / "grounding" / "model"
    answers = {r["id"]: r["answer"] for r in _rows(model / "answers.jsonl")}
    first, repair = [], []
    indexes: dict = {}
    for record in _rows(model / "prompts.jsonl"):
        index = indexes.setdefault(record["kb"], _index(KBS / record["kb"]))
        messages = build_repair_messages(
            cited_request(index, record["question"]),
            draft=answers[record["id"]],
            reason='"399 kr/månad" (amount): not stated by the cited line',
            shown="Premium kostar ",
            token_budget=6000,
        )
        first.append(estimate_messages_tokens(record["messages"]))
        repair.append(estimate_messages_tokens(messages))
    return {
        "prompts": len(first),
        "first_median": statistics.median(first),
        "repair_median": statistics.median(repair),
        "extra_median": statistics.median(r - f for f, r in zip(first, repair, strict=True)),
        "repair_max": max(repair),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--prompts", action="store_true")
    args = parser.parse_args()
    _setup()
    import logging

    logging.disable(logging.WARNING)
    figures = asyncio.run(measure(max(1, min(args.runs, 200)), max(0.0, args.delay)))
    if args.prompts:
        figures["model_prompts"] = prompt_estimates()
    print(json.dumps(figures, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
