"""Asking for a person, and opening hours (pure)."""

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chat.handoff_rules import (
    OpeningHoursError,
    asks_for_person,
    available,
    is_open,
    next_opening,
    parse_opening_hours,
)


@pytest.mark.parametrize(
    "text",
    [
        "Kan jag prata med en människa?",
        "jag vill PRATA   MED en person",
        "Får jag tala med en handläggare",
        "koppla mig till en människa tack",
        "Jag vill ha en riktig person",
        "talk to a human",
        "Can I speak with an agent please",
        "I want a real person",
        "live agent",
    ],
)
def test_phrases_that_ask_for_a_person(text):
    assert asks_for_person(text)


@pytest.mark.parametrize(
    "text",
    [
        "Vad kostar premium?",
        "Personnummer behövs inte",
        "human resources",
        "Ring mig på 070-123 45 67",
        "prata medan jag väntar",
        "agenten svarade fel",
    ],
)
def test_ordinary_questions_do_not(text):
    assert not asks_for_person(text)


@given(st.text(alphabet=st.characters(categories=["L", "Zs"]), max_size=40))
def test_a_phrase_inside_any_text_is_found(prefix):
    """Whatever comes before it, the phrase after a space is found."""
    assert asks_for_person(prefix + " prata med en människa")


MONDAY = dt.datetime(2026, 11, 23, 9, 0)  # a Monday


@pytest.mark.parametrize(
    ("spec", "moment", "open_"),
    [
        ("always", MONDAY.replace(hour=3), True),
        ("never", MONDAY, False),
        ("mon-fri 08:00-17:00", MONDAY, True),
        ("mon-fri 08:00-17:00", MONDAY.replace(hour=17), False),
        ("mon-fri 08:00-17:00", MONDAY.replace(hour=7, minute=59), False),
        ("mon-fri 08:00-17:00", MONDAY + dt.timedelta(days=5), False),  # Saturday
        ("mon-fri 08:00-17:00; sat 10:00-14:00", MONDAY + dt.timedelta(days=5, hours=1), True),
        ("sat-mon 00:00-24:00", MONDAY + dt.timedelta(days=6), True),  # Sunday, range wraps
        ("sat-mon 00:00-24:00", MONDAY + dt.timedelta(days=1), False),  # Tuesday
    ],
)
def test_opening_hours(spec, moment, open_):
    assert is_open(spec, moment) is open_


def test_unreadable_opening_hours_are_an_error():
    with pytest.raises(OpeningHoursError):
        parse_opening_hours("weekdays 9-5")


EVENING = MONDAY.replace(hour=21)


@pytest.mark.parametrize(
    ("spec", "moment", "staff_online", "expected"),
    [
        ("", EVENING, True, True),  # unset: an agent in the console at 21:00 answers
        ("", EVENING, False, False),
        ("", MONDAY, False, False),  # within any office hours, but nobody is online
        ("mon-fri 08:00-17:00", MONDAY, True, True),
        ("mon-fri 08:00-17:00", EVENING, True, False),  # the hours narrow it
        ("always", EVENING, False, True),
        ("never", MONDAY, True, False),
    ],
)
def test_a_person_is_available_when_online_within_hours_that_are_set(
    spec, moment, staff_online, expected
):
    assert available(spec, moment, staff_online=staff_online) is expected


@pytest.mark.parametrize(
    ("spec", "moment", "expected"),
    [
        ("mon-fri 08:00-17:00", EVENING, MONDAY.replace(day=24, hour=8)),  # Tuesday 08:00
        ("mon-fri 08:00-17:00", MONDAY.replace(hour=7), MONDAY.replace(hour=8)),
        (
            "mon-fri 08:00-17:00",
            MONDAY + dt.timedelta(days=4, hours=10),
            MONDAY.replace(day=30, hour=8),
        ),
        ("sat 10:00-14:00", MONDAY, MONDAY.replace(day=28, hour=10)),
        ("", EVENING, None),
        ("always", EVENING, None),
        ("never", EVENING, None),
    ],
)
def test_staff_are_back_at_the_next_opening(spec, moment, expected):
    assert next_opening(spec, moment) == expected
