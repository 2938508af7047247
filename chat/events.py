"""What a turn yields; each event knows its server frame (SPEC section 4)."""

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class StreamDelta:
    delta: str
    message_id: str

    def frame(self) -> dict:
        return {"type": "stream", "delta": self.delta, "messageId": self.message_id}


@dataclass(frozen=True, slots=True)
class StreamEnd:
    # "done", "cancelled" (the client's cancel) or "interrupted" (the server stopped it)
    reason: str
    message_id: str

    def frame(self) -> dict:
        return {"type": "stream_end", "reason": self.reason, "messageId": self.message_id}


@dataclass(frozen=True, slots=True)
class Response:
    text: str
    message_id: str
    grounded: bool
    status: str  # chat.models.Message.Status value
    citations: list[dict] = field(default_factory=list)
    blocked: str | None = None
    language: str = ""  # the turn's language ("sv"/"en"): the page marks the text with it
    # Where each number of ``text`` comes from: {start, end, text, file, line, fact, title, url?}
    numbers: list[dict] = field(default_factory=list)

    def frame(self) -> dict:
        frame = {
            "type": "response",
            "text": self.text,
            "citations": self.citations,
            "messageId": self.message_id,
            "grounded": self.grounded,
            "status": self.status,
        }
        if self.blocked:
            frame["blocked"] = self.blocked
        if self.language:
            frame["language"] = self.language
        if self.numbers:
            frame["numbers"] = self.numbers
        return frame


@dataclass(frozen=True, slots=True)
class ActionSuggested:
    suggestion: dict  # the frame built by actions.models.Suggestion.as_frame()

    def frame(self) -> dict:
        return self.suggestion


@dataclass(frozen=True, slots=True)
class ToPerson:
    """The message went to the person who owns the conversation; the agent says nothing."""

    message_id: str
    person: str  # the name the customer sees

    def frame(self) -> dict:
        return {"type": "handoff_delivered", "messageId": self.message_id}


Event = StreamDelta | StreamEnd | Response | ActionSuggested | ToPerson
