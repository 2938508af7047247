import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from actions.models import ActionType
from actions.triggers import ActionTrigger, detect_action, ticket_subject

PHRASES = {
    "ring mig": "schedule_callback",
    "ring upp": "schedule_callback",
    "call me": "schedule_callback",
    "call back": "schedule_callback",
    "skicka sms": "send_sms",
    "sms:a": "send_sms",
    "send sms": "send_sms",
    "text me": "send_sms",
    "skapa ärende": "create_ticket",
    "öppna ticket": "create_ticket",
    "create ticket": "create_ticket",
    "open ticket": "create_ticket",
}

phrases = st.sampled_from(sorted(PHRASES))
letters = st.text(alphabet=st.characters(categories=["L", "Nd"]), min_size=1, max_size=5)


@st.composite
def randomly_cased(draw) -> tuple[str, str]:
    """A phrase and the same phrase with each letter's case chosen at random."""
    phrase = draw(phrases)
    flips = draw(st.lists(st.booleans(), min_size=len(phrase), max_size=len(phrase)))
    cased = "".join(c.upper() if flip else c for c, flip in zip(phrase, flips, strict=True))
    return phrase, cased


@pytest.mark.parametrize(("phrase", "action"), sorted(PHRASES.items()))
def test_every_spec_phrase_triggers_its_action(phrase, action):
    """Each phrase of SPEC section 7 yields its action, with an empty payload without a number."""
    assert detect_action(f"Hej, {phrase} tack") == ActionTrigger(action=action, payload={})


def test_acceptance_callback_with_phone():
    """The acceptance message yields schedule_callback with the number as written and in E.164."""
    trigger = detect_action("Ring mig imorgon på +46 70 123 45 67")
    assert trigger == ActionTrigger(
        action="schedule_callback",
        payload={"phone": "+46 70 123 45 67", "phone_e164": "+46701234567"},
    )


def test_phone_in_national_form_is_canonicalised():
    """A Swedish number written with a trunk zero gets its +46 E.164 form."""
    trigger = detect_action("Kan ni sms:a 070-123 45 67?")
    assert trigger is not None
    assert trigger.action == "send_sms"
    assert trigger.payload == {"phone": "070-123 45 67", "phone_e164": "+46701234567"}


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("Ring upp mig är du snäll", "schedule_callback"),
        ("Kan ni ringa mig i eftermiddag?", "schedule_callback"),
        ("Please CALL ME BACK", "schedule_callback"),
        ("ring\n  mig", "schedule_callback"),
        ("Kan du skicka ett sms?", "send_sms"),
        ("Could you send an SMS", "send_sms"),
        ("Jag vill skapa ett ärende", "create_ticket"),
        ("ÖPPNA EN TICKET", "create_ticket"),
        ("Please create a ticket.", "create_ticket"),
        ("open a ticket!", "create_ticket"),
    ],
)
def test_safe_inflections_and_spacing_trigger(text, action):
    """Flexible whitespace and meaning-preserving inflections still trigger."""
    trigger = detect_action(text)
    assert trigger is not None
    assert trigger.action == action


@pytest.mark.parametrize(
    "text",
    [
        "Vad kostar Basic?",
        "Jag vill ringa",
        "ringa är svårt",
        "Kring migrationen hände mycket",
        "Vi behöver en ringmig",
        "recall me later",
        "the callback URL",
        "call backend",
        "context menu",
        "send smss",
        "sms:an",
        "open tickets",
        "skapa ärenden",
        "",
    ],
)
def test_no_trigger_without_a_whole_phrase(text):
    """Text without a whole trigger phrase yields nothing (``ringa`` alone included)."""
    assert detect_action(text) is None


def test_earliest_phrase_wins():
    """When a message names two actions, the one mentioned first is suggested."""
    assert detect_action("Skapa ärende, eller ring mig").action == "create_ticket"
    assert detect_action("Ring mig, eller skapa ärende").action == "schedule_callback"


def test_detected_actions_are_action_types():
    """Every action the detector can return is a stored ActionType value."""
    assert set(PHRASES.values()) == set(ActionType.values)


@given(case=randomly_cased())
def test_case_does_not_matter(case):
    """Any mix of upper and lower case triggers the same action."""
    phrase, cased = case
    trigger = detect_action(cased)
    assert trigger is not None
    assert trigger.action == PHRASES[phrase]


@given(phrase=phrases, prefix=letters, suffix=letters)
@example(phrase="ring mig", prefix="k", suffix="rationen")
@example(phrase="sms:a", prefix="x", suffix="n")
def test_no_trigger_inside_another_word(phrase, prefix, suffix):
    """A phrase glued to other letters or digits, before or after, is not a trigger."""
    assert detect_action(prefix + phrase) is None
    assert detect_action(phrase + suffix) is None
    assert detect_action(prefix + phrase + suffix) is None


@given(
    phrase=phrases,
    before=st.text(max_size=30),
    after=st.text(max_size=30),
    gap=st.text(alphabet=" \t\n", min_size=1, max_size=4),
)
def test_phrase_between_separators_triggers(phrase, before, after, gap):
    """A phrase set off by spaces triggers whatever text surrounds it, with any spacing inside."""
    spaced = phrase.replace(" ", gap)
    trigger = detect_action(f"{before} {spaced} {after}")
    assert trigger is not None
    # Random text before it may hold a phrase of its own, which would come first.
    if detect_action(before) is None:
        assert trigger.action == PHRASES[phrase]


@given(text=st.text(alphabet=st.characters(exclude_characters="aeiouäöAEIOUÄÖ"), max_size=80))
def test_text_without_vowels_never_triggers(text):
    """Every phrase has a vowel, so text without vowels yields nothing (and never raises)."""
    assert detect_action(text) is None


@pytest.mark.parametrize(
    "text",
    ["Create a ticket", "Skapa ett ärende, tack!", "create ticket please", "Öppna en ticket."],
)
def test_a_ticket_asked_for_in_so_many_words_is_about_the_unanswered_question(text):
    """The button's label (or its like) says nothing of its own: the subject is the question
    the agent could not answer."""
    subject = ticket_subject(text, unanswered="Can I pay   with a boat?")
    assert subject == "Can I pay with a boat?"


def test_a_ticket_asked_for_with_words_of_its_own_is_about_them():
    """What the customer typed beside the asking is the subject, whatever went before."""
    text = "Skapa ärende: fakturan är fel"
    assert ticket_subject(text, unanswered="Can I pay with a boat?") == text


def test_a_ticket_asked_for_with_nothing_unanswered_is_about_what_was_typed():
    assert ticket_subject("Create a ticket") == "Create a ticket"
