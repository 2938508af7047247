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
