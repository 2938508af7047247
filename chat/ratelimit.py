"""Per-connection rate limit: at most ``count`` commands per ``seconds``."""

import time
from collections import deque
from dataclasses import dataclass, field


def parse_rate(value: str) -> tuple[int, float] | None:
    """``"20/10"`` -> ``(20, 10.0)``; ``"0"`` or empty -> None (no limit)."""
    value = (value or "").strip()
    if value in ("", "0"):
        return None
    count, _, seconds = value.partition("/")
    parsed = (int(count), float(seconds or 1))
    if parsed[0] <= 0 or parsed[1] <= 0:
        return None
    return parsed


@dataclass
class SlidingWindowLimiter:
    count: int
    seconds: float
    clock: callable = time.monotonic
    _hits: deque = field(default_factory=deque)

    def allow(self) -> bool:
        """Record one hit and say whether it is within the limit."""
        now = self.clock()
        hits = self._hits
        while hits and now - hits[0] >= self.seconds:
            hits.popleft()
        if len(hits) >= self.count:
            return False
        hits.append(now)
        return True


class Unlimited:
    def allow(self) -> bool:
        return True


def limiter_from_setting(value: str) -> SlidingWindowLimiter | Unlimited:
    rate = parse_rate(value)
    return Unlimited() if rate is None else SlidingWindowLimiter(*rate)
