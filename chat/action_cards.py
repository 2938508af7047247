"""An action suggestion as the chat page shows it: one card with one state.

Pure given a suggestion row (and its execution, when it has one): no queries
of its own. The card's state, read from the audit rows:

| suggestion status | execution status | now vs expires_at | card state |
|---|---|---|---|
| pending | - | before | ``pending`` |
| pending | - | after | ``expired`` |
| expired | - | - | ``expired`` |
| rejected | - | - | ``rejected`` |
| executed | claimed | - | ``running`` |
| executed | succeeded | - | ``done`` |
| executed | failed | - | ``failed`` |

A pending card also carries ``secondsLeft``, so the page's countdown does not
depend on the browser's clock agreeing with the server's.

Every frame about a suggestion (``action_suggestion``, ``action_executed``,
``action_rejected`` and the history) carries the card, so a double click, a
second tab and a reload all show the same one outcome.
"""

import datetime as dt

from chat import texts

PHONE_ACTIONS = frozenset({"schedule_callback", "send_sms"})
CONTACT_ACTIONS = frozenset({"create_ticket"})  # an e-mail address or a phone number


def card_state(suggestion, *, now: dt.datetime) -> str:
    status = suggestion.status
    if status == "pending":
        return "expired" if suggestion.is_stale(now) else "pending"
    if status in ("expired", "rejected"):
        return status
    execution = getattr(suggestion, "execution", None)
    if execution is None or execution.status == "claimed":
        return "running"
    return "done" if execution.status == "succeeded" else "failed"


def card(suggestion, *, language: str, now: dt.datetime) -> dict:
    """The card fields: ``state``, ``phone``, ``reference``, localized ``message``."""
    state = card_state(suggestion, now=now)
    phone = suggestion.payload.get("phone", "")
    execution = getattr(suggestion, "execution", None) if state in ("done", "failed") else None
    reference = (execution.result or {}).get("reference", "") if execution else ""
    if state == "done":
        template = texts.localized(texts.ACTION_DONE[suggestion.action], language)
        message = template.format(phone=phone, reference=reference)
    else:
        message = texts.localized(texts.ACTION_STATE[state], language)
    payload = suggestion.payload
    needs_phone = suggestion.action in PHONE_ACTIONS and not payload.get("phone_e164")
    fields = {
        "state": state,
        "phone": phone,
        "needsPhone": needs_phone,
        "reference": reference,
        "message": message,
    }
    if suggestion.action in CONTACT_ACTIONS:  # a ticket: how we reach the customer
        fields["contact"] = payload.get("email") or phone
        fields["needsContact"] = not fields["contact"]
    if state == "pending":
        # The countdown runs on the browser's clock from this, whatever that clock says.
        left = (suggestion.expires_at - now).total_seconds()
        fields["secondsLeft"] = round(max(0.0, left), 1)
    return fields


def suggestion_frame(suggestion, *, language: str, now: dt.datetime) -> dict:
    """The ``action_suggestion`` frame with its card and the answer it belongs to."""
    return {
        **suggestion.as_frame(),
        "sourceMessageId": suggestion.source_message_id,
        "card": card(suggestion, language=language, now=now),
    }
