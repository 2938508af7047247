"""One chat turn: retrieve, generate, verify, persist.

A plain async pipeline, testable without a socket: ``Turn.events()`` yields
the events of SPEC section 4 in order (``StreamDelta``*, ``StreamEnd``,
``Response``, then ``ActionSuggested`` when the message asked for an action),
or only ``ToPerson`` when the turn's first write finds that a person owns the
conversation (the message is theirs; nothing of the turn is recorded).
When the guard withholds an answer and the backend ``can_repair``, the turn
asks once more (``_repaired``, docs/prompt.md): the repaired answer streams on
after what was already shown, or the answer is withheld as before.
Closing the generator early (cancel, disconnect) records the turn as
cancelled. Nothing here touches the database on the token path: retrieval
and verification run in memory, the audit row is written after the turn.

A turn reaches the world only through its ``TurnServices`` (the LLM backend,
the KB index, the admission gate, the audit sink, the action service, the
metrics), which ``chat.composition`` builds from the settings; a test passes
fakes for any of them.
"""

import dataclasses
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field

from actions.triggers import CREATE_TICKET, detect_action, ticket_subject
from chat import texts
from chat.citations import with_titles
from chat.context import ConversationContext
from chat.events import ActionSuggested, Event, Response, StreamDelta, StreamEnd, ToPerson
from chat.followups import is_elliptical, retrieval_query
from chat.llm import LLMBackend, LLMError, LLMRequest
from chat.models import Message
from chat.verify_pool import run_check
from grounding.answer_check import unsupported_with_locations
from grounding.guard import ContinuedStream, GuardedStream
from grounding.index import KBIndex
from grounding.retrieval import RetrievalResult, is_follow_up, retrieve
from grounding.text import marked_language, remove_invisible

logger = logging.getLogger(__name__)
Status = Message.Status
_WORDS = re.compile(r"\S+\s*")


@dataclass
class TurnRecord:
    """Everything the audit trail keeps about one turn."""

    conversation_id: object
    session_key: str
    message_id: str
    question: str
    language: str
    status: str | None = None
    draft: str = ""  # what the LLM produced
    repaired: bool = False  # the guard withheld the draft and the backend was asked once more
    repair_draft: str = ""  # what the repair round trip produced
    shown: str = ""  # what the client was sent (stream), then the final text
    text: str = ""
    grounded: bool | None = None
    block_reason: str = ""
    unsupported: list[dict] = field(default_factory=list)
    citations: list[dict] = field(default_factory=list)
    numbers: list[dict] = field(default_factory=list)  # where each number of the answer is from
    retrieved: list[dict] = field(default_factory=list)
    error: str = ""
    ttft_ms: float | None = None
    total_ms: float | None = None
    token_count: int | None = None
    backend: str = ""
    model: str = ""
    suggestion_id: str = ""
    answer_pk: int | None = None  # the answer's row, once the audit trail wrote the question
    conversation_stored: bool = False  # the conversation's row exists: the beginning skips it
    person: str | None = None  # set by the beginning when a person owns the conversation


async def _nothing_to_begin(record: "TurnRecord") -> None:
    """A turn without a durable beginning (tests that only look at the events)."""


@dataclass(frozen=True, slots=True)
class TurnServices:
    """What a turn needs from outside itself; ``chat.composition`` builds the real ones."""

    backend: LLMBackend
    # The current KB index (reloaded when a reindex committed).
    current_index: Callable[[], Awaitable[KBIndex]]
    # Returns when this turn may do its start-up work (``chat.admission``).
    admit: Callable[[], Awaitable[None]]
    # Keeps a finished turn's record (the audit trail), without waiting.
    record: Callable[["TurnRecord"], None]
    # Stores an action suggestion: (context=, action=, payload=, message_id=) -> its frame.
    suggest: Callable[..., Awaitable[dict]]
    # Counts a finished turn: (status, ttft_ms, total_ms).
    turn_finished: Callable[[str, float | None, float | None], None]
    # Commits the question (an answer row in progress) before generation starts, or
    # hands the message to the person who owns the conversation (sets ``record.person``).
    begin: Callable[["TurnRecord"], Awaitable[None]] = _nothing_to_begin
    # With more facts than this in the KB, a sentence's number check runs in a worker thread
    # (``VERIFY_IN_THREAD_FACTS``); below it a check costs well under a millisecond on the loop.
    verify_in_thread_above: int = 1000
    verify_in_thread_numbers: int = 4


