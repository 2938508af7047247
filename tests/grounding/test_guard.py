"""Guarded streaming: prose flows, numbers wait for their cited facts, failures stop the stream.

Answers are written in the cited form the generator writes (``grounding.references``):
every number is followed by the KB line it comes from (``[kb/pricing.md:3]``), the fact's
id or ``[Q]``. The released text never holds a reference or a chunk marker.
"""

import re
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding.cited import NOT_RETRIEVED, CitedChecker, verify_cited
from grounding.claims import extract_claims
from grounding.guard import ContinuedStream, GuardedStream
from grounding.references import strip_references
from grounding.sentences import split_sentences
from grounding.snippets import Snippet

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
    assert stream_guard.feed(" [kb/pricing.md:3]") == ""
    # A word goes out once it is complete: "Något" could still grow into a number word.
    assert stream_guard.feed(". Något") == "399 kr/månad. "
    assert stream_guard.feed(" mer") == "Något "
    assert stream_guard.finish() == "mer"
    assert stream_guard.released == "Premium kostar 399 kr/månad. Något mer"


def test_decimal_point_is_not_a_sentence_end():
    """ "8." followed by "5" is one number, verified as 8,5 only when the sentence ends."""
    stream_guard = guard()
    released = stream_guard.feed("Räntan är 8.") + stream_guard.feed("5 % [kb/terms.md:1].")
    assert released == "Räntan är "
    assert stream_guard.finish() == "8.5 %."
    assert stream_guard.failed is None


def test_first_unsupported_number_stops_the_stream():
    """The failing sentence's number is never sent; later input and finish give nothing."""
    stream_guard = guard()
    released = stream_guard.feed("Premium kostar 399 kr [kb/pricing.md:3]. Basic kostar 49")
    released += stream_guard.feed(" kr [kb/pricing.md:2]. Telefon: 08-123 45 67 [kb/contact.md:1].")
    assert released == "Premium kostar 399 kr. Basic kostar "
    assert stream_guard.failed is not None
    assert stream_guard.failed.text == "49 kr"
    assert stream_guard.reason == "Verification failed: Number mismatch"
    assert stream_guard.feed("Mer text") == ""
    assert stream_guard.finish() == ""


def test_wrong_subject_stops_the_stream():
    """Premium's price said of Basic, citing Premium's line, stops with the subject reason."""
    stream_guard = guard()
    stream_guard.feed("Basic kostar 399 kr/månad [kb/pricing.md:3].")
    stream_guard.finish()
    assert stream_guard.failed is not None
    assert stream_guard.reason == "Verification failed: Wrong subject"
    assert "399" not in stream_guard.released


def test_a_number_without_a_reference_is_withheld():
    """The right value, uncited, is never streamed: "no reference"."""
    stream_guard = guard()
    stream_guard.feed("Premium kostar 399 kr/månad.")
    stream_guard.finish()
    assert stream_guard.failed is not None
    assert stream_guard.failed.reason == "no reference"
    assert "399" not in stream_guard.released


def test_a_reference_to_a_line_that_does_not_state_the_number_is_withheld():
    """Premium's price citing Basic's line is not stated there."""
    stream_guard = guard()
    stream_guard.feed("Premium kostar 399 kr/månad [kb/pricing.md:2].")
    stream_guard.finish()
    assert stream_guard.failed is not None
    assert stream_guard.failed.reason == "not stated by the cited line"
    assert "399" not in stream_guard.released


def test_finish_verifies_the_last_sentence():
    """Text after the last sentence end is checked at finish."""
    ok, bad = guard(), guard()
    ok.feed("Telefonnumret är 08-123 45 67 [kb/contact.md:1]")
    bad.feed("Telefonnumret är 08-999 99 99 [kb/contact.md:1]")
    assert ok.finish() == "08-123 45 67"
    assert bad.finish() == ""
    assert bad.failed is not None


def test_plus_and_minus_wait_with_their_digits():
    """A "+" right before a phone number is held back with it, not sent alone."""
    stream_guard = guard()
    assert stream_guard.feed("Telefon +") == "Telefon "
    assert stream_guard.feed("46 8 123 45 67 [kb/contact.md:1].") == ""
    assert stream_guard.finish() == "+46 8 123 45 67."


