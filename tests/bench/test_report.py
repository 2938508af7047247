"""The bench table: the product on each database beside the floors; a target holds on both."""

from bench.report import latency_rows, load_rows


def loaded(p99: float, cpu_s: float, first_p99: float) -> dict:
    return {
        "extra_per_frame_ms": {"p99": p99},
        "first_stream_ms": {"p99": first_p99},
        "server": {"cpu_turns_s": cpu_s},
        "turns_completed": 2500,
        "error_count": 0,
    }


def rows_of(runs: dict) -> dict:
    return {row.figure: row for row in load_rows(500, runs, 5)}


FLOORS = {"channels floor": loaded(40, 1.0, 200), "websockets floor": loaded(25, 0.5, 80)}


def test_a_target_met_on_sqlite_and_missed_on_postgresql_is_missed():
    rows = rows_of(
        {**FLOORS, "product": loaded(30, 1.5, 300), "product on PostgreSQL": loaded(30, 3.0, 500)}
    )
    cpu = rows["S2 500 clients: server CPU per turn (ms)"]
    assert (cpu.product, cpu.product_pg, cpu.verdict) == ("0.600", "1.200", "MISS")
    assert rows["S2 500 clients: first stream p99 (ms, has 50 ms)"].verdict == "MISS"
    assert rows["S2 500 clients: extra delay/frame p99 (ms)"].verdict == "ok"


def test_without_postgresql_the_column_says_not_run_and_sqlite_decides():
    rows = rows_of({**FLOORS, "product": loaded(30, 1.5, 300)})
    cpu = rows["S2 500 clients: server CPU per turn (ms)"]
    assert (cpu.product_pg, cpu.verdict) == ("n/a", "ok")


def test_one_clients_first_stream_is_shown_apart_from_the_questions_retrieval():
    def latency(p50: float) -> dict:
        return {"first_stream_ms": {"p50": p50, "p99": 2 * p50}, "completed": 500, "turns": 500}

    runs = {
        "product": latency(1.7),
        "product on PostgreSQL": latency(3.0),
        "channels floor": latency(0.4),
        "websockets floor": latency(0.2),
        "retrieval": {"ms": {"p50": 0.3}},
    }
    rows = {row.figure: row for row in latency_rows(runs)}
    apart = rows["S1 first stream p50 less the retrieval (ms)"]
    assert (apart.product, apart.product_pg, apart.verdict) == ("1.40", "2.70", "ok")
    assert rows["S1 the question's retrieval p50 (ms, in process)"].product == "0.300"
    assert rows["S1 turns completed / errors"].verdict == "ok"


def with_memory(run: dict, rest_mb: float, peak_mb: float) -> dict:
    server = {**run["server"], "rss_rest_mb": rest_mb, "rss_peak_mb": peak_mb}
    return {**run, "server": server}


def test_memory_at_rest_and_at_peak_is_held_to_twice_the_channels_floor():
    """Each server's RSS before the clients and at its highest; the product within 2x."""
    floors = {
        "channels floor": with_memory(FLOORS["channels floor"], 60.0, 70.0),
        "websockets floor": with_memory(FLOORS["websockets floor"], 20.0, 25.0),
    }
    rows = rows_of({**floors, "product": with_memory(loaded(30, 1.5, 300), 118.0, 150.0)})
    rest, peak = rows["S2 500 clients: RSS at rest (MB)"], rows["S2 500 clients: RSS peak (MB)"]
    assert (rest.product, rest.channels, rest.websockets, rest.verdict) == (
        "118.0",
        "60.0",
        "20.0",
        "ok",
    )
    assert (peak.product, peak.channels, peak.target, peak.verdict) == (
        "150.0",
        "70.0",
        "<= 2x channels",
        "MISS",
    )


def test_the_audit_writers_memory_is_shown_beside_the_servers_without_a_target():
    product = loaded(30, 1.5, 300)
    product["server"] |= {"children_rss_rest_mb": 110.0, "children_rss_peak_mb": 121.5}
    rows = rows_of({**FLOORS, "product": product})
    helpers = rows["S2 500 clients: RSS of its own processes at rest / peak (MB)"]
    assert (helpers.product, helpers.channels, helpers.target) == ("110.0 / 121.5", "- / -", "")


def test_memory_below_the_target_load_is_shown_without_a_verdict():
    run = with_memory(loaded(30, 1.5, 300), 500.0, 900.0)
    rows = {row.figure: row for row in load_rows(200, {**FLOORS, "product": run}, 5)}
    peak = rows["S2 200 clients: RSS peak (MB)"]
    assert (peak.product, peak.target, peak.verdict) == ("900.0", "", "")


def test_a_cited_answer_check_is_met_under_a_millisecond_and_a_withheld_answer_misses():
    from bench.report import grounding_rows

    fast = {"answer_chars": 76, "numbers": 2, "grounded": True, "ms": {"p50": 0.4, "p99": 0.9}}
    slow = {**fast, "ms": {"p50": 1.5, "p99": 3.0}}
    withheld = {**fast, "grounded": False}
    for check, expected in ((fast, "ok"), (slow, "MISS"), (withheld, "MISS")):
        rows = grounding_rows({"cited_check": {"restated": check, "mock": fast}})
        first = rows[0]
        assert first.figure.startswith("S3 cited answer check p50, restated retrieved lines")
        assert first.verdict == expected, (check, first)
    assert grounding_rows({"cited_check": {"restated": withheld}})[0].product == "withheld"
