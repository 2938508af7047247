"""Repeated load rounds: the median run stands for each server, every round is shown."""

from bench.__main__ import median_run
from bench.report import load_rows


def run(p99: float | None, name: str) -> dict:
    if p99 is None:
        return {"failed": "boom", "name": name}
    return {"extra_per_frame_ms": {"p99": float(p99)}, "name": name}


def test_the_run_with_the_median_p99_stands_for_the_rounds():
    """Three rounds: the middle p99's run, with every round's p99 kept."""
    chosen = median_run([run(150, "a"), run(90, "b"), run(120, "c")])
    assert chosen["name"] == "c"
    assert chosen["p99_runs"] == [150, 90, 120]


def test_a_failed_round_is_what_is_reported():
    """A failure is never hidden behind a good median."""
    assert median_run([run(50, "a"), run(None, "b"), run(60, "c")])["name"] == "b"


def test_a_single_run_is_reported_as_it_is():
    """One round: the run itself, no list of rounds."""
    assert median_run([run(70, "a")]) == run(70, "a")


def test_the_table_lists_each_rounds_p99_under_the_median():
    """The target row uses the medians; the next row shows the rounds."""
    runs = {
        "product": median_run([run(150, "a"), run(90, "b"), run(120, "c")]),
        "channels floor": median_run([run(70, "a"), run(60, "b"), run(65, "c")]),
        "websockets floor": median_run([run(40, "a"), run(45, "b"), run(50, "c")]),
    }
    rows = {row.figure: row for row in load_rows(500, runs, 5)}
    target = rows["S2 500 clients: extra delay/frame p99 (ms)"]
    assert (target.product, target.channels, target.websockets) == ("120.00", "65.00", "45.00")
    assert target.verdict == "MISS"
    rounds = rows["S2 500 clients: p99 of the 3 rounds (ms)"]
    shown = (rounds.product, rounds.channels, rounds.websockets)
    assert shown == ("150/90/120", "70/60/65", "40/45/50")
