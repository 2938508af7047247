"""The turn pipeline without a socket: events in protocol order, audit on every outcome."""

import dataclasses
from collections.abc import AsyncIterator

import pytest

from chat import audit
from chat.composition import turn_services
from chat.context import ConversationContext
from chat.events import ActionSuggested, Response, StreamDelta, StreamEnd, ToPerson
from chat.llm import LLMBackend, LLMError, LLMRequest
from chat.models import Message
from chat.pipeline import Turn, TurnRecord

pytestmark = pytest.mark.usefixtures("indexed_kb")


class ScriptedBackend(LLMBackend):
    """Answers with fixed deltas, optionally failing after some of them."""

    name = "scripted"

    def __init__(self, deltas, fail_after: int | None = None):
        self.deltas, self.fail_after, self.closed = list(deltas), fail_after, False

    @property
    def model(self) -> str:
        return "scripted-1"

    async def stream(self, request: LLMRequest) -> AsyncIterator[str]:
        try:
            for i, delta in enumerate(self.deltas):
                if self.fail_after is not None and i == self.fail_after:
                    raise LLMError("stream cut")
                yield delta
            request.usage_tokens = len(self.deltas)
        finally:
            self.closed = True


def using(backend: LLMBackend):
    """The process's turn services with ``backend`` as the LLM."""
    return dataclasses.replace(turn_services(), backend=backend)


async def collect(turn: Turn) -> list:
    return [event async for event in turn.events()]


async def assistant_row(message_id: str) -> Message:
    from asgiref.sync import sync_to_async

    await audit.drain()
    return await sync_to_async(Message.objects.select_related("reply_to").get)(
        role=Message.Role.ASSISTANT, message_id=message_id
    )


async def test_grounded_answer_events_and_audit():
    """stream* -> stream_end(done) -> response; the audit row has draft, citations, timings."""
    backend = ScriptedBackend(["Premium ", "kostar ", "399 kr/månad", " [kb/pricing.md:18]", "."])
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id="t1",
        services=using(backend),
    )
    events = await collect(turn)
    assert isinstance(events[-1], Response) and events[-1].grounded
    assert isinstance(events[-2], StreamEnd) and events[-2].reason == "done"
    assert all(isinstance(e, StreamDelta) for e in events[:-2])
    assert "".join(e.delta for e in events[:-2]) == "Premium kostar 399 kr/månad."
    row = await assistant_row("t1")
    assert row.status == Message.Status.DONE and row.grounded is True
    assert row.draft == "Premium kostar 399 kr/månad [kb/pricing.md:18]."
    assert row.citations and row.citations[0]["file"] == "kb/pricing.md"
    assert row.retrieved and row.ttft_ms is not None and row.total_ms >= row.ttft_ms
    assert (row.backend, row.model, row.token_count) == ("scripted", "scripted-1", 5)
    assert row.reply_to.text == "Vad kostar premium?"


async def test_wrong_subject_is_withheld():
    """Premium's price attached to Basic is a wrong answer."""
    backend = ScriptedBackend(["Basic kostar ", "399 kr/månad [kb/pricing.md:18]."])
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar basic?",
        message_id="t2",
        services=using(backend),
    )
    events = await collect(turn)
    assert events[-1].grounded is False and events[-1].status == Message.Status.WITHHELD
    assert "399" not in "".join(e.delta for e in events if isinstance(e, StreamDelta))


async def test_unsupported_number_stops_the_stream_and_closes_the_backend():
    """After the first unsupported number nothing more is streamed and the LLM is closed."""
    backend = ScriptedBackend(
        ["Premium kostar ", "777 kr/månad [kb/pricing.md:18]. ", "Mer ", "text ", "här."]
    )
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id="t3",
        services=using(backend),
    )
    events = await collect(turn)
    streamed = "".join(e.delta for e in events if isinstance(e, StreamDelta))
    assert "777" not in streamed and "Mer" not in streamed
    assert backend.closed
    response = events[-1]
    assert response.text == "Jag kan inte verifiera det." and response.blocked
    row = await assistant_row("t3")
    assert row.status == Message.Status.WITHHELD
    assert row.unsupported and row.unsupported[0]["text"].startswith("777")
    assert row.draft.startswith("Premium kostar 777")


