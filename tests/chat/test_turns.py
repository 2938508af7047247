"""The turn runner without a socket: one turn at a time, cancel, stop, interrupt."""

import asyncio
import uuid
from types import SimpleNamespace

from chat.events import Response, StreamDelta, StreamEnd, ToPerson
from chat.turns import TurnRunner


class ScriptedTurn:
    """A turn that streams ``deltas`` (one per ``step`` seconds), then ends and answers."""

    def __init__(self, message_id: str, deltas=("a", "b", "c"), step=0.0, fail=False):
        self.message_id = message_id
        self.context = SimpleNamespace(id=uuid.uuid4())
        self.deltas, self.step, self.fail = deltas, step, fail
        self.interrupted = False
        self.closed = False
        self.answered = asyncio.Event()  # set once past stream_end
        self.release = asyncio.Event()  # the response waits for this
        self.release.set()

    async def events(self):
        try:
            for delta in self.deltas:
                await asyncio.sleep(self.step)
                yield StreamDelta(delta, self.message_id)
            if self.fail:
                raise RuntimeError("broken turn")
            yield StreamEnd("done", self.message_id)
            self.answered.set()
            await self.release.wait()
            yield Response("abc", self.message_id, True, "done")
        finally:
            self.closed = True


class Client:
    def __init__(self):
        self.frames: list[dict] = []
        self.first = asyncio.Event()  # set once a frame went out

    async def send(self, frame: dict) -> None:
        self.frames.append(frame)
        self.first.set()

    def kinds(self, message_id=None) -> list[str]:
        return [
            f["type"] for f in self.frames if message_id is None or f.get("messageId") == message_id
        ]


async def streaming() -> tuple[Client, TurnRunner, ScriptedTurn]:
    """A runner whose turn "m1" has sent its first frame and streams on (50 deltas, 10 ms apart)."""
    client = Client()
    runner = TurnRunner(client.send)
    turn = ScriptedTurn("m1", deltas=["a"] * 50, step=0.01)
    await runner.start(turn)
    await client.first.wait()
    return client, runner, turn


async def test_a_turn_runs_to_its_response():
    """stream*, stream_end{done}, response: the turn's frames, in order."""
    client = Client()
    runner = TurnRunner(client.send)
    await runner.start(ScriptedTurn("m1"))
    await runner.task
    assert client.kinds() == ["stream", "stream", "stream", "stream_end", "response"]
    assert runner.streaming_id is None and not runner.running


async def test_cancel_mid_stream_ends_the_stream_once_and_closes_the_turn():
    """Cancel: stream_end{cancelled}, no response; a second cancel says nothing."""
    client, runner, turn = await streaming()
    await runner.cancel()
    await runner.cancel()
    assert client.frames[-1] == {"type": "stream_end", "reason": "cancelled", "messageId": "m1"}
    assert client.kinds().count("stream_end") == 1 and "response" not in client.kinds()
    assert turn.closed and not runner.running


async def test_cancel_when_idle_sends_nothing():
    client = Client()
    runner = TurnRunner(client.send)
    await runner.cancel()
    await runner.stop()
    assert client.frames == []


async def test_cancel_after_stream_end_lets_the_response_arrive():
    """Past stream_end the turn is finishing: cancel waits for its response, in order."""
    client = Client()
    runner = TurnRunner(client.send)
    turn = ScriptedTurn("m1")
    turn.release.clear()
    await runner.start(turn)
    await turn.answered.wait()
    cancelling = asyncio.create_task(runner.cancel())
    await asyncio.sleep(0.01)
    turn.release.set()
    await cancelling
    assert client.kinds()[-2:] == ["stream_end", "response"]
    assert client.frames[-2]["reason"] == "done"


