"""Grouping unanswered questions by their search terms (pure)."""

import datetime as dt

from chat.gaps import gaps_by_terms

T0 = dt.datetime(2026, 11, 20, 12, tzinfo=dt.UTC)


def row(question: str, status: str = "withheld", minutes: int = 0) -> dict:
    return {
        "question": question,
        "status": status,
        "created_at": T0 + dt.timedelta(minutes=minutes),
    }


def test_word_order_and_stop_words_do_not_split_a_gap():
    """The same search terms in another order, with other stop words, are one gap."""
    [gap] = gaps_by_terms([row("Vad kostar premium?"), row("premium, vad kostar det", minutes=5)])
    assert gap.count == 2
    assert gap.last_asked == T0 + dt.timedelta(minutes=5)
    assert gap.examples == ["Vad kostar premium?", "premium, vad kostar det"]


def test_most_asked_first_then_most_recent_with_status_counts():
    """Groups are ordered by count, then recency; withheld and no-support are counted apart."""
    gaps = gaps_by_terms(
        [
            row("Kontor i Oslo?", "no_support", minutes=1),
            row("Vad kostar premium?"),
            row("Vad kostar premium?", "no_support", minutes=2),
            row("Öppettider på juldagen?", minutes=3),
        ]
    )
    assert [g.count for g in gaps] == [2, 1, 1]
    assert (gaps[0].withheld, gaps[0].no_support) == (1, 1)
    assert "oslo" not in gaps[1].label and "oslo" in gaps[2].label
