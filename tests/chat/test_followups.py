"""Elliptical follow-ups are searched with the previous query (chat.followups, pure)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chat.followups import is_elliptical, retrieval_query


@pytest.mark.parametrize(
    "text",
    ["Och standard?", "And Plus?", "what about Business?", "Standard?", "Hur är det med basic?"],
)
def test_short_or_connector_led_messages_are_elliptical(text):
    assert is_elliptical(text)


@pytest.mark.parametrize(
    "text",
    [
        "Vad kostar premium?",
        "Hur säger jag upp mitt abonnemang?",
        "och vad gäller för uppsägning av ett företagsabonnemang med flera användare",
        "",
    ],
)
def test_full_questions_stand_on_their_own(text):
    assert not is_elliptical(text)


def test_follow_up_is_searched_with_the_previous_query():
    assert retrieval_query("Och standard?", "Vad kostar premium?") == (
        "Vad kostar premium? Och standard?"
    )


def test_without_a_previous_query_the_message_is_searched_alone():
    assert retrieval_query("Och standard?", None) == "Och standard?"


def test_a_connector_inside_a_word_does_not_count():
    """'Android' and 'Men's' start with a connector's letters but are not connectors."""
    assert not is_elliptical("Android appen kraschar ofta")
    assert not is_elliptical("Mental hälsa och stress")


@given(st.text(max_size=200), st.one_of(st.none(), st.text(max_size=50)))
def test_the_message_is_always_part_of_the_query(text, previous):
    assert retrieval_query(text, previous).endswith(text)
