"""The benchmark table: every figure beside its target and both floors.

The product has a column per database it ran on (SQLite always, PostgreSQL with
``--postgres``); a target holds only where it holds on each of them.
"""

from dataclasses import asdict, dataclass

from bench.servers import CHANNELS_FLOOR, PRODUCT, PRODUCT_PG, WEBSOCKETS_FLOOR

NA = "n/a"
TARGET_LOAD_CLIENTS = 500  # where the product is held to the floors
TARGET_IDLE_CLIENTS = 1000  # where idle memory is held to 150 MB
COMPLETE_AT = (500, 1000)  # where every turn must complete with no error


@dataclass
class Row:
    figure: str
    target: str = ""
    product: str = ""
    product_pg: str = NA
    channels: str = NA
    websockets: str = NA
    verdict: str = ""  # "ok", "MISS" or "" (no target)

    def as_dict(self) -> dict:
        return asdict(self)


def fmt(value, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def verdict(ok: bool | None) -> str:
    return "" if ok is None else ("ok" if ok else "MISS")


PRODUCTS = (PRODUCT, PRODUCT_PG)


def on_every_product(runs: dict, check) -> bool | None:
    """``check(product_kind)`` on each product that ran: False if any fails, None if none
    could be judged."""
    results = [check(kind) for kind in PRODUCTS if kind in runs]
    results = [r for r in results if r is not None]
    return None if not results else all(results)


def _get(result: dict | None, *path):
    for key in path:
        if result is None:
            return None
        result = result.get(key)
    return result


def _by_kind(runs: dict, *path, digits: int = 2) -> dict:
    return {
        "product": fmt(_get(runs.get(PRODUCT), *path), digits),
        "product_pg": fmt(_get(runs.get(PRODUCT_PG), *path), digits) if PRODUCT_PG in runs else NA,
        "channels": fmt(_get(runs.get(CHANNELS_FLOOR), *path), digits),
        "websockets": fmt(_get(runs.get(WEBSOCKETS_FLOOR), *path), digits),
    }


_COLUMNS = (
    ("product", PRODUCT),
    ("product_pg", PRODUCT_PG),
    ("channels", CHANNELS_FLOOR),
    ("websockets", WEBSOCKETS_FLOOR),
)


def _each_kind(runs: dict, cell) -> dict:
    """``cell(kind)`` for each server that ran, ``n/a`` for the others, by column."""
    return {col: cell(kind) if kind in runs else NA for col, kind in _COLUMNS}


def latency_rows(runs: dict) -> list[Row]:
    rows = []
    for label, path, limit in (
        ("first stream p50 (ms)", ("first_stream_ms", "p50"), 5),
        ("first stream p99 (ms)", ("first_stream_ms", "p99"), 15),
        ("response p50 (ms)", ("response_ms", "p50"), None),
        ("response p99 (ms)", ("response_ms", "p99"), None),
    ):
        # Scenario 1's targets are the default deployment's (SQLite); PostgreSQL is shown.
        value = _get(runs.get(PRODUCT), *path)
        ok = None if limit is None or value is None else value <= limit
        rows.append(
            Row(
                f"S1 1 client, delay 0: {label}",
                f"<= {limit} on SQLite" if limit else "",
                **_by_kind(runs, *path),
                verdict=verdict(ok),
            )
        )
    rows += _apart_from_retrieval_rows(runs)
    errors = {k: _get(runs.get(k), "errors") for k in runs if k != "retrieval"}
    rows.append(
        Row(
            "S1 turns completed / errors",
            "all / 0",
            **_each_kind(
                runs,
                lambda kind: (
                    f"{_get(runs.get(kind), 'completed')} / {sum((errors[kind] or {}).values())}"
                ),
            ),
            verdict=verdict(
                on_every_product(
                    runs,
                    lambda kind: (
                        _get(runs.get(kind), "completed") == _get(runs.get(kind), "turns")
                        and not errors.get(kind)
                    ),
                )
            ),
        )
    )
    return rows


# Issue 23: one client's first stream, less its question's retrieval, on SQLite.
APART_FROM_RETRIEVAL_MS = 1.5


def _apart_from_retrieval_rows(runs: dict) -> list[Row]:
    """The question's retrieval (in process), and S1's first stream p50 less it."""
    retrieval = _get(runs, "retrieval", "ms", "p50")
    if retrieval is None:
        return []

    def less(kind: str) -> str:
        first = _get(runs.get(kind), "first_stream_ms", "p50")
        return NA if first is None else fmt(first - retrieval)

    sqlite_first = _get(runs.get(PRODUCT), "first_stream_ms", "p50")
    return [
        Row(
            "S1 the question's retrieval p50 (ms, in process)",
            product=fmt(retrieval, 3),
            product_pg=fmt(retrieval, 3) if PRODUCT_PG in runs else NA,
        ),
        Row(
            "S1 first stream p50 less the retrieval (ms)",
            f"<= {APART_FROM_RETRIEVAL_MS} on SQLite",
            product=less(PRODUCT),
            product_pg=less(PRODUCT_PG) if PRODUCT_PG in runs else NA,
            verdict=verdict(
                None
                if sqlite_first is None
                else sqlite_first - retrieval <= APART_FROM_RETRIEVAL_MS
            ),
        ),
    ]


def p99_extra(run: dict | None) -> float | None:
    """A load run's p99 extra delay per frame (ms), None for a failed run."""
    return _get(run, "extra_per_frame_ms", "p99")


def _floors_ok(runs: dict) -> bool | None:
    return on_every_product(runs, lambda kind: _floors_ok_for(runs, kind))


def _floors_ok_for(runs: dict, kind: str) -> bool | None:
    product = p99_extra(runs.get(kind))
    channels = p99_extra(runs.get(CHANNELS_FLOOR))
    plain = p99_extra(runs.get(WEBSOCKETS_FLOOR))
    if None in (product, channels, plain):
        return None
    return product <= channels and product <= 2 * plain


def load_rows(clients: int, runs: dict, turns: int) -> list[Row]:
    tag = f"S2 {clients} clients:"
    product = runs.get(PRODUCT) or {}
    held = clients == TARGET_LOAD_CLIENTS
    complete = clients in COMPLETE_AT
    rows = [
        Row(f"{tag} extra delay/frame p50 (ms)", **_by_kind(runs, "extra_per_frame_ms", "p50")),
        Row(
            f"{tag} extra delay/frame p99 (ms)",
            "<= channels, <= 2x websockets" if held else "",
            **_by_kind(runs, "extra_per_frame_ms", "p99"),
            verdict=verdict(_floors_ok(runs)) if held else "",
        ),
        *_round_rows(tag, runs),
        Row(f"{tag} first stream p50 (ms, has 50 ms)", **_by_kind(runs, "first_stream_ms", "p50")),
        Row(
            f"{tag} first stream p99 (ms, has 50 ms)",
            "<= 2x channels" if held else "",
            **_by_kind(runs, "first_stream_ms", "p99"),
            verdict=verdict(_within_twice_channels(runs, "first_stream_ms", "p99")) if held else "",
        ),
        Row(
            f"{tag} turns completed",
            f"= {clients * turns}" if complete else "",
            **_by_kind(runs, "turns_completed"),
            verdict=verdict(
                on_every_product(
                    runs, lambda kind: _get(runs.get(kind), "turns_completed") == clients * turns
                )
            )
            if complete
            else "",
        ),
        Row(
            f"{tag} errors",
            "0" if complete else "",
            **_by_kind(runs, "error_count"),
            verdict=verdict(
                on_every_product(runs, lambda kind: _get(runs.get(kind), "error_count") == 0)
            )
            if complete
            else "",
        ),
        Row(f"{tag} connect all (s)", **_by_kind(runs, "connect_s")),
        Row(
            f"{tag} RSS added by idle conns (MB)",
            "<= 150" if clients == TARGET_IDLE_CLIENTS else "",
            **_by_kind(runs, "server", "idle_added_mb", digits=1),
            verdict=verdict(_get(product, "server", "idle_added_mb") <= 150)
            if clients == TARGET_IDLE_CLIENTS
            and _get(product, "server", "idle_added_mb") is not None
            else "",
        ),
        *_memory_rows(tag, runs, held),
        Row(f"{tag} server CPU in turns (s)", **_by_kind(runs, "server", "cpu_turns_s")),
        Row(
            f"{tag} server CPU per turn (ms)",
            "<= 2x channels" if held else "",
            **_each_kind(
                runs, lambda kind: fmt(_cpu_per_turn_ms(runs.get(kind), clients * turns), 3)
            ),
            verdict=verdict(_cpu_per_turn_ok(runs, clients * turns)) if held else "",
        ),
        Row(
            f"{tag} of which event-loop thread (s)",
            **_by_kind(runs, "server", "cpu_turns_loop_thread_s"),
        ),
        Row(f"{tag} server CPU (% of 1 core)", **_by_kind(runs, "server", "cpu_pct", digits=0)),
        Row(f"{tag} turns wall time (s)", **_by_kind(runs, "wall_s")),
    ]
    return rows


def _memory_rows(tag: str, runs: dict, held: bool) -> list[Row]:
    """The server process's resident memory before the clients connect and at its highest
    while the turns ran, beside the floors'; then its own processes' (the audit writer)."""
    held_rows = [
        Row(
            f"{tag} {label} (MB)",
            "<= 2x channels" if held else "",
            **_by_kind(runs, "server", key, digits=1),
            verdict=verdict(_within_twice_channels(runs, "server", key)) if held else "",
        )
        for label, key in (("RSS at rest", "rss_rest_mb"), ("RSS peak", "rss_peak_mb"))
    ]
    return [
        *held_rows,
        Row(
            f"{tag} RSS of its own processes at rest / peak (MB)",
            **_each_kind(runs, lambda kind: _rest_and_peak(runs.get(kind))),
        ),
    ]


def _rest_and_peak(run: dict | None) -> str:
    rest, peak = (
        _get(run, "server", "children_rss_rest_mb"),
        _get(run, "server", "children_rss_peak_mb"),
    )
    return f"{fmt(rest, 1)} / {fmt(peak, 1)}"


def _within_twice_channels(runs: dict, *path) -> bool | None:
    channels = _get(runs.get(CHANNELS_FLOOR), *path)

    def held(kind: str) -> bool | None:
        product = _get(runs.get(kind), *path)
        return None if product is None or channels is None else product <= 2 * channels

    return on_every_product(runs, held)


def _cpu_per_turn_ms(run: dict | None, turns: int) -> float | None:
    cpu = _get(run, "server", "cpu_turns_s")
    return None if cpu is None or not turns else cpu / turns * 1000


def _cpu_per_turn_ok(runs: dict, turns: int) -> bool | None:
    channels = _cpu_per_turn_ms(runs.get(CHANNELS_FLOOR), turns)

    def held(kind: str) -> bool | None:
        product = _cpu_per_turn_ms(runs.get(kind), turns)
        return None if product is None or channels is None else product <= 2 * channels

    return on_every_product(runs, held)


def _round_rows(tag: str, runs: dict) -> list[Row]:
    """With several rounds: each round's p99, the row above being their median."""
    kinds = (PRODUCT, PRODUCT_PG, CHANNELS_FLOOR, WEBSOCKETS_FLOOR)
    rounds = {kind: (runs.get(kind) or {}).get("p99_runs") for kind in kinds}
    if not any(rounds.values()):
        return []

    def joined(values) -> str:
        return "/".join(fmt(v, 0) for v in values) if values else NA

    count = max(len(v) for v in rounds.values() if v)
    return [
        Row(
            f"{tag} p99 of the {count} rounds (ms)",
            product=joined(rounds[PRODUCT]),
            product_pg=joined(rounds[PRODUCT_PG]) if PRODUCT_PG in runs else NA,
            channels=joined(rounds[CHANNELS_FLOOR]),
            websockets=joined(rounds[WEBSOCKETS_FLOOR]),
        )
    ]


def grounding_rows(result: dict) -> list[Row]:
    checks = result.get("cited_check", {})
    retrieval = result.get("retrieval", {})
    reindex = result.get("reindex", {})
    seconds = reindex.get("seconds", {})

    def row(figure, target, value, limit, digits=3):
        ok = None if limit is None or value is None else value <= limit
        return Row(figure, target, fmt(value, digits), verdict=verdict(ok))

    def cited_rows(name: str, label: str) -> list[Row]:
        check = checks.get(name, {})
        grounded = check.get("grounded")
        p50 = _get(check, "ms", "p50")
        shape = f"{label}, {check.get('answer_chars')} chars, {check.get('numbers')} numbers"
        first = row(f"S3 cited answer check p50, {shape} (ms)", "<= 1", p50, 1)
        if grounded is False:  # the check of a grounded answer is the figure: a withheld one misses
            first = Row(first.figure, first.target, "withheld", verdict=verdict(False))
        return [
            first,
            row(f"S3 cited answer check p99, {label} (ms)", "", _get(check, "ms", "p99"), None),
        ]

    chunks, files = retrieval.get("chunks"), reindex.get("files")
    return [
        *cited_rows("restated", "restated retrieved lines"),
        *cited_rows("mock", "the mock's answer"),
        row(f"S3 retrieval p50, {chunks} chunks (ms)", "<= 20", _get(retrieval, "ms", "p50"), 20),
        row("S3 retrieval p99 (ms)", "", _get(retrieval, "ms", "p99"), None),
        row(f"S3 index build, {chunks} chunks (s)", "", retrieval.get("index_build_s"), None),
        row(f"S3 reindex_kb cold, {files} files (s)", "<= 60", seconds.get("cold"), 60),
        row("S3 reindex_kb unchanged (s)", "<= 1", seconds.get("unchanged"), 1),
        row("S3 reindex_kb cold, command line (s)", "", seconds.get("cold_command_line"), None),
        row(
            "S3 reindex_kb unchanged, command line (s)",
            "",
            seconds.get("unchanged_command_line"),
            None,
        ),
    ]


def actions_rows(result: dict) -> list[Row]:
    rows = []
    for mode, label in (("distinct", "distinct suggestions"), ("shared", "one suggestion")):
        run = result.get(mode)
        if not run:
            continue
        confirms = run.get("confirms", 0)
        outcomes = run.get("outcomes", {})
        if mode == "distinct":
            target = f"{confirms} executed"
            ok = outcomes == {"executed": confirms} and not run.get("error_count")
        else:
            target = f"1 executed, {confirms - 1} ignored"
            ok = outcomes == {"executed": 1, "ignored": confirms - 1} and not run.get("error_count")
        shown = ", ".join(f"{v} {k}" for k, v in sorted(outcomes.items())) or run.get("error", "")
        if run.get("error_count"):
            shown += f", {run['error_count']} errors"
        tag = f"S4 {confirms} confirms, {label}:"
        rows += [
            Row(f"{tag} outcome", target, shown, verdict=verdict(ok)),
            Row(f"{tag} p50 (ms)", "", fmt(_get(run, "confirm_ms", "p50"))),
            Row(f"{tag} p99 (ms)", "", fmt(_get(run, "confirm_ms", "p99"))),
        ]
    return rows


COLUMNS = (
    ("figure", "figure", 50),
    ("target", "target", 30),
    ("product", "product", 14),
    ("product_pg", "on PostgreSQL", 14),
    ("channels", "channels floor", 14),
    ("websockets", "websockets floor", 16),
    ("verdict", "", 4),
)


def table(rows: list[Row]) -> str:
    def line(values) -> str:
        return "  ".join(
            str(v).ljust(w) if i < 2 else str(v).rjust(w)
            for i, (v, (_, _, w)) in enumerate(zip(values, COLUMNS, strict=True))
        ).rstrip()

    header = line(title for _, title, _ in COLUMNS)
    out = [header, "-" * len(header)]
    for row in rows:
        out.append(line(getattr(row, key) for key, _, _ in COLUMNS))
    return "\n".join(out)
