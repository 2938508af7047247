"""Percentiles of timings, in milliseconds."""

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100) by linear interpolation; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary_ms(seconds: Sequence[float]) -> dict:
    """Count, p50, p90, p99, max and mean of timings given in seconds, in ms."""
    if not seconds:
        return {"n": 0, "p50": None, "p90": None, "p99": None, "max": None, "mean": None}
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50": round(percentile(ms, 50), 3),
        "p90": round(percentile(ms, 90), 3),
        "p99": round(percentile(ms, 99), 3),
        "max": round(max(ms), 3),
        "mean": round(sum(ms) / len(ms), 3),
    }