async def test_llm_failure_is_a_fail_closed_answer():
    """A backend error ends the turn with the localized fallback, recorded as error."""
    backend = ScriptedBackend(["Premium ", "kostar"], fail_after=1)
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id="t4",
        services=using(backend),
    )
    events = await collect(turn)
    assert isinstance(events[-2], StreamEnd) and events[-2].reason == "done"
    assert events[-1].status == Message.Status.ERROR and not events[-1].grounded
    assert events[-1].text == "Jag kan inte svara just nu. Försök igen om en stund."
    row = await assistant_row("t4")
    assert row.status == Message.Status.ERROR and "stream cut" in row.error


async def test_closing_the_turn_early_records_it_cancelled():
    """A turn closed mid-stream is recorded as cancelled with what was shown so far."""
    backend = ScriptedBackend(["Premium ", "kostar ", "399 kr/månad [kb/pricing.md:18]."])
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id="t5",
        services=using(backend),
    )
    events = turn.events()
    first = await anext(events)
    assert isinstance(first, StreamDelta)
    await events.aclose()
    assert backend.closed
    row = await assistant_row("t5")
    assert row.status == Message.Status.CANCELLED and row.text == first.delta


async def test_action_request_yields_prompt_then_suggestion():
    """A callback request: localized prompt without numbers, then the stored suggestion."""
    turn = Turn(
        context=ConversationContext(),
        text="Ring mig på 070-123 45 67",
        message_id="t6",
        services=turn_services(),
    )
    events = await collect(turn)
    assert isinstance(events[-1], ActionSuggested)
    assert events[-2].text == "Vill du att vi ringer upp dig? Bekräfta nedan."
    frame = events[-1].frame()
    assert frame["type"] == "action_suggestion" and frame["payload"]["phone"] == "070-123 45 67"


async def test_follow_up_reuses_the_previous_query():
    """'ja' after a pricing question retrieves the pricing context again."""
    context = ConversationContext()
    await collect(
        Turn(context=context, text="Vad kostar premium?", message_id="a", services=turn_services())
    )
    events = await collect(
        Turn(context=context, text="ja", message_id="b", services=turn_services())
    )
    assert events[-1].grounded is True
    assert any(c["file"] == "kb/pricing.md" for c in events[-1].citations)


class Collaborators:
    """Fakes for every collaborator of a turn but the index: what the turn asked of each."""

    def __init__(self, backend):
        self.records: list[TurnRecord] = []
        self.begun: list[TurnRecord] = []
        self.finished: list[tuple] = []
        self.suggested: list[dict] = []
        self.admitted = 0
        self.services = dataclasses.replace(
            turn_services(),
            backend=backend,
            admit=self.admit,
            record=self.records.append,
            begin=self.begin,
            suggest=self.suggest,
            turn_finished=lambda *args: self.finished.append(args),
        )

    async def admit(self):
        self.admitted += 1

    async def begin(self, record):
        self.begun.append(record)

    async def suggest(self, *, context, action, payload, message_id):
        self.suggested.append({"action": action, "payload": payload, "message_id": message_id})
        return {"type": "action_suggestion", "suggestionId": "action_fake", "action": action}


async def test_a_turn_uses_only_the_collaborators_it_is_given():
    """Admission, audit sink and metrics are the ones passed in; nothing reaches the database."""
    fakes = Collaborators(
        ScriptedBackend(["Premium ", "kostar ", "399 kr/månad [kb/pricing.md:18]."])
    )
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id="f1",
        services=fakes.services,
    )
    events = await collect(turn)
    assert events[-1].grounded is True
    assert fakes.admitted == 1
    assert [r.message_id for r in fakes.records] == ["f1"]
    assert fakes.begun == fakes.records  # begun before generation, completed after
    assert fakes.records[0].status == Message.Status.DONE
    assert [f[0] for f in fakes.finished] == [Message.Status.DONE]
    await audit.drain()
    assert await _assistant_rows() == 0


