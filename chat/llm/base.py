"""The one small interface every LLM backend implements."""

import abc
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from grounding.snippets import Snippet


class LLMError(Exception):
    """The backend failed (connection, timeout, HTTP error, malformed stream).

    The message is for logs and the audit trail, never for the client.
    """


@dataclass(frozen=True)
class Exchange:
    """One earlier question and the answer that was shown for it."""

    question: str
    answer: str


@dataclass
class LLMRequest:
    question: str
    snippets: Sequence[Snippet]  # retrieved, best first
    language: str = "sv"  # "sv" or "en": the conversation's language
    history: Sequence[Exchange] = ()  # oldest first
    # Whether the answer carries its references ([PATH:LINE] after each number,
    # docs/prompt.md): only for a guard that reads and strips them.
    cite: bool = False
    # Filled in by the backend while it streams.
    usage_tokens: int | None = field(default=None)
    # The turn's LLM deadline (the backend's clock), set by the first ``stream``: a repair
    # round trip ends by it too, it does not get a deadline of its own.
    deadline: float | None = field(default=None)


class LLMBackend(abc.ABC):
    name: str = ""

    @property
    @abc.abstractmethod
    def model(self) -> str:
        """The model name recorded in the audit trail."""

    @abc.abstractmethod
    def stream(self, request: LLMRequest) -> AsyncIterator[str]:
        """Yield the answer as text deltas.

        An async generator: closing it (``aclose()``, or cancelling the task
        that iterates it) must stop the provider at once. Raises ``LLMError``
        on failure; sets ``request.usage_tokens`` when it knows the count.
        """

    #: Whether ``repair`` asks the model again (the real backend); the mock's answer would
    #: be the same one.
    can_repair: bool = False

    def repair(
        self, request: LLMRequest, *, draft: str, reason: str, shown: str = ""
    ) -> AsyncIterator[str]:
        """One repair round trip: the answer again, told why ``draft`` was withheld and that
        the customer already saw ``shown`` (its beginning, which the new answer repeats).

        Streams like ``stream``; the caller checks the new answer with a fresh guard.
        """
        raise NotImplementedError(f"the {self.name or type(self).__name__} backend cannot repair")
