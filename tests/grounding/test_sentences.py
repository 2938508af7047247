"""Where an answer's sentences end (grounding/sentences.py): the guard's and the checker's unit."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding.sentences import (
    _ABBREVIATIONS,
    _is_abbreviation,
    _word_start,
    find_sentence_end,
    split_sentences,
)


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Det kostar 12.5 kr. Ring oss!", ["Det kostar 12.5 kr.", " Ring oss!"]),
        ("Ca. 5 kr per st.\nNästa rad", ["Ca. 5 kr per st.\n", "Nästa rad"]),
        ("Slut.", ["Slut."]),
        ("Vad kostar det? 99 kr", ["Vad kostar det?", " 99 kr"]),
    ],
)
def test_split_sentences(text, sentences):
    """Sentences end at .!? before whitespace or at a newline, not in 12.5 or after "ca."."""
    assert split_sentences(text) == sentences


@given(st.text(alphabet="ab .\n\t(1", max_size=60), st.integers(0, 60))
def test_word_start_is_where_the_run_of_non_spaces_starts(text, end):
    """``_word_start`` agrees with walking back one character at a time."""
    end = min(end, len(text))
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    assert _word_start(text, end) == start


@given(
    st.lists(
        st.sampled_from(["ca", "Ca", ".", " ", "\n", "t.ex", "2", "12", "kl", "org.nr", "(", "x"]),
        max_size=10,
    ).map("".join)
)
def test_is_abbreviation_by_its_definition(text):
    """A dot ends an abbreviation when the word it ends is one, or a list item's number."""
    for dot in (index for index, char in enumerate(text) if char == "."):
        word = text[_word_start(text, dot) : dot + 1]
        list_item = word[:-1].isdigit() and text[: dot - len(word) + 1][-1:] in ("", "\n")
        expected = list_item or word.lstrip("([\"'“”‘’").lower() in _ABBREVIATIONS
        assert _is_abbreviation(text, dot) == expected


@given(st.text(alphabet="ab .!?\n1", max_size=40))
def test_the_sentences_join_back_to_the_text_and_each_ends_where_find_says(text):
    pieces = split_sentences(text)
    assert "".join(pieces) == text
    start = 0
    for piece in pieces[:-1]:
        end, _ = find_sentence_end(text, start)
        assert end == start + len(piece)
        start = end
