"""Cited answers over the WebSocket: an OpenAI-compatible provider that cites its numbers.

The acceptance of issue 41 as the customer meets it: a right number cited to its line
streams without its reference and the response maps it to that line; a wrong value, a
sibling's line, no reference, a line that does not state the number and a wrong number in
words are withheld and never streamed; a chunk marker "[1]" beside a reference is no number.

These need the guard that reads references (the lead's half of issue 41). Each test first
asks a probe question with a right cited answer, and skips when the guard on this tree does
not strip its reference: on the generator's branch alone they skip, after the merge they run.
"""

import json
import re

import pytest

from tests.chat.conftest import open_socket, run_turn
from tests.fake_openai import Reply

pytestmark = pytest.mark.usefixtures("indexed_kb")

QUESTION = "Vad kostar Premium per månad?"
RIGHT = "Premium kostar 399 kr/månad [kb/pricing.md:18]."
SHOWN = "Premium kostar 399 kr/månad."
REFERENCE = re.compile(r"\[[^\[\]\s]+:\d+\]|\[Q\]|\[F:[0-9a-f]{8}\]")


def streamed(frames: list[dict]) -> str:
    return "".join(f["delta"] for f in frames if f["type"] == "stream")


async def citing_socket(provider):
    """A socket whose first, cited right answer was grounded and showed no reference."""
    provider.enqueue(Reply.from_text(RIGHT))
    ws = await open_socket()
    frames = await run_turn(ws, QUESTION, message_id="probe")
    assert not REFERENCE.search(json.dumps(frames, ensure_ascii=False)), frames
    assert frames[-1]["grounded"], frames[-1]
    return ws, frames


async def test_a_cited_right_number_streams_without_its_reference_and_maps_to_its_line(
    provider,
):
    """The customer reads "399 kr/månad", and the response says it is kb/pricing.md line 18."""
    ws, frames = await citing_socket(provider)
    response = frames[-1]

    assert response["text"] == SHOWN and streamed(frames) == SHOWN
    [number] = response["numbers"]
    assert SHOWN[number["start"] : number["end"]] == number["text"]
    assert number["text"].startswith("399 kr")  # with or without its period: the guard's span
    assert (number["file"], number["line"]) == ("kb/pricing.md", 18)
    assert number["title"] == "Priser och abonnemang"
    assert re.fullmatch(r"(?:F:)?[0-9a-f]{8}", number["fact"])  # the fact's own id
    await ws.disconnect()


@pytest.mark.parametrize(
    ("answer", "never"),
    [
        ("Premium kostar 499 kr/månad [kb/pricing.md:18].", "499"),  # a wrong value
        ("Premium kostar 199 kr/månad [kb/pricing.md:17].", "199"),  # a sibling's line
        ("Premium kostar 199 kr/månad [kb/pricing.md:18].", "199"),  # a sibling's value
        ("Premium kostar 399 kr/månad.", "399"),  # no reference
        ("Premium kostar 399 kr/månad [kb/pricing.md:16].", "399"),  # a line without it
        ("Premium ger fyra TB [kb/pricing.md:25] lagring.", "fyra"),  # a wrong number in words
    ],
    ids=["wrong-value", "sibling-line", "sibling-value", "no-reference", "other-line", "words"],
)
async def test_a_wrong_cited_number_is_withheld_and_never_streamed(provider, answer, never):
    """Each mistake, made again in the repair round trip, is withheld: neither the stream nor
    the final text shows the number or a reference (the citations under a refusal quote the
    KB, as before)."""
    ws, _ = await citing_socket(provider)
    provider.enqueue(Reply.from_text(answer), Reply.from_text(answer))

    frames = await run_turn(ws, QUESTION, message_id="m2")

    assert frames[-1]["grounded"] is False and frames[-1]["status"] == "withheld"
    shown = streamed(frames) + frames[-1]["text"]
    assert never not in shown and not REFERENCE.search(shown)
    assert not frames[-1].get("numbers")
    assert len(provider.requests) == 3  # the probe, the answer and its one repair
    await ws.disconnect()


async def test_a_chunk_marker_beside_a_reference_is_no_number(provider):
    """ "[1]" is how many models cite a chunk: beside the line's reference it is not a claim."""
    ws, _ = await citing_socket(provider)
    provider.enqueue(Reply.from_text("Premium kostar 399 kr/månad [kb/pricing.md:18] [1]."))

    frames = await run_turn(ws, QUESTION, message_id="m2")

    assert frames[-1]["grounded"] is True
    assert [n["line"] for n in frames[-1]["numbers"]] == [18]
    assert "kb/pricing.md" not in streamed(frames)
    await ws.disconnect()
