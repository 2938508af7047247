"""Which action, if any, a user's message asks for (SPEC section 7).

Pure: no ORM, no I/O. Phrases match case-insensitively on word boundaries,
so ``ring mig`` triggers but ``kring migrationen`` and ``ringa`` alone do not.
Between the words of a phrase any run of whitespace is allowed, plus the few
inflections that cannot change the meaning (``ringa mig``, ``skicka ett sms``,
``create a ticket``). When several phrases occur, the earliest one wins.
"""

import re
from dataclasses import dataclass, field

from grounding.phones import first_phone

SCHEDULE_CALLBACK = "schedule_callback"
SEND_SMS = "send_sms"
CREATE_TICKET = "create_ticket"

# Each entry is a phrase pattern; spaces stand for "one or more whitespace".
_PHRASES: dict[str, tuple[str, ...]] = {
    SCHEDULE_CALLBACK: (
        r"ringa? mig",
        r"ringa? upp",
        r"call me",
        r"call back",
    ),
    SEND_SMS: (
        r"skicka (?:ett )?sms",
        r"sms:a",
        r"send (?:an? )?sms",
        r"text me",
    ),
    CREATE_TICKET: (
        r"skapa (?:ett )?ärende",
        r"öppna (?:en |ett )?ticket",
        r"create (?:a )?ticket",
        r"open (?:a )?ticket",
    ),
}


def _compile(phrase: str) -> str:
    return phrase.replace(" ", r"\s+")


# One alternation with a named group per action; lookarounds instead of \b
# because \b would accept a match that ends inside ``sms:a`` after the colon.
_TRIGGER_RE = re.compile(
    r"(?<!\w)(?:"
    + "|".join(
        f"(?P<{action}>{'|'.join(_compile(p) for p in phrases)})"
        for action, phrases in _PHRASES.items()
    )
    + r")(?!\w)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ActionTrigger:
    action: str
    payload: dict = field(default_factory=dict)


_FILLER = re.compile(r"[\W_]+|\b(?:please|tack|snälla|för|for|me|mig|om|about)\b", re.I)


def ticket_subject(text: str, *, unanswered: str = "") -> str:
    """What a ticket asked for in ``text`` is about: the customer's own words, or, when they
    are no more than the asking ("Create a ticket", "Skapa ett ärende, tack"), the question
    that went unanswered just before (``unanswered``)."""
    rest = _FILLER.sub(" ", _TRIGGER_RE.sub(" ", text))
    subject = text if rest.split() or not unanswered else unanswered
    return " ".join(subject.split())


def detect_action(text: str) -> ActionTrigger | None:
    """The action the message asks for, with its phone number in the payload; else None."""
    match = _TRIGGER_RE.search(text)
    if match is None:
        return None
    action = match.lastgroup
    phone = first_phone(text)
    payload = {"phone": phone.text, "phone_e164": phone.e164} if phone else {}
    return ActionTrigger(action=action, payload=payload)
