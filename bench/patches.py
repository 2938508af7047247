"""Each server patch measured on and off: ``python -m bench --patches GC_TUNING,...``.

Scenario 2 against the product alone (no floors), at one client count, with
one patch's setting on or off and everything else at its default. The runs
are interleaved (round 1: A B, round 2: B A, ...; every patch inside each
round), so a busy moment of the shared machine falls on both sides alike.
Reported per patch: every round's p99 extra delay per frame and server CPU
for the turns, and the median of each side. A patch is worth keeping when
it improves the median p99 or the median CPU by at least 10%.
"""

import statistics
from functools import partial

from bench import report
from bench.servers import PRODUCT, Workspace, serve

KEEP_THRESHOLD = 0.10


def patch_runs(ws: Workspace, args, load_run, measured, log) -> dict:
    """``{patch: {"on": [run, ...], "off": [run, ...]}}``, interleaved rounds."""
    patches = [name.strip() for name in args.patches.split(",") if name.strip()]
    clients = args.client_counts[-1]
    runs = {name: {"on": [], "off": []} for name in patches}
    for number in range(args.repeat):
        order = ("on", "off") if number % 2 == 0 else ("off", "on")
        for name in patches:
            for side in order:
                log(f"patches: {name}={side}, {clients} clients (round {number + 1}/{args.repeat})")
                value = "1" if side == "on" else "0"
                with serve(PRODUCT, ws, delay_ms=args.delay_ms, settings={name: value}) as server:
                    run = measured(
                        server,
                        partial(load_run, server, clients, args.turns, args.delay_ms, ws.root),
                    )
                runs[name][side].append(_figures(run))
                log(f"  {runs[name][side][-1]}")
    return {"clients": clients, "rounds": args.repeat, "patches": _summaries(runs)}


def _figures(run: dict) -> dict:
    server = run.get("server", {})
    return {
        "p99_extra_ms": report.p99_extra(run),
        "cpu_turns_s": server.get("cpu_turns_s"),
        "cpu_turns_loop_thread_s": server.get("cpu_turns_loop_thread_s"),
        "failed": bool(run.get("failed")),
    }


def _median(runs: list[dict], key: str) -> float | None:
    values = [run[key] for run in runs if run.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def _summaries(runs: dict) -> dict:
    summaries = {}
    for name, sides in runs.items():
        summary = {"rounds": sides}
        for key in ("p99_extra_ms", "cpu_turns_s"):
            on, off = _median(sides["on"], key), _median(sides["off"], key)
            summary[key] = {"on": on, "off": off}
            summary[key]["gain"] = round(1 - on / off, 3) if on is not None and off else None
        summary["keep"] = any(
            (summary[key]["gain"] or 0) >= KEEP_THRESHOLD for key in ("p99_extra_ms", "cpu_turns_s")
        )
        summaries[name] = summary
    return summaries


def table(result: dict) -> str:
    """docs/performance.md's table: median p99 and CPU on/off per patch, every round alongside."""
    lines = [
        f"{result['clients']} clients, {result['rounds']} interleaved rounds (median):",
        "| patch | p99 extra on / off (ms) | gain | server CPU on / off (s) | gain | keep |",
        "|---|---|---|---|---|---|",
    ]
    for name, summary in result["patches"].items():
        p99, cpu = summary["p99_extra_ms"], summary["cpu_turns_s"]
        keep = "yes" if summary["keep"] else "no"
        lines.append(
            f"| {name} | {p99['on']} / {p99['off']} | {_pct(p99['gain'])} "
            f"| {cpu['on']} / {cpu['off']} | {_pct(cpu['gain'])} | {keep} |"
        )
    lines.append("")
    lines.append("Every round (p99 ms, CPU s):")
    for name, summary in result["patches"].items():
        for side in ("on", "off"):
            rounds = ", ".join(
                f"{r['p99_extra_ms']}/{r['cpu_turns_s']}" for r in summary["rounds"][side]
            )
            lines.append(f"- {name} {side}: {rounds}")
    return "\n".join(lines)


def _pct(gain: float | None) -> str:
    return "n/a" if gain is None else f"{gain * 100:+.0f}%"