async def test_an_action_turn_asks_the_action_service_it_is_given():
    """A callback request goes to the injected action service, not the database."""
    fakes = Collaborators(ScriptedBackend([]))
    turn = Turn(
        context=ConversationContext(),
        text="Ring mig på 070-123 45 67",
        message_id="f2",
        services=fakes.services,
    )
    events = await collect(turn)
    assert events[-1].frame()["suggestionId"] == "action_fake"
    assert [(s["action"], s["payload"]["phone"], s["message_id"]) for s in fakes.suggested] == [
        ("schedule_callback", "070-123 45 67", "f2")
    ]
    assert fakes.admitted == 0  # an action turn starts no LLM stream
    assert fakes.records[0].suggestion_id == "action_fake"


async def test_a_message_whose_beginning_finds_a_person_is_theirs_alone():
    """The beginning says a person owns the conversation: ToPerson only, nothing recorded."""
    fakes = Collaborators(
        ScriptedBackend(["Premium ", "kostar ", "399 kr/månad [kb/pricing.md:18]."])
    )

    async def owned(record):
        record.person = "Eva"

    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id="f3",
        services=dataclasses.replace(fakes.services, begin=owned),
    )
    assert await collect(turn) == [ToPerson("f3", "Eva")]
    assert (fakes.admitted, fakes.records, fakes.finished) == (0, [], [])


async def _assistant_rows() -> int:
    from asgiref.sync import sync_to_async

    return await sync_to_async(Message.objects.filter(role=Message.Role.ASSISTANT).count)()


def _threaded_checks(monkeypatch) -> list:
    """Every check the turn hands to the verification pool: (the guard's method, the owner)."""
    from chat import pipeline

    threaded = []
    real = pipeline.run_check

    async def run_check(func, *args, owner, cancel):
        threaded.append((func.__name__, owner))
        assert cancel == func.__self__.cancel  # a closed turn can stop its running check
        return await real(func, *args, owner=owner, cancel=cancel)

    monkeypatch.setattr(pipeline, "run_check", run_check)
    return threaded


async def _premium_turn(services) -> Turn:
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id="t1",
        services=services,
    )
    events = await collect(turn)
    assert events[-1].grounded is True
    return turn


@pytest.mark.parametrize(("above", "hops"), [(10**9, 0), (0, 1)])
async def test_the_number_check_runs_in_a_thread_only_on_a_large_kb(monkeypatch, above, hops):
    """A KB of more facts than ``verify_in_thread_above``: the sentence with a number is checked
    in the verification pool's thread (issue 25 finding 5, issue 46); on a small KB in place
    (no hop per turn)."""
    threaded = _threaded_checks(monkeypatch)
    services = dataclasses.replace(
        using(ScriptedBackend(["Premium ", "kostar ", "399 kr/månad [kb/pricing.md:18]."])),
        verify_in_thread_above=above,
    )
    turn = await _premium_turn(services)
    assert len(threaded) == hops
    assert all(owner is turn.context for _, owner in threaded)  # bounded per connection


async def test_a_sentence_of_many_numbers_is_checked_in_a_thread_even_on_a_small_kb(monkeypatch):
    """Each number is weighed against its fact's whole group: a sentence of more than
    ``verify_in_thread_numbers`` numbers costs that many passes, so it leaves the event loop."""
    threaded = _threaded_checks(monkeypatch)
    sentence = ", ".join(["Premium kostar 399 kr/månad [kb/pricing.md:18]"] * 5) + "."
    services = dataclasses.replace(
        using(ScriptedBackend([sentence])), verify_in_thread_above=10**9, verify_in_thread_numbers=4
    )
    await _premium_turn(services)
    assert [name for name, _ in threaded] == ["finish"]