class Turn:
    def __init__(
        self,
        *,
        context: ConversationContext,
        text: str,
        message_id: str,
        services: TurnServices,
        page_language: str = "",
    ) -> None:
        self.context = context
        self.question = text
        self.message_id = message_id
        self.services = services
        self.backend = services.backend
        # The question's own language; a follow-up, or words that do not say (a button's
        # "Create a ticket"), take the page's, else the conversation's.
        said = None if is_follow_up(text) else marked_language(text)
        self.language = said or page_language or context.language
        context.language = self.language
        self.record = TurnRecord(
            conversation_id=context.id,
            session_key=context.session_key,
            message_id=message_id,
            question=text,
            language=self.language,
            conversation_stored=context.stored,
        )
        self._started = time.perf_counter()
        self.interrupted = False  # set when the server stops the turn on shutdown
        self._repair_accepted = False

    async def events(self) -> AsyncIterator[Event]:
        """The turn's events, in protocol order; the question is committed before the first,
        the turn's record completed when it ends."""
        try:
            await self.services.begin(self.record)
            if self.record.answer_pk is not None:
                self.context.stored = True
            if self.record.person is not None:
                yield ToPerson(self.message_id, self.record.person)
                return
            trigger = detect_action(self.question)
            steps = self._action_turn(trigger) if trigger else self._answer_turn()
            # aclosing: an early close reaches the LLM stream at once, not at GC time.
            async with aclosing(steps):
                async for event in steps:
                    yield event
        finally:
            if self.record.person is None:
                self._end()

    def _end(self) -> None:
        """Count the turn and keep its record, however it ended."""
        if self.record.status is None:
            # Closed before the end: the client cancelled or went away, or
            # the server is shutting down.
            self.record.status = Status.INTERRUPTED if self.interrupted else Status.CANCELLED
            self.record.text = self.record.shown
        self.record.total_ms = self._elapsed_ms()
        self.services.turn_finished(self.record.status, self.record.ttft_ms, self.record.total_ms)
        self.services.record(self.record)

    # -- the two kinds of turn -------------------------------------------------

    async def _action_turn(self, trigger) -> AsyncIterator[Event]:
        prompt = texts.localized(texts.ACTION_PROMPTS[trigger.action], self.language)
        payload = dict(trigger.payload)
        if trigger.action == CREATE_TICKET:
            payload["subject"] = ticket_subject(self.question, unanswered=self.context.unanswered)
        for word in _WORDS.findall(prompt):
            yield self._delta(word)
        yield StreamEnd("done", self.message_id)
        yield self._finish(Response(prompt, self.message_id, False, Status.ACTION))
        suggestion = await self.services.suggest(
            context=self.context,
            action=trigger.action,
            payload=payload,
            message_id=self.message_id,
        )
        self.record.suggestion_id = suggestion["suggestionId"]
        yield ActionSuggested(suggestion)

    async def _answer_turn(self) -> AsyncIterator[Event]:
        await self.services.admit()
        index = await self.services.current_index()
        previous = self.context.previous_query
        result = retrieve(index, retrieval_query(self.question, previous), previous_query=previous)
        self.record.retrieved = [_snippet_audit(s) for s in result.snippets]
        if not result.snippets:
            self.context.unanswered = self.question
            text = texts.localized(texts.NO_SUPPORT, self.language)
            yield self._delta(text)
            yield StreamEnd("done", self.message_id)
            yield self._finish(Response(text, self.message_id, False, Status.NO_SUPPORT))
            return

        context = result.context  # the snippets and the fact cards
        guard = GuardedStream(context, facts=index.facts, question=self.question)
        # A check's cost grows with the KB's like facts; on a small KB a thread hop would
        # cost more than the check.
        offload = len(index.facts) > self.services.verify_in_thread_above

        request = LLMRequest(
            question=self.question,
            snippets=context,
            cite=True,
            language=self.language,
            history=tuple(self.context.history),
        )
        self.record.backend, self.record.model = self.backend.name, self.backend.model
        try:
            async with aclosing(self._guarded(self.backend.stream(request), guard, offload)) as out:
                async for released in out:
                    yield self._delta(released)
        except LLMError as exc:
            logger.warning("LLM failed for turn %s: %s", self.message_id, exc)
            self.record.error = str(exc)
            text = texts.localized(texts.LLM_UNAVAILABLE, self.language)
            yield StreamEnd("done", self.message_id)
            yield self._finish(Response(text, self.message_id, False, Status.ERROR))
            return
        finally:
            self.record.token_count = request.usage_tokens
        draft = self.record.draft
        if guard.failed is not None and self.backend.can_repair:
            repair = GuardedStream(context, facts=index.facts, question=self.question)
            async with aclosing(self._repaired(request, guard, repair, offload)) as out:
                async for released in out:
                    yield self._delta(released)
            if repair.failed is None and self._repair_accepted:
                guard, draft = repair, self.record.repair_draft

        yield StreamEnd("done", self.message_id)
        yield self._finish(self._verdict_response(result, index, guard, draft))

    async def _guarded(
        self,
        stream: AsyncIterator[str],
        guard: GuardedStream | ContinuedStream,
        offload: bool,
        *,
        repair: bool = False,
    ) -> AsyncIterator[str]:
        """The text ``guard`` releases of ``stream``, until it ends or the guard stops; the
        draft grows as it arrives (``record.draft``, or ``record.repair_draft``)."""
        try:
            async for delta in stream:
                if self.record.ttft_ms is None:
                    self.record.ttft_ms = self._elapsed_ms()
                delta = remove_invisible(delta)  # the customer sees what the guard reads
                if repair:
                    self.record.repair_draft += delta
                else:
                    self.record.draft += delta
                # On a KB of thousands of facts a sentence's check runs in a thread: one
                # question about many like facts must not stall the other customers here.
                if self._in_thread(guard, delta, offload):
                    released = await run_check(
                        guard.feed, delta, owner=self.context, cancel=guard.cancel
                    )
                else:
                    released = guard.feed(delta)
                if released:
                    yield released
                if guard.stopped:
                    return
            # The last sentence's check, in a thread only when it states a number.
            if self._in_thread(guard, "\n", offload):
                released = await run_check(guard.finish, owner=self.context, cancel=guard.cancel)
            else:
                released = guard.finish()
            if released:
                yield released
        finally:
            # Stops the provider at once when we leave early (guard, cancel, a mismatch).
            await stream.aclose()

    async def _repaired(
        self, request: LLMRequest, first: GuardedStream, repair: GuardedStream, offload: bool
    ) -> AsyncIterator[str]:
        """One repair round trip (docs/prompt.md): the model writes the whole answer again,
        told the guard's reason and what the customer already saw; ``repair`` checks it, and
        only what follows the part already shown is released (``ContinuedStream``). An answer
        that does not begin with exactly that part is dropped at the first character that
        differs, and a failure of the provider ends the repair: either way the turn is
        withheld, as without a repair."""
        shown = first.released
        self._repair_accepted = False
        self.record.repaired = True
        spent = request.usage_tokens or 0
        stream = self.backend.repair(
            request, draft=self.record.draft, reason=first.problem or "", shown=shown
        )
        continued = ContinuedStream(repair, shown)
        try:
            async with aclosing(self._guarded(stream, continued, offload, repair=True)) as out:
                async for released in out:
                    yield released
            self._repair_accepted = continued.accepted
        except LLMError as exc:
            logger.warning("LLM repair failed for turn %s: %s", self.message_id, exc)
            self.record.error = f"repair: {exc}"
        finally:
            self.record.token_count = spent + (request.usage_tokens or 0)

    # -- helpers ---------------------------------------------------------------

    def _in_thread(self, guard: GuardedStream | ContinuedStream, delta: str, offload: bool) -> bool:
        """Whether the check ``delta`` brings goes to the verification pool: any check on a
        big KB (``offload``), and on any KB one of many numbers (each a pass over its fact's
        group)."""
        count = guard.numbers_to_check(delta)
        return count > 0 and (offload or count > self.services.verify_in_thread_numbers)

    def _verdict_response(
        self, result: RetrievalResult, index, guard: GuardedStream, draft: str
    ) -> Response:
        # The guard's checker already analysed these snippets: the final verdict reuses it.
        verdict = guard.checker.verdict(draft)
        citations = with_titles([c.as_dict() for c in verdict.citations], index)
        # What the customer was shown: the draft without its references.
        shown = guard.released
        if verdict.grounded and guard.failed is None and shown.strip():
            # An elliptical follow-up keeps the topic's query, so a chain of them does not grow it.
            query = self.context.previous_query if is_elliptical(self.question) else result.query
            self.context.remember(question=self.question, answer=shown, query=query or result.query)
            numbers = with_titles([link.as_dict() for link in guard.links], index)
            return Response(shown, self.message_id, True, Status.DONE, citations, numbers=numbers)
        self.context.unanswered = self.question
        unsupported = verdict.unsupported or ([guard.failed] if guard.failed else [])
        self.record.unsupported = unsupported_with_locations(unsupported)
        reason = verdict.reason or "Verification failed: Number mismatch"
        text = texts.localized(texts.CANNOT_VERIFY, self.language)
        return Response(text, self.message_id, False, Status.WITHHELD, citations, blocked=reason)

    def _delta(self, text: str) -> StreamDelta:
        self.record.shown += text
        return StreamDelta(text, self.message_id)

    def _finish(self, response: Response) -> Response:
        record = self.record
        record.status, record.text, record.grounded = (
            response.status,
            response.text,
            response.grounded,
        )
        record.citations, record.block_reason = response.citations, response.blocked or ""
        record.numbers = response.numbers
        return dataclasses.replace(response, language=self.language)

    def _elapsed_ms(self) -> float:
        return round((time.perf_counter() - self._started) * 1000, 2)


def _snippet_audit(snippet) -> dict:
    return {
        "file": snippet.file,
        "line": snippet.start_line,
        "heading": snippet.heading,
        "score": round(float(snippet.score), 4),
        "text": snippet.text,
    }