def test_a_reference_split_across_deltas_never_reaches_the_text():
    """A "[" waits with the number it follows; the reference is dropped, the number released."""
    stream_guard = guard()
    released = stream_guard.feed("Premium ingår 1 TB [kb/pri")
    released += stream_guard.feed("cing.md:4] lagring.")
    released += stream_guard.finish()
    assert released == "Premium ingår 1 TB lagring."
    assert stream_guard.failed is None


@pytest.mark.parametrize(
    "answer",
    [
        "Premium kostar 399 kr/månad [kb/pricing.md:3] [1].",
        "Premium [1] kostar 399 kr/månad [kb/pricing.md:3].",
        "Premium kostar 399 kr/månad [kb/pricing.md:3] [^2].",
        "Premium kostar 399 kr/månad [kb/pricing.md:3]【1】.",
        "Premium kostar 399 kr/månad [kb/pricing.md:3] [1, 2].",
    ],
)
def test_chunk_markers_are_removed_and_are_never_numbers(answer):
    """ "[1]" beside a reference is neither a number nor text the customer sees."""
    stream_guard, _ = stream(answer, [])
    assert stream_guard.failed is None
    assert stream_guard.released == "Premium kostar 399 kr/månad."
    assert [(link.text, link.fact.line) for link in stream_guard.links] == [("399 kr", 3)]


def test_a_chunk_marker_is_no_reference():
    """A number followed only by a chunk marker carries no reference: withheld."""
    stream_guard, _ = stream("Premium kostar 399 kr/månad [1].", [])
    assert stream_guard.failed is not None
    assert stream_guard.failed.reason == "no reference"
    assert stream_guard.released == "Premium kostar "


def test_the_facts_own_id_is_a_reference_too():
    """``[F:xxxxxxxx]`` names the fact by its id; it is released without it and linked to it."""
    premium = next(
        fact for fact in CitedChecker(SNIPPETS).facts.on_line("kb/pricing.md", 3) if fact.value
    )
    stream_guard, _ = stream(f"Premium kostar 399 kr/månad [{premium.fact_id}].", [20])
    assert stream_guard.failed is None
    assert stream_guard.released == "Premium kostar 399 kr/månad."
    assert [link.fact.fact_id for link in stream_guard.links] == [premium.fact_id]


def test_a_cited_line_that_was_not_retrieved_is_withheld():
    """A line the question did not retrieve (and no card) cannot be cited."""
    retrieved = [SNIPPETS[0]]
    facts = CitedChecker(SNIPPETS).facts  # the KB knows the contact line ...
    stream_guard = GuardedStream(retrieved, facts=facts)  # ... but it was not retrieved
    stream_guard.feed("Telefonnumret är 08-123 45 67 [kb/contact.md:1].")
    stream_guard.finish()
    assert stream_guard.failed is not None
    assert stream_guard.failed.reason == NOT_RETRIEVED
    assert stream_guard.released == "Telefonnumret är "


SENTENCES = [
    "Premium kostar 399 kr/månad [kb/pricing.md:3].",
    "Basic kostar 99 kr i månaden [kb/pricing.md:2]!",
    "Basic kostar 399 kr/månad [kb/pricing.md:3].",
    "Premium ingår 1 TB lagring [kb/pricing.md:4].",
    "Telefon +46 8 123 45 67 [kb/contact.md:1], öppettider vardagar 08:00-17:00 [kb/contact.md:2].",
    "Telefon: 08-999 99 99 [kb/contact.md:1].",
    "Dröjsmålsräntan är 8,5 % [kb/terms.md:1].",
    "Räntan är 12.5 % [kb/terms.md:1].",
    "Hej, hur kan jag hjälpa dig?",
    "Det kostar ca. 99 kr.",
    "Momsen är 25 procent [kb/terms.md:2]",
    "Vi svarar inom 5 dagar [Q].",
    "Premium kostar 399 kr/månad [1].",
    "Basic [1] kostar 99 kr/månad [kb/pricing.md:2] [2].",
    "Tack",
]

answers = st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=6).flatmap(
    lambda parts: st.lists(
        st.sampled_from([" ", "\n", "  "]), min_size=len(parts), max_size=len(parts)
    ).map(lambda gaps: "".join(part + gap for part, gap in zip(parts, gaps, strict=True)))
)


