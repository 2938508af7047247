"""Ask the running product one question over its WebSocket and print every frame it sends.

``make ask Q="Vad kostar premium?"`` (against ``make run``'s address; ``PORT=`` and ``HOST=``
as for ``make run``). Ends at the answer's ``response`` frame, or with exit status 1 when none
comes within the time limit. The protocol is docs/protocol.md.
"""

import argparse
import asyncio
import json
import sys

from websockets.asyncio.client import connect

MAX_QUESTION_CHARS = 2000  # the protocol's bound on ``message.text``


async def ask(url: str, question: str, *, seconds: float, out=sys.stdout) -> dict | None:
    """Send ``question`` as a ``message``; print each frame; return the ``response`` frame."""
    async with connect(url, open_timeout=seconds) as ws:
        await ws.send(json.dumps({"type": "message", "id": "m1", "text": question}))
        async with asyncio.timeout(seconds):
            async for raw in ws:
                frame = json.loads(raw)
                print(json.dumps(frame, ensure_ascii=False), file=out, flush=True)
                if frame.get("type") == "response":
                    return frame
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question")
    parser.add_argument("--url", default="ws://127.0.0.1:8787/ws/chat/")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds (default 60)")
    options = parser.parse_args(argv)
    if not 1 <= len(options.question.strip()) <= MAX_QUESTION_CHARS:
        parser.error(f"the question must be 1 to {MAX_QUESTION_CHARS} characters")
    try:
        response = asyncio.run(ask(options.url, options.question, seconds=options.timeout))
    except (OSError, TimeoutError) as error:
        print(f"no answer from {options.url}: {error or 'timed out'}", file=sys.stderr)
        return 1
    return 0 if response is not None else 1


if __name__ == "__main__":
    sys.exit(main())
