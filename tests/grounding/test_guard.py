"""Guarded streaming: prose flows, numbers wait for verification, failures stop the stream."""

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding.claims import extract_claims
from grounding.guard import GuardedStream
from grounding.snippets import Snippet
from grounding.verification import AnswerChecker, split_sentences, verify_answer

SNIPPETS = [
    Snippet(
        file="kb/pricing.md",
        text=(
            "## Priser\n- Basic: 99 kr/månad\n- Premium: 399 kr/månad\n- Premium ingår 1 TB lagring"
        ),
        start_line=1,
    ),
    Snippet(
        file="kb/contact.md",
        text="Telefon: +46 8 123 45 67\nÖppettider: vardagar 08:00-17:00",
        start_line=1,
    ),
    Snippet(file="kb/terms.md", text="Dröjsmålsränta: 8,5 %\nMoms 25 % ingår.", start_line=1),
]


def guard() -> GuardedStream:
    return GuardedStream(SNIPPETS)


def stream(text: str, cuts: list[int]) -> tuple[GuardedStream, list[str]]:
    """Feed ``text`` split at ``cuts``; return the guard and what each call released."""
    stream_guard = guard()
    bounds = [0, *sorted(set(cuts)), len(text)]
    outputs = [stream_guard.feed(text[a:b]) for a, b in pairwise(bounds)]
    outputs.append(stream_guard.finish())
    return stream_guard, outputs


def test_prose_before_a_number_is_released_before_the_number_arrives():
    """Text streams at once; the number is held until its sentence is complete."""
    stream_guard = guard()
    assert stream_guard.feed("Premium kostar ") == "Premium kostar "
    assert stream_guard.feed("399") == ""
    assert stream_guard.feed(" kr/månad") == ""
    # A word goes out once it is complete: "Något" could still grow into a number word.
    assert stream_guard.feed(". Något") == "399 kr/månad. "
    assert stream_guard.feed(" mer") == "Något "
    assert stream_guard.finish() == "mer"
    assert stream_guard.released == "Premium kostar 399 kr/månad. Något mer"


def test_decimal_point_is_not_a_sentence_end():
    """ "8." followed by "5" is one number, verified as 8,5 only when the sentence ends."""
    stream_guard = guard()
    released = stream_guard.feed("Räntan är 8.") + stream_guard.feed("5 %.")
    assert released == "Räntan är "
    assert stream_guard.finish() == "8.5 %."
    assert stream_guard.failed is None


def test_first_unsupported_number_stops_the_stream():
    """The failing sentence's number is never sent; later input and finish give nothing."""
    stream_guard = guard()
    released = stream_guard.feed("Premium kostar 399 kr. Basic kostar 49")
    released += stream_guard.feed(" kr. Ring 08-123 45 67.")
    assert released == "Premium kostar 399 kr. Basic kostar "
    assert stream_guard.failed is not None
    assert stream_guard.failed.text == "49 kr"
    assert stream_guard.reason == "Verification failed: Number mismatch"
    assert stream_guard.feed("Mer text") == ""
    assert stream_guard.finish() == ""


def test_wrong_subject_stops_the_stream():
    """Premium's price said of Basic stops the stream with the subject reason."""
    stream_guard = guard()
    stream_guard.feed("Basic kostar 399 kr/månad.")
    stream_guard.finish()
    assert stream_guard.failed is not None
    assert stream_guard.reason == "Verification failed: Wrong subject"
    assert "399" not in stream_guard.released


def test_finish_verifies_the_last_sentence():
    """Text after the last sentence end is checked at finish."""
    ok, bad = guard(), guard()
    ok.feed("Ring oss på 08-123 45 67")
    bad.feed("Ring oss på 08-999 99 99")
    assert ok.finish() == "08-123 45 67"
    assert bad.finish() == ""
    assert bad.failed is not None


def test_plus_and_minus_wait_with_their_digits():
    """A "+" right before a phone number is held back with it, not sent alone."""
    stream_guard = guard()
    assert stream_guard.feed("Ring +") == "Ring "
    assert stream_guard.feed("46 8 123 45 67.") == ""
    assert stream_guard.finish() == "+46 8 123 45 67."