async def test_a_new_turn_cancels_the_streaming_one_first():
    """The old stream's stream_end{cancelled} goes out before the new turn's first frame."""
    client, runner, _ = await streaming()
    await runner.start(ScriptedTurn("m2"))
    await runner.task
    first_m2 = next(i for i, f in enumerate(client.frames) if f["messageId"] == "m2")
    assert client.frames[first_m2 - 1] == {
        "type": "stream_end",
        "reason": "cancelled",
        "messageId": "m1",
    }
    assert client.kinds("m1").count("response") == 0
    assert client.kinds("m2")[-1] == "response"


async def test_stop_ends_the_turn_without_a_frame():
    """The client went away: the turn is closed and nobody is written to."""
    client, runner, turn = await streaming()
    sent = len(client.frames)
    await runner.stop()
    assert len(client.frames) == sent and turn.closed and not runner.running


async def test_interrupt_marks_the_turn_and_closes_its_stream():
    """Shutdown: the turn knows it was interrupted; the client gets stream_end{interrupted}."""
    client, runner, turn = await streaming()
    await runner.interrupt()
    assert turn.interrupted and turn.closed
    assert client.frames[-1] == {"type": "stream_end", "reason": "interrupted", "messageId": "m1"}


async def test_a_detached_turn_goes_on_and_its_frames_go_to_the_new_send():
    """detach: the turn is not stopped; every frame after it goes to the new ``send``."""
    client, runner, turn = await streaming()
    elsewhere = Client()
    runner.detach(elsewhere.send)
    await runner.task
    assert not turn.interrupted and elsewhere.kinds()[-2:] == ["stream_end", "response"]
    assert "stream_end" not in client.kinds()


async def test_attach_replays_the_question_the_text_so_far_and_the_frames_after_it():
    """attach: the new connection gets the question, one stream_sync with every delta sent so
    far (to whichever send), then the turn's later frames; then the turn's own frames."""
    _client, runner, turn = await streaming()
    turn.question = "Vad kostar premium?"
    runner.detach(Client().send)
    await asyncio.sleep(0.05)
    adopter = Client()
    replay = runner.attach(adopter.send)
    assert replay[0] == {"type": "user_message", "messageId": "m1", "text": "Vad kostar premium?"}
    sync = replay[1]
    assert sync["type"] == "stream_sync" and sync["adopted"] is True
    assert sync["text"] == "a" * len(sync["text"]) and len(sync["text"]) >= 2
    await runner.task
    streamed = "".join(f["delta"] for f in adopter.frames if f["type"] == "stream")
    assert sync["text"] + streamed == "a" * 50
    assert adopter.kinds()[-2:] == ["stream_end", "response"]
    assert [f["type"] for f in runner.replay()][-2:] == ["stream_end", "response"]


async def test_a_failing_turn_closes_its_stream_and_reports_an_error():
    """An exception in the turn: stream_end{done}, then internal_error; the runner goes on."""
    client = Client()
    runner = TurnRunner(client.send)
    await runner.start(ScriptedTurn("m1", fail=True))
    await runner.task
    assert client.frames[-2] == {"type": "stream_end", "reason": "done", "messageId": "m1"}
    assert client.frames[-1]["code"] == "internal_error"
    await runner.start(ScriptedTurn("m2"))
    await runner.task
    assert client.kinds("m2")[-1] == "response"


async def test_a_turn_that_finds_a_person_delivers_the_message_then_names_them():
    """ToPerson: handoff_delivered goes out, then on_person hears the name; nothing streams."""
    client, people = Client(), []

    async def on_person(name: str) -> None:
        people.append((name, len(client.frames)))

    class HandedOver(ScriptedTurn):
        async def events(self):
            yield ToPerson(self.message_id, "Eva")

    runner = TurnRunner(client.send, on_person=on_person)
    await runner.start(HandedOver("m1"))
    await runner.task
    assert client.frames == [{"type": "handoff_delivered", "messageId": "m1"}]
    assert people == [("Eva", 1)]
    assert runner.streaming_id is None