def assert_no_unverified_digit(answer: str, released: str) -> None:
    """``released`` is the answer's start without references, and every digit released lies
    in a sentence whose numbers all verify."""
    checker = CitedChecker(SNIPPETS)
    clean_answer = ""
    for sentence in split_sentences(answer):
        clean, checks = checker.read_sentence(sentence)
        start = len(clean_answer)
        clean_answer += clean
        shown = released[start : len(clean_answer)]
        if any(char.isdecimal() for char in shown):
            assert all(check.unsupported is None for check in checks), (sentence, shown)
    assert clean_answer.startswith(released)


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
    """The stream fails exactly when the cited check rejects, at its first unsupported number;
    a grounded answer is released whole, without its references."""
    cuts = data.draw(st.lists(st.integers(0, len(answer)), max_size=12))
    stream_guard, _ = stream(answer, cuts)
    verdict = verify_cited(answer, SNIPPETS)
    if verdict.grounded:
        assert stream_guard.failed is None
        assert stream_guard.released == strip_references(answer)[0]
    else:
        assert stream_guard.failed == verdict.unsupported[0]
        assert stream_guard.reason == verdict.reason


@given(text=st.text(max_size=120), data=st.data())
def test_arbitrary_text_never_leaks_an_unverified_digit(text, data):
    """Even for arbitrary text and splits, released text never shows an unverified digit."""
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10))
    _, outputs = stream(text, cuts)
    assert_no_unverified_digit(text, "".join(outputs))


CITED = (
    "Premium kostar 399 kr/månad [kb/pricing.md:3] [1] och Basic 99 kr/månad [kb/pricing.md:2]. "
    "Telefon: +46 8 123 45 67 [kb/contact.md:1], "
    "öppettider vardagar 08:00-17:00 [kb/contact.md:2].\n"
    "Dröjsmålsräntan är 8,5 % [kb/terms.md:1]."
)
CITED_LINES = [
    ("399 kr", "kb/pricing.md", 3),
    ("99 kr", "kb/pricing.md", 2),
    ("+46 8 123 45 67", "kb/contact.md", 1),
    ("08:00-17:00", "kb/contact.md", 2),
    ("8,5 %", "kb/terms.md", 1),
]


def assert_released_without_references_and_linked(stream_guard: GuardedStream) -> None:
    released = stream_guard.released
    assert stream_guard.failed is None
    assert released == strip_references(CITED)[0]
    assert "[" not in released
    assert "kb/" not in released
    links = [(link.text, link.fact.file, link.fact.line) for link in stream_guard.links]
    assert links == CITED_LINES
    for link in stream_guard.links:
        assert released[link.start : link.end] == link.text


@pytest.mark.parametrize("cut", range(len(CITED) + 1))
def test_a_cited_answer_split_at_any_point_is_released_without_references(cut):
    """Two deltas, cut anywhere (inside a number, a reference or a marker): the released text is
    the answer without references, and each link points at its number's offsets there."""
    stream_guard, _ = stream(CITED, [cut])
    assert_released_without_references_and_linked(stream_guard)


def test_a_cited_answer_fed_one_character_at_a_time_is_released_without_references():
    stream_guard, _ = stream(CITED, list(range(len(CITED))))
    assert_released_without_references_and_linked(stream_guard)


@given(cuts=st.lists(st.integers(0, len(CITED)), max_size=20))
def test_a_cited_answer_is_released_without_references_whatever_the_split(cuts):
    stream_guard, outputs = stream(CITED, cuts)
    assert all("[" not in output and "【" not in output for output in outputs)
    assert_released_without_references_and_linked(stream_guard)


def test_grounded_answer_is_released_whole_whatever_the_split():
    """A grounded answer split mid-number comes out complete, numbers included."""
    stream_guard, _ = stream(
        "Premium kostar 399 kr/månad [kb/pricing.md:3]. Telefon: 08-123 45 67 [kb/contact.md:1].",
        [3, 20, 31, 50],
    )
    assert stream_guard.failed is None
    assert [c.value for c in extract_claims(stream_guard.released)] == ["399", "+4681234567"]


def test_without_snippets_prose_flows_but_numbers_fail():
    """No snippets: words still stream, the first number stops the stream."""
    stream_guard = GuardedStream([])
    assert stream_guard.feed("Hej! Det kostar ") == "Hej! Det kostar "
    stream_guard.feed("99 kr [kb/pricing.md:2].")
    assert stream_guard.finish() == ""
    assert stream_guard.failed is not None