SENTENCES = [
    "Premium kostar 399 kr/månad.",
    "Basic kostar 99 kr i månaden!",
    "Basic kostar 399 kr/månad.",
    "Premium ingår 1 TB lagring.",
    "Ring +46 8 123 45 67 vardagar 08:00-17:00.",
    "Ring 08-999 99 99.",
    "Dröjsmålsräntan är 8,5 %.",
    "Räntan är 12.5 %.",
    "Hej, hur kan jag hjälpa dig?",
    "Det kostar ca. 99 kr.",
    "Momsen är 25 procent",
    "Vi svarar inom 5 dagar.",
    "Tack",
]

answers = st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=6).flatmap(
    lambda parts: st.lists(
        st.sampled_from([" ", "\n", "  "]), min_size=len(parts), max_size=len(parts)
    ).map(lambda gaps: "".join(part + gap for part, gap in zip(parts, gaps, strict=True)))
)


def _sentence_ok(checker: AnswerChecker, sentence: str) -> bool:
    return all(check.unsupported is None for check in checker.check_sentence(sentence))


def assert_no_unverified_digit(answer: str, released: str) -> None:
    """Every digit released lies in a sentence whose numbers all verify."""
    assert answer.startswith(released)
    checker = AnswerChecker(SNIPPETS)
    position = 0
    for sentence in split_sentences(answer):
        start, position = position, position + len(sentence)
        shown = released[start:position]
        if any(char.isdecimal() for char in shown):
            assert _sentence_ok(checker, sentence), (sentence, shown)


@given(answer=answers, data=st.data())
def test_no_released_text_holds_an_unverified_digit(answer, data):
    """However the answer is split into deltas, no unverified digit is ever released."""
    cuts = data.draw(st.lists(st.integers(0, len(answer)), max_size=12))
    stream_guard, outputs = stream(answer, cuts)
    released = ""
    for output in outputs:
        released += output
        assert_no_unverified_digit(answer, released)
    assert released == stream_guard.released


@given(answer=answers, data=st.data())
def test_incremental_verdict_equals_whole_answer_verdict(answer, data):
    """The stream fails exactly when verify_answer rejects, at its first unsupported number."""
    cuts = data.draw(st.lists(st.integers(0, len(answer)), max_size=12))
    stream_guard, _ = stream(answer, cuts)
    verdict = verify_answer(answer, SNIPPETS)
    if verdict.grounded:
        assert stream_guard.failed is None
        assert stream_guard.released == answer
    else:
        assert stream_guard.failed == verdict.unsupported[0]
        assert stream_guard.reason == verdict.reason


@given(text=st.text(max_size=120), data=st.data())
def test_arbitrary_text_never_leaks_an_unverified_digit(text, data):
    """Even for arbitrary text and splits, released text never shows an unverified digit."""
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10))
    _, outputs = stream(text, cuts)
    assert_no_unverified_digit(text, "".join(outputs))


def test_grounded_answer_is_released_whole_whatever_the_split():
    """A grounded answer split mid-number comes out complete, numbers included."""
    stream_guard, _ = stream("Premium kostar 399 kr/månad. Ring 08-123 45 67.", [3, 20, 31])
    assert stream_guard.failed is None
    assert [c.value for c in extract_claims(stream_guard.released)] == ["399", "+4681234567"]


def test_without_snippets_prose_flows_but_numbers_fail():
    """No snippets: words still stream, the first number stops the stream."""
    stream_guard = GuardedStream([])
    assert stream_guard.feed("Hej! Det kostar ") == "Hej! Det kostar "
    stream_guard.feed("99 kr.")
    assert stream_guard.finish() == ""
    assert stream_guard.failed is not None


@pytest.mark.parametrize(
    ("deltas", "expected"),
    [
        # a sentence with a number ends when the next one starts ("kr." may be an abbreviation)
        (["Premium kostar ", "399 kr.", " Tack!"], [False, False, True]),
        (["Hej! ", "Välkommen."], [False, False]),  # sentences without one: fed in place
        (["Det kostar 3", "99 kr"], [False, False]),  # a number, no end yet
        (["Det tar tre ", "dagar.\n"], [False, True]),  # held by a number word
    ],
)
def test_may_check_says_which_feed_verifies_a_number(deltas, expected):
    guard = GuardedStream(SNIPPETS)
    seen = []
    for delta in deltas:
        seen.append(guard.may_check(delta))
        guard.feed(delta)
    assert seen == expected
