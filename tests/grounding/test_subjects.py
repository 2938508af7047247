"""The KB's subject vocabulary and finding subjects in text."""

import re
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from grounding import subjects
from grounding.subjects import (
    clause_bounds,
    clauses,
    find_subjects,
    kb_subjects,
    segment_bounds,
    subjects_named,
)

PRICING = """---
title: Priser
keywords: pris, kostar
---
# Priser och abonnemang

## Priser

- Basic: 99 kr/månad
- **Premium**: 399 kr/månad
- Premium ingår 1 TB lagring
- Premium årsvis: 3 990 kr/år
- Från 50 användare: 10 % rabatt

Moms 25 % ingår.

| Tjänst | Pris |
|---|---|
| Extra lagring | 49 kr |

Observera: om du vill säga upp ditt abonnemang gäller följande regler:
"""

VOCABULARY = kb_subjects([PRICING])


def test_vocabulary_comes_from_labels_bold_table_cells_and_headings():
    """List labels, bold labels, first table cells and headings become lowercase subjects."""
    assert {"basic", "premium", "premium årsvis", "extra lagring", "priser och abonnemang"} <= (
        VOCABULARY
    )


def test_vocabulary_skips_generic_words_digits_long_phrases_and_front_matter():
    """Generic labels, labels with digits, sentences and front matter keys are no subjects."""
    for term in ("priser", "pris", "tjänst", "från 50 användare", "title", "keywords"):
        assert term not in VOCABULARY
    assert not any("säga upp" in term for term in VOCABULARY)
    assert not any(char.isdigit() for term in VOCABULARY for char in term)


def test_plain_prose_lines_give_no_subjects():
    """A line without a label, bold text, table or heading adds nothing."""
    assert kb_subjects(["Moms 25 % ingår i alla priser.", "Ring 08:00 eller senare."]) == (
        frozenset()
    )


def test_find_subjects_tolerates_swedish_endings_and_hyphen_compounds():
    """ "Premiums", "Basic-planen", "Premiumen" and any letter case name the same subject."""
    text = "Premiums pris, Basic-planen och PREMIUMEN"
    assert [mention.term for mention in find_subjects(text, VOCABULARY)] == [
        "premium",
        "basic",
        "premium",
    ]


def test_find_subjects_needs_word_boundaries():
    """A subject inside another word ("Premiumkund", "superbasic") is not a mention."""
    assert find_subjects("Premiumkund och superbasic", VOCABULARY) == []


def test_longest_term_wins_and_inner_words_take_endings():
    """ "Premium årsvis" is one mention; "Extra lagringen" still names "extra lagring"."""
    mentions = find_subjects("Premium årsvis och extra lagringen", VOCABULARY)
    assert [mention.term for mention in mentions] == ["premium årsvis", "extra lagring"]


def test_subjects_named_includes_terms_inside_longer_terms():
    """A line about "Premium årsvis" is also about "Premium"."""
    assert subjects_named("- Premium årsvis: 3 990 kr/år", VOCABULARY) == {
        "premium årsvis",
        "premium",
    }


def test_clause_bounds_split_at_commas_conjunctions_not_inside_numbers_or_subjects():
    """Clauses end at ", " and "och", not at "12,5" nor inside a subject like "basic och x"."""
    text = "Basic kostar 12,5 kr, och Premium 399 kr"
    assert text[slice(*clause_bounds(text, text.index("12,5")))] == "Basic kostar 12,5 kr"
    assert text[slice(*clause_bounds(text, text.index("399")))] == "Premium 399 kr"
    vocabulary = kb_subjects(["- Basic och Standard: 99,5 %"])
    line = "Basic och Standard har 99,5 %"
    mentions = find_subjects(line, vocabulary)
    assert line[slice(*clause_bounds(line, line.index("99"), mentions))] == line


def test_segment_bounds_split_only_where_a_new_label_starts():
    """ "Basic: 99 kr, Premium: 399 kr" is two segments; a shared label keeps one."""
    line = "- Basic: 99 kr, Premium: 399 kr"
    assert line[slice(*segment_bounds(line, line.index("399")))] == "Premium: 399 kr"
    shared = "- Papperskorg för Basic och Standard: raderade filer sparas i 30 dagar"
    assert segment_bounds(shared, shared.index("30")) == (0, len(shared))


@given(st.text(max_size=200))
def test_find_subjects_returns_ordered_mentions_of_known_terms(text):
    """Mentions are in order, inside the text, and always vocabulary terms."""
    previous_end = 0
    for mention in find_subjects(text, VOCABULARY):
        assert previous_end <= mention.start < mention.end <= len(text)
        assert mention.term in VOCABULARY
        previous_end = mention.end


@given(st.lists(st.text(max_size=80), max_size=5))
def test_kb_subjects_never_yields_digits_or_uppercase(texts):
    """Whatever the markdown, subjects are lowercase, digit-free and non-trivial."""
    for term in kb_subjects(texts):
        assert term == term.lower()
        assert not any(char.isdigit() for char in term)
        assert len(term) >= 2


# Term words, endings, separators and letters whose case is special.
subject_soup = st.lists(
    st.sampled_from(
        [
            *("Basic", "basic", "PREMIUM", "Premium", "årsvis", "Årsvis", "extra", "lagring"),
            *("planen", "s", "'s", ":en", "-", " ", "\u00a0", "\n", ",", "_", "2", "x", "İ", "ß"),
            *("ſ", "K", " och ", ";", "("),
        ]
    ),
    max_size=12,
).map("".join)


@given(st.one_of(subject_soup, st.text(max_size=80)))
def test_the_first_word_finder_misses_no_term(text):
    """Jumping to where a term's first word starts finds what trying every word finds."""
    every_word = re.compile(r"(?<![^\W\d_])[^\W\d_]")
    with mock.patch.object(subjects, "_first_word_finder", lambda vocabulary: every_word):
        at_every_word = find_subjects(text, VOCABULARY)
    assert find_subjects(text, VOCABULARY) == at_every_word


@given(subject_soup)
def test_clauses_break_only_outside_mentions(text):
    """Clauses are cut at every break that lies outside all mentions, and nowhere else."""
    mentions = find_subjects(text, VOCABULARY)
    breaks = [
        match
        for match in subjects._CLAUSE_BREAK.finditer(text)
        if not any(m.start <= match.start() < m.end for m in mentions)
    ]
    starts = [0] + [match.end() for match in breaks]
    ends = [match.start() for match in breaks] + [len(text)]
    assert clauses(text, mentions) == list(zip(starts, ends, strict=True))