@pytest.mark.parametrize(
    ("deltas", "expected"),
    [
        # a sentence with a number ends when the next one starts ("kr." may be an abbreviation)
        (["Premium kostar ", "399 kr [kb/pricing.md:3].", " Tack!"], [False, False, True]),
        (["Hej! ", "Välkommen."], [False, False]),  # sentences without one: fed in place
        (["Det kostar 3", "99 kr"], [False, False]),  # a number, no end yet
        (["Det tar tre ", "dagar.\n"], [False, True]),  # held by a number word
    ],
)
def test_numbers_to_check_says_which_feed_verifies_a_number(deltas, expected):
    guard = GuardedStream(SNIPPETS)
    seen = []
    for delta in deltas:
        seen.append(guard.numbers_to_check(delta) > 0)
        guard.feed(delta)
    assert seen == expected


def test_a_sentence_with_numbers_too_long_to_need_is_withheld_unread():
    """Hundreds of numbers in one sentence would cost hundreds of passes over their groups: over
    MAX_SENTENCE_CHARS it is withheld without a check, whether it arrives in pieces or at once."""
    from grounding.guard import MAX_SENTENCE_CHARS, TOO_LONG

    snippets = [Snippet(file="kb/p.md", text="# P\n\n- Basic: 99 kr/mån\n", start_line=1)]
    sentence = ", ".join("Basic kostar 99 kr/mån [p.md:3]" for _ in range(100)) + "."
    assert len(sentence) > MAX_SENTENCE_CHARS
    for deltas in ([sentence], sentence.split(" ")):
        guard = GuardedStream(snippets, question="Vad kostar Basic?")
        released = "".join(guard.feed(d if i == 0 else " " + d) for i, d in enumerate(deltas))
        released += guard.finish()
        assert "99" not in released
        assert guard.failed is not None and guard.failed.reason == TOO_LONG
    short = "Basic kostar 99 kr/mån [p.md:3]."
    guard = GuardedStream(snippets, question="Vad kostar Basic?")
    assert guard.feed(short) + guard.finish() == "Basic kostar 99 kr/mån."


def test_a_withheld_number_is_described_for_the_repair_round_trip():
    """``problem`` names the number as written, its kind and why it failed; none while
    nothing failed."""
    guard = GuardedStream([Snippet("kb/pricing.md", "Premium: 399 kr/månad", 18)])
    assert guard.problem is None

    guard.feed("Premium kostar 499 kr/månad [kb/pricing.md:18].")
    guard.finish()

    assert guard.failed is not None
    assert guard.problem == f'"{guard.failed.text}" ({guard.failed.kind}): {guard.failed.reason}'
    assert "499" in guard.problem


# -- a repair that continues what was shown -------------------------------------

PREMIUM = [Snippet("kb/pricing.md", "Premium: 399 kr/månad", 18)]


def _continue(shown: str, answer: str) -> tuple[ContinuedStream, str]:
    """Stream ``answer`` word by word into a ``ContinuedStream`` after ``shown``."""
    stream = ContinuedStream(GuardedStream(PREMIUM), shown)
    out = "".join(stream.feed(word) for word in re.findall(r"\S+\s*", answer))
    return stream, out + stream.finish()


def test_a_continued_answer_releases_only_what_follows_what_was_shown():
    stream, out = _continue("Premium kostar ", "Premium kostar 399 kr/månad [kb/pricing.md:18].")

    assert out == "399 kr/månad."
    assert stream.accepted and stream.guard.released == "Premium kostar 399 kr/månad."


def test_a_continued_answer_that_rewrites_what_was_shown_stops_and_is_not_accepted():
    stream, out = _continue(
        "Premium kostar ", "Priset för Premium är 399 kr/månad [kb/pricing.md:18]."
    )

    assert out == "" and stream.diverged and stream.stopped and not stream.accepted


def test_a_continued_answer_that_ends_within_what_was_shown_is_not_accepted():
    stream, out = _continue("Premium kostar ", "Premium")

    assert out == "" and not stream.accepted


def test_a_continued_answer_whose_number_fails_is_not_accepted():
    stream, out = _continue("Premium kostar ", "Premium kostar 299 kr/månad [kb/pricing.md:18].")

    assert out == "" and stream.guard.failed is not None and not stream.accepted