async def test_after_the_first_beginning_the_conversation_is_known_stored():
    """The first turn's beginning writes the conversation; the next turn's record says so, and
    its beginning (in the real audit trail) adds no conversation row."""
    context = ConversationContext()
    services = using(
        ScriptedBackend(["Premium ", "kostar ", "399 kr/månad", " [kb/pricing.md:18]", "."])
    )
    first = Turn(context=context, text="Vad kostar premium?", message_id="s1", services=services)
    assert not first.record.conversation_stored
    await collect(first)
    assert context.stored
    second = Turn(context=context, text="Vad kostar premium?", message_id="s2", services=services)
    assert second.record.conversation_stored
    await collect(second)
    assert (await assistant_row("s2")).status == Message.Status.DONE


async def test_a_beginning_that_was_not_written_leaves_the_conversation_unknown():
    context = ConversationContext()

    async def away(record: TurnRecord) -> None:  # the database is away: no answer row yet
        return None

    services = dataclasses.replace(
        using(ScriptedBackend(["Premium ", "kostar ", "399 kr/månad", " [kb/pricing.md:18]", "."])),
        begin=away,
    )
    await collect(
        Turn(context=context, text="Vad kostar premium?", message_id="u1", services=services)
    )
    assert not context.stored


@pytest.mark.parametrize(
    "char", ["\u202e", "\u202d", "\u2067", "\u2066", "\u200f", "\u200e", "\u200b", "\u2060"]
)
async def test_a_bidi_or_invisible_character_in_the_model_output_never_reaches_the_customer(char):
    """An override around a verified number (U+202E 399 U+202C reads "993" in a browser) is
    removed before the guard reads the text: the frames, the answer and the draft have none."""
    backend = ScriptedBackend(
        ["Premium kostar ", f"{char}399\u202c", f" kr/må{char}nad [kb/pricing.md:18]."]
    )
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id=f"bidi-{ord(char):x}",
        services=using(backend),
    )
    events = await collect(turn)
    frames = "".join(e.delta for e in events if isinstance(e, StreamDelta))
    assert frames == "Premium kostar 399 kr/månad."
    assert events[-1].grounded and events[-1].text == "Premium kostar 399 kr/månad."
    row = await assistant_row(f"bidi-{ord(char):x}")
    assert row.text == "Premium kostar 399 kr/månad."
    assert row.draft == "Premium kostar 399 kr/månad [kb/pricing.md:18]."


async def test_a_turn_closed_while_its_check_waits_for_the_pool_never_runs_it(monkeypatch):
    """Big KB, busy pool: the customer goes away (the turn's task is cancelled) while its
    sentence waits for a worker; the check never runs and the turn is recorded cancelled."""
    import asyncio
    import threading

    from chat import verify_pool

    pool = verify_pool.VerifyPool(1)
    monkeypatch.setattr(verify_pool, "_pool", pool)
    release = threading.Event()
    busy = asyncio.create_task(pool.run(release.wait, 30, owner=object()))
    checked = []

    from grounding.guard import GuardedStream

    real = GuardedStream.feed

    def feed(self, delta):
        if threading.current_thread().name.startswith("verify-"):
            checked.append(delta)
        return real(self, delta)

    monkeypatch.setattr(GuardedStream, "feed", feed)
    services = dataclasses.replace(
        using(ScriptedBackend(["Premium ", "kostar ", "399 kr/månad."])), verify_in_thread_above=0
    )
    turn = Turn(
        context=ConversationContext(),
        text="Vad kostar premium?",
        message_id="gone",
        services=services,
    )
    task = asyncio.create_task(collect(turn))
    for _ in range(200):  # until the turn waits on the pool (its first sentence is queued)
        await asyncio.sleep(0.01)
        if pool._queue.qsize():
            break
    assert pool._queue.qsize() == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    release.set()
    await busy
    await pool.run(lambda: None, owner=object())  # the queue behind it has drained
    assert checked == []
    assert turn.record.status == Message.Status.CANCELLED
