"""The per-connection sliding-window limiter."""

from chat.ratelimit import SlidingWindowLimiter, Unlimited, limiter_from_setting, parse_rate


def test_parse_rate():
    """'20/10' means 20 per 10 seconds; '0' and '' turn the limit off."""
    assert parse_rate("20/10") == (20, 10.0)
    assert parse_rate("5") == (5, 1.0)
    assert parse_rate("0") is None
    assert parse_rate("") is None


def test_window_refuses_past_count_and_recovers():
    """The 4th hit within the window is refused; after the window it is allowed again."""
    now = [0.0]
    limiter = SlidingWindowLimiter(3, 10, clock=lambda: now[0])
    assert [limiter.allow() for _ in range(4)] == [True, True, True, False]
    now[0] = 10.0
    assert limiter.allow() is True


def test_zero_setting_is_unlimited():
    """WS_RATE_LIMIT=0 never refuses."""
    limiter = limiter_from_setting("0")
    assert isinstance(limiter, Unlimited)
    assert all(limiter.allow() for _ in range(1000))
