"""Quotas on what a stranger can make the product do: SMS and callbacks.

Counted from the executions in the database, so they hold across processes
and restarts. A confirm past a quota is not run: its result says so and
why, the suggestion stays pending, and the refusal is counted in the
``chat_action_quota_refusals`` metric. Failed executions do not count.

| quota        | executions of the action ...  | setting (count/seconds)           | default   |
|--------------|-------------------------------|-----------------------------------|-----------|
| conversation | in this conversation          | ``ACTION_QUOTA_PER_CONVERSATION`` | 3/day     |
| number       | to the same number (E.164)    | ``ACTION_QUOTA_PER_NUMBER``       | 3/day     |
| address      | confirmed from the address    | ``ACTION_QUOTA_PER_ADDRESS``      | 10/hour   |
| overall      | by anyone                     | ``ACTION_QUOTA_PER_MINUTE``       | 30/minute |

Tickets have no quota: they reach staff, not a stranger's phone. ``"0"``
turns a quota off. The check runs under the suggestion's row lock, not a
global one: confirms of different suggestions at the same instant can pass
the same count together, so a quota may be exceeded by the number of
confirms running at that moment (at most a handful), never by a flood.
"""

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q
from prometheus_client import Counter

from actions.models import ActionType, Execution, Suggestion

QUOTA_ACTIONS = (ActionType.SEND_SMS, ActionType.SCHEDULE_CALLBACK)
QUOTAS = ("conversation", "number", "address", "overall")
_SETTINGS = {
    "conversation": "ACTION_QUOTA_PER_CONVERSATION",
    "number": "ACTION_QUOTA_PER_NUMBER",
    "address": "ACTION_QUOTA_PER_ADDRESS",
    "overall": "ACTION_QUOTA_PER_MINUTE",
}
_WHAT = {
    "conversation": "in this conversation",
    "number": "to this number",
    "address": "from your address",
    "overall": "for everyone right now",
}

QUOTA_REFUSALS = Counter(
    "chat_action_quota_refusals",
    "Confirms not run because a quota was reached, by action and quota.",
    ["action", "quota"],
)
for _action in QUOTA_ACTIONS:
    for _quota in QUOTAS:
        QUOTA_REFUSALS.labels(action=_action.value, quota=_quota)


@dataclass(frozen=True, slots=True)
class QuotaReached:
    quota: str
    count: int
    seconds: float

    def message(self, action_label: str) -> str:
        return (
            f"Not run: the limit of {self.count} {action_label} per {_period(self.seconds)} "
            f"{_WHAT[self.quota]} is reached"
        )


def parse_quota(value: str) -> tuple[int, float] | None:
    """``"3/86400"`` -> ``(3, 86400.0)``; ``"0"`` or empty -> None (no quota)."""
    value = (value or "").strip()
    if value in ("", "0"):
        return None
    count, _, seconds = value.partition("/")
    parsed = (int(count), float(seconds or 60))
    return parsed if parsed[0] > 0 and parsed[1] > 0 else None


def quota_reached(
    *, suggestion: Suggestion, client_address: str, now: dt.datetime
) -> QuotaReached | None:
    """The first quota this confirm would exceed (and count it), or None."""
    if suggestion.action not in QUOTA_ACTIONS:
        return None
    number = suggestion.payload.get("phone_e164", "")
    scopes = {
        "conversation": Q(suggestion__conversation_id=suggestion.conversation_id),
        "number": Q(suggestion__payload__phone_e164=number) if number else None,
        "address": Q(client_address=client_address) if client_address else None,
        "overall": Q(),
    }
    counted = Execution.objects.filter(suggestion__action=suggestion.action).exclude(
        status=Execution.Status.FAILED
    )
    for quota, scope in scopes.items():
        limit = parse_quota(getattr(settings, _SETTINGS[quota]))
        if scope is None or limit is None:
            continue
        count, seconds = limit
        since = now - dt.timedelta(seconds=seconds)
        if counted.filter(scope, claimed_at__gt=since).count() >= count:
            QUOTA_REFUSALS.labels(action=suggestion.action, quota=quota).inc()
            return QuotaReached(quota=quota, count=count, seconds=seconds)
    return None


def _period(seconds: float) -> str:
    for unit, length in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds == length:
            return unit
    return f"{seconds:g} seconds"
