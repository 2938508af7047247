"""When a customer asks for a person, and whether a person is there to answer.

Pure: no ORM, no I/O.

Phrases match like the action triggers (``actions.triggers``): case-insensitive,
on word boundaries, any whitespace between the words, the earliest wins.

| language | asks for a person when the message says ...                          |
|----------|-----------------------------------------------------------------------|
| sv       | prata/tala med en människa/person/handläggare/medarbetare/någon (på er) |
| sv       | en riktig människa/person, mänsklig handläggare, koppla mig till ...   |
| en       | talk/speak/chat to/with a human/person/agent/someone, real person      |
| en       | human agent, live agent, connect me to ...                              |

Whether a person is available (``available``): opening hours
(``HANDOFF_OPENING_HOURS``, in the site's time zone) and whether a staff console
is open anywhere:

| value                              | a person is available                           |
|------------------------------------|-------------------------------------------------|
| unset (``""``, the default)        | whenever a staff console is open, at any hour    |
| ``mon-fri 08:00-17:00``            | Monday to Friday, 08:00 up to 17:00, with a console open |
| ``mon-fri 08:00-17:00; sat 10:00-14:00`` | either range, with a console open          |
| ``always``                         | every minute, console or not (requests wait for staff) |
| ``never``                          | never: every request is offered a callback or a ticket |

When nobody is available, ``next_opening`` says when the hours open again
(None when they do not narrow availability, or never open).
"""

import datetime as dt
import re

_PERSON = r"(?:en |ett )?(?:människa|person|handläggare|medarbetare|någon(?: på er)?)"
_HUMAN = r"(?:a |an |some )?(?:human|person|agent|someone|real person|real human)"
_PHRASES = (
    rf"(?:prata|tala|snacka|chatta) med {_PERSON}",
    r"(?:en )?riktig (?:människa|person)",
    r"mänsklig (?:handläggare|kundtjänst)",
    r"koppla (?:mig|över mig) (?:till|vidare till) (?:en |ett )?(?:människa|person|handläggare)",
    rf"(?:talk|speak|chat) (?:to|with) {_HUMAN}",
    r"(?:human|live) agent",
    r"real (?:person|human)",
    r"connect me (?:to|with) (?:a |an )?(?:human|person|agent)",
)

_HANDOFF_RE = re.compile(
    r"(?<!\w)(?:" + "|".join(p.replace(" ", r"\s+") for p in _PHRASES) + r")(?!\w)",
    re.IGNORECASE,
)


def asks_for_person(text: str) -> bool:
    """True when the message asks to talk to a person rather than the agent."""
    return _HANDOFF_RE.search(text) is not None


_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_RANGE_RE = re.compile(
    r"^(?P<first>[a-z]{3})(?:-(?P<last>[a-z]{3}))?\s+"
    r"(?P<open>\d{1,2}:\d{2})-(?P<close>\d{1,2}:\d{2})$"
)


class OpeningHoursError(ValueError):
    """The HANDOFF_OPENING_HOURS setting cannot be read."""


def _time(text: str) -> dt.time:
    hours, minutes = (int(part) for part in text.split(":"))
    if hours == 24 and minutes == 0:
        return dt.time.max
    return dt.time(hours, minutes)


def parse_opening_hours(spec: str) -> list[tuple[set[int], dt.time, dt.time]]:
    """``"mon-fri 08:00-17:00; sat 10:00-14:00"`` as (weekdays, opens, closes) ranges."""
    spec = spec.strip().lower()
    if spec == "always":
        return [(set(range(7)), dt.time.min, dt.time.max)]
    if spec in ("never", ""):
        return []
    ranges = []
    for part in re.split(r"[;,]", spec):
        match = _RANGE_RE.match(part.strip())
        if match is None or match["first"] not in _DAYS or (match["last"] or "mon") not in _DAYS:
            raise OpeningHoursError(f"cannot read opening hours {part.strip()!r}")
        first = _DAYS.index(match["first"])
        last = _DAYS.index(match["last"]) if match["last"] else first
        days = {d % 7 for d in range(first, last + 1 if last >= first else last + 8)}
        ranges.append((days, _time(match["open"]), _time(match["close"])))
    return ranges


def is_open(spec: str, now: dt.datetime) -> bool:
    """Whether a person answers at ``now`` (a local time) under opening hours ``spec``."""
    moment = now.time()
    return any(
        now.weekday() in days and opens <= moment < closes
        for days, opens, closes in parse_opening_hours(spec)
    )


def available(spec: str, now: dt.datetime, *, staff_online: bool) -> bool:
    """Whether a customer asking for a person at ``now`` (local) is queued for one."""
    spec = spec.strip().lower()
    if spec == "always":
        return True
    if spec and not is_open(spec, now):
        return False
    return staff_online


def next_opening(spec: str, now: dt.datetime) -> dt.datetime | None:
    """The first minute after ``now`` (local) that opening hours ``spec`` are open; None when
    they are unset, always open, or never open (within a week)."""
    ranges = parse_opening_hours(spec) if spec.strip().lower() not in ("", "always") else []
    if not ranges:
        return None
    candidates = []
    for offset in range(8):
        day = now.date() + dt.timedelta(days=offset)
        for days, opens, _closes in ranges:
            moment = dt.datetime.combine(day, opens, tzinfo=now.tzinfo)
            if day.weekday() in days and moment > now:
                candidates.append(moment)
    return min(candidates, default=None)


def staff_name(user) -> str:
    """The name a customer sees for a staff member: first name, else the username."""
    return getattr(user, "first_name", "") or user.get_username()
