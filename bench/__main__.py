"""``make bench``: the benchmark suite, measured against two floors in one run.

    make bench                                      # everything, on SQLite and PostgreSQL
    make bench BENCH_POSTGRES=                      # SQLite only
    make bench ARGS="--quick"                       # small counts, a smoke run
    make bench ARGS="--scenario 2 --clients 500"
    make bench ARGS="--profile 500"                 # also cProfile product and floor at 500

Starts every server itself on loopback (the product as ``make run`` does,
against a throwaway SQLite database, and with ``--postgres`` once more against
a throwaway PostgreSQL database; the bare Channels floor on the same daphne;
the plain ``websockets`` floor) and drives them from a separate client process
(``bench.client``). ``make bench`` passes the local PostgreSQL server when one
answers. Scenarios:

1. latency: one client, token delay 0, time to the first ``stream`` and to ``response``,
   and apart from it the question's retrieval (``bench.scenarios.question``);
2. load: N clients connected first, then 5 turns each at once with a 50 ms token delay;
3. grounding microbenchmarks (``bench.scenarios.grounding``, no server);
4. actions: concurrent confirms of distinct suggestions, and of one suggestion.

Prints a table (every figure beside its target and both floors) and writes
JSON (``--out``). The machine is shared: numbers are noisy, the load
average at start and end (and before each run) is in the JSON.
"""

import argparse
import json
import os
import platform
import pstats
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

import psutil

from bench import patches, report
from bench.limits import raise_open_files_limit
from bench.servers import (
    CHANNELS_FLOOR,
    PRODUCT,
    PRODUCT_PG,
    WEBSOCKETS_FLOOR,
    Server,
    Workspace,
    serve,
)

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
CLIENT_TIMEOUT = 300  # seconds, per client process


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts (a smoke run)")
    parser.add_argument(
        "--scenario", type=int, action="append", choices=[1, 2, 3, 4], help="repeatable"
    )
    parser.add_argument("--clients", default=None, help="scenario 2 (default 200,500,1000)")
    parser.add_argument("--turns", type=int, default=5, help="scenario 2 turns per client")
    parser.add_argument("--delay-ms", type=int, default=50, help="scenario 2 token delay")
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="scenario 2 rounds at 500 clients, median reported (3; 1 with --quick)",
    )
    parser.add_argument("--latency-turns", type=int, default=None, help="scenario 1 (500)")
    parser.add_argument("--confirms", type=int, default=None, help="scenario 4 (200)")
    parser.add_argument("--files", type=int, default=None, help="scenario 3 files (1000)")
    parser.add_argument("--chunks", type=int, default=None, help="scenario 3 chunks (10000)")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also run the product and the Channels floor under cProfile with N clients",
    )
    parser.add_argument(
        "--out", type=Path, help="JSON file (bench/results/latest.json, quick.json with --quick)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs)")
    parser.add_argument(
        "--postgres",
        metavar="URL",
        default=None,
        help="also run the product (scenarios 1 and 2) on PostgreSQL databases created on "
        "this server (e.g. postgres://postgres@127.0.0.1:5432/postgres); skipped with a "
        "note when it does not answer",
    )
    parser.add_argument(
        "--patches",
        default="",
        help="server patch settings to measure on and off (bench.patches), e.g. GC_TUNING",
    )
    args = parser.parse_args(argv)
    quick = args.quick
    args.scenarios = sorted(set(args.scenario or ([] if args.patches else [1, 2, 3, 4])))
    args.client_counts = [
        int(n) for n in (args.clients or ("50,100" if quick else "200,500,1000")).split(",")
    ]
    args.latency_turns = args.latency_turns or (100 if quick else 500)
    args.confirms = args.confirms or (50 if quick else 200)
    args.repeat = max(1, args.repeat or (1 if quick else 3))
    args.files = args.files or (200 if quick else 1000)
    args.chunks = args.chunks or (2000 if quick else 10_000)
    args.out = args.out or ROOT / "bench" / "results" / ("quick.json" if quick else "latest.json")
    return args


def product_commit() -> str:
    """The commit measured, marked ``+dirty`` when the work tree has changes (read-only git)."""

    def git(*command: str) -> str:
        done = subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- the client process ----------------------------------------------------------


def client_command(mode: str, server: Server, *options) -> list[str]:
    return [sys.executable, "-m", "bench.client", mode, "--url", server.url, *map(str, options)]


def run_client(mode: str, server: Server, *options) -> dict:
    """A client run without stages: its result."""
    return last_json(client_command(mode, server, *options), f"client {mode}")["result"]


def last_json(command: list[str], what: str) -> dict:
    """Run ``command`` in a process of its own; the JSON object it prints last."""
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def _children_rss(process: psutil.Process) -> int:
    """Resident memory of the server's own processes (the audit writer), in bytes."""
    total = 0
    for child in process.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total


class PeakRss(threading.Thread):
    """The highest resident memory of the server process, and of its own processes, while
    the turns run (sampled every 50 ms)."""

    def __init__(self, process: psutil.Process) -> None:
        super().__init__(daemon=True)
        self.process, self._stop_event = process, threading.Event()
        self.peak, self.children_peak = 0, 0

    def run(self) -> None:
        while not self._stop_event.wait(0.05):
            try:
                self.peak = max(self.peak, self.process.memory_info().rss)
                self.children_peak = max(self.children_peak, _children_rss(self.process))
            except psutil.Error:
                return

    def stop(self) -> tuple[int, int]:
        self._stop_event.set()
        self.join()
        return self.peak, self.children_peak


def _cpu(process: psutil.Process) -> float:
    """The server's CPU, with its own processes' (the audit writer, ``chat.audit_process``)."""
    total = 0.0
    for each in [process, *process.children(recursive=True)]:
        try:
            times = each.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def _loop_thread_cpu(process: psutil.Process) -> float:
    """CPU of the main thread, which runs the event loop (on Linux its id is the pid)."""
    for thread in process.threads():
        if thread.id == process.pid:
            return thread.user_time + thread.system_time
    return 0.0


def load_run(
    server: Server, clients: int, turns: int, delay_ms: int, workdir: Path, profile: bool = False
) -> dict:
    """Scenario 2 against one server, sampling its memory and CPU between the stages.

    ``profile``: the server is ``bench.profiled_daphne``; its profile covers the turns only.
    """
    process = psutil.Process(server.pid)
    # At rest: started (config.asgi imported, its warm-up done), no client yet.
    rest, children_rest = process.memory_info().rss, _children_rss(process)
    stderr_path = workdir / f"client-{server.port}.log"
    with stderr_path.open("w") as stderr:
        client = subprocess.Popen(
            client_command(
                "load",
                server,
                "--clients",
                clients,
                "--turns",
                turns,
                "--delay-ms",
                delay_ms,
                "--run-timeout",
                CLIENT_TIMEOUT - 10,
            ),
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        watchdog = threading.Timer(CLIENT_TIMEOUT, client.kill)
        watchdog.start()
        figures: dict = {
            "rss_rest_mb": round(rest / MB, 1),
            "children_rss_rest_mb": round(children_rest / MB, 1),
        }
        try:
            result = _drive_stages(client, process, figures, profile)
        finally:
            watchdog.cancel()
            if client.poll() is None:
                client.kill()
            client.wait()
    if result is None:
        raise RuntimeError(f"load client failed:\n{stderr_path.read_text()[-3000:]}")
    result["server"] = figures
    return result


def _drive_stages(client: subprocess.Popen, process: psutil.Process, figures: dict, profile: bool):
    def go() -> None:
        client.stdin.write("go\n")
        client.stdin.flush()

    sampler, cpu_start, loop_start, turns_start = None, 0.0, 0.0, 0.0
    for line in client.stdout:
        message = json.loads(line)
        stage = message.get("stage")
        if stage == "warm":
            figures["rss_warm_mb"] = round(process.memory_info().rss / MB, 1)
            figures["cpu_connect_start"] = _cpu(process)
            go()
        elif stage == "connected":
            rss = process.memory_info().rss / MB
            figures["rss_connected_mb"] = round(rss, 1)
            figures["idle_added_mb"] = round(rss - figures["rss_warm_mb"], 1)
            cpu_start, loop_start = _cpu(process), _loop_thread_cpu(process)
            figures["cpu_connect_s"] = round(cpu_start - figures.pop("cpu_connect_start"), 3)
            figures["threads"] = process.num_threads()
            sampler = PeakRss(process)
            sampler.start()
            turns_start = time.perf_counter()
            if profile:
                process.send_signal(signal.SIGUSR1)
            go()
        elif "result" in message:
            wall = time.perf_counter() - turns_start
            if profile:
                process.send_signal(signal.SIGUSR2)
            cpu = _cpu(process) - cpu_start
            figures["cpu_turns_s"] = round(cpu, 3)
            # The rest ran in worker threads (database calls, index loads).
            figures["cpu_turns_loop_thread_s"] = round(_loop_thread_cpu(process) - loop_start, 3)
            figures["cpu_pct"] = round(100 * cpu / wall, 1) if wall else None
            peak, children_peak = sampler.stop()
            figures["rss_peak_mb"] = round(max(peak, process.memory_info().rss) / MB, 1)
            figures["children_rss_peak_mb"] = round(
                max(children_peak, _children_rss(process)) / MB, 1
            )
            figures["rss_after_mb"] = round(process.memory_info().rss / MB, 1)
            figures["threads_after"] = process.num_threads()
            return message["result"]
    if sampler is not None:
        sampler.stop()
    return None


def server_log_problems(server: Server) -> list[str]:
    """Error lines the server logged (first few), to explain failed turns."""
    lines = server.log.read_text(errors="replace").splitlines()
    problems = [line for line in lines if "ERROR" in line or "Traceback" in line]
    return problems[:5] + ([f"... {len(problems) - 5} more"] if len(problems) > 5 else [])


# -- scenarios -------------------------------------------------------------------


def record_turn(ws: Workspace) -> None:
    """One product turn: the frames both floors replay (the same tokens, the same delays)."""
    with serve(PRODUCT, ws, delay_ms=0) as server:
        recorded = run_client("record", server)
    ws.frames, ws.response = recorded["frames"], recorded["response"]


def measured(server: Server, measure) -> dict:
    """``measure()``'s result with the server's logged errors; a failed run is kept as such."""
    load_average = os.getloadavg()[0]
    try:
        result = measure()
    except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
        log(f"  failed: {str(exc)[-500:]}")
        result = {"failed": str(exc)[-3000:]}
    result["server_log_problems"] = server_log_problems(server)
    result["load_average_before"] = load_average
    return result


def servers_under_test(ws: Workspace, pg_ws: Workspace | None) -> list[tuple[str, Workspace]]:
    """Each server of scenarios 1 and 2 with the workspace it runs from."""
    products = [(PRODUCT, ws)] + ([(PRODUCT_PG, pg_ws)] if pg_ws is not None else [])
    return [*products, (CHANNELS_FLOOR, ws), (WEBSOCKETS_FLOOR, ws)]


def scenario_latency(ws: Workspace, pg_ws: Workspace | None, args) -> dict:
    runs = {}
    for kind, workspace in servers_under_test(ws, pg_ws):
        log(f"S1 latency: {kind}, {args.latency_turns} turns")
        with serve(kind, workspace, delay_ms=0) as server:
            runs[kind] = measured(
                server, partial(run_client, "latency", server, "--turns", args.latency_turns)
            )
    runs["retrieval"] = question_retrieval(ws)
    return runs


def question_retrieval(ws: Workspace) -> dict:
    """The bench question's retrieval, in process on the product's KB (``bench.scenarios``)."""
    log("S1 the question's retrieval, in process")
    return scenario_process("bench.scenarios.question", f"sqlite:///{ws.template_db}")


def scenario_process(module: str, *args: str) -> dict:
    """Run a ``bench.scenarios`` module in a process of its own; the JSON it prints last."""
    return last_json([sys.executable, "-m", module, *args], module)


def scenario_load(ws: Workspace, pg_ws: Workspace | None, args) -> dict:
    """Each server under N clients; at the target count, ``--repeat`` rounds of all three.

    A round runs the product and both floors one after the other, so a busy
    moment of the machine falls on all of them alike. Each kind is then
    represented by its run with the median p99 extra delay (every figure of
    a row comes from one real run); ``p99_runs`` keeps all of them.
    """
    results = {}
    for clients in args.client_counts:
        rounds = args.repeat if clients == report.TARGET_LOAD_CLIENTS else 1
        servers = servers_under_test(ws, pg_ws)
        all_runs: dict[str, list[dict]] = {kind: [] for kind, _ in servers}
        for number in range(rounds):
            for kind, workspace in servers:
                log(
                    f"S2 load: {kind}, {clients} clients x {args.turns} turns"
                    + (f" (round {number + 1} of {rounds})" if rounds > 1 else "")
                )
                with serve(kind, workspace, delay_ms=args.delay_ms) as server:
                    all_runs[kind].append(
                        measured(
                            server,
                            partial(load_run, server, clients, args.turns, args.delay_ms, ws.root),
                        )
                    )
        results[str(clients)] = {kind: median_run(runs) for kind, runs in all_runs.items()}
    return results


def median_run(runs: list[dict]) -> dict:
    """The run with the median p99 extra delay per frame (the lower middle one of an even count)."""
    p99 = [report.p99_extra(run) for run in runs]
    failed = [run for run, value in zip(runs, p99, strict=True) if value is None]
    if failed:
        return failed[0]  # a failed round is what the table shows
    if len(runs) == 1:
        return runs[0]
    order = sorted(range(len(runs)), key=p99.__getitem__)
    chosen = dict(runs[order[(len(runs) - 1) // 2]])
    chosen["p99_runs"] = p99
    return chosen


def scenario_grounding(args) -> dict:
    log(f"S3 grounding: {args.files} files, {args.chunks} chunks")
    return scenario_process(
        "bench.scenarios.grounding", "--files", str(args.files), "--chunks", str(args.chunks)
    )


def scenario_actions(ws: Workspace, args) -> dict:
    results = {}
    with serve(PRODUCT, ws, delay_ms=0) as server:
        for mode in ("distinct", "shared"):
            log(f"S4 actions: {args.confirms} confirms, {mode}")
            results[mode] = measured(
                server,
                partial(run_client, "actions", server, "--clients", args.confirms, "--mode", mode),
            )
    return results


def profile_runs(ws: Workspace, args, out_dir: Path) -> dict:
    """The product and the Channels floor under cProfile (event-loop thread) at N clients."""
    results = {}
    for kind in (PRODUCT, CHANNELS_FLOOR):
        target = out_dir / f"profile-{kind.replace(' ', '-')}-{args.profile}.prof"
        log(f"profile: {kind}, {args.profile} clients -> {target}")
        target.unlink(missing_ok=True)
        with serve(kind, ws, delay_ms=args.delay_ms, profile_to=target) as server:
            run = load_run(server, args.profile, args.turns, args.delay_ms, ws.root, profile=True)
            _wait_for_file(target)
        results[kind] = {"prof": str(target), "load": run, **profile_summary(target, run)}
        threads = target.with_suffix(".threads.prof")
        if threads.exists():
            results[kind]["worker_threads"] = profile_summary(threads, run)
    return results


def _wait_for_file(path: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)  # let the dump finish


def profile_summary(path: Path, run: dict, top: int = 25) -> dict:
    stats = pstats.Stats(str(path))
    frames = run["frames"] + 2 * run["turns_completed"]  # stream + stream_end + response
    rows = []
    for (file, line, name), (_, calls, tottime, cumtime, _) in stats.stats.items():
        rows.append((tottime, cumtime, calls, f"{_short(file)}:{line}({name})"))

    def listing(key, project_only=False):
        chosen = [r for r in rows if not project_only or _is_project(r[3])]
        chosen.sort(key=key, reverse=True)
        return [
            {
                "function": label,
                "calls": calls,
                "tottime_s": round(tt, 3),
                "cumtime_s": round(ct, 3),
                "us_per_frame": round(1e6 * tt / frames, 1) if frames else None,
            }
            for tt, ct, calls, label in chosen[:top]
        ]

    return {
        "profiled_s": round(stats.total_tt, 3),
        "frames": frames,
        "us_per_frame_all": round(1e6 * stats.total_tt / frames, 1) if frames else None,
        "top_tottime": listing(lambda r: r[0]),
        "top_cumtime_project": listing(lambda r: r[1], project_only=True),
    }


def _short(file: str) -> str:
    for marker in ("site-packages/", str(ROOT) + "/"):
        if marker in file:
            return file.split(marker, 1)[1]
    return file


def _is_project(label: str) -> bool:
    return label.split("/", 1)[0] in {"chat", "grounding", "actions", "config", "bench"}


def print_profiles(profiles: dict) -> None:
    for kind, profile in profiles.items():
        for label, summary in (
            ("event-loop thread", profile),
            ("worker threads", profile.get("worker_threads")),
        ):
            if summary:
                _print_profile(f"{kind}, {label}", summary)


def _print_profile(title: str, summary: dict) -> None:
    print(
        f"\ncProfile, {title}: {summary['profiled_s']} s (wall, GIL waits included), "
        f"{summary['frames']} frames, {summary['us_per_frame_all']} us per frame"
    )
    for heading, key, limit in (
        ("own time", "top_tottime", 15),
        ("cumulative, project code", "top_cumtime_project", 10),
    ):
        print(f"  by {heading}:")
        for entry in summary[key][:limit]:
            seconds = entry["tottime_s" if key == "top_tottime" else "cumtime_s"]
            per_frame = 1e6 * seconds / summary["frames"] if summary["frames"] else 0
            print(
                f"  {seconds:8.3f} s {per_frame:8.1f} us/frame "
                f"{entry['calls']:>9}  {entry['function']}"
            )


# -- main ------------------------------------------------------------------------


def postgres_answers(url: str | None) -> bool:
    """Whether ``url`` names a PostgreSQL server that answers (else a note, and SQLite only)."""
    if not url:
        return False
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.Error as exc:
        log(f"PostgreSQL at {url} does not answer ({exc}): the product runs on SQLite only")
        return False
    return True


def build_rows(results: dict, args, total_s: float) -> list[report.Row]:
    rows = []
    if "scenario1" in results:
        rows += report.latency_rows(results["scenario1"])
    for clients, runs in results.get("scenario2", {}).items():
        rows += report.load_rows(int(clients), runs, args.turns)
    if "scenario3" in results:
        rows += report.grounding_rows(results["scenario3"])
    if "scenario4" in results:
        rows += report.actions_rows(results["scenario4"])
    rows.append(
        report.Row(
            "make bench wall time (s)",
            "<= 600",
            report.fmt(total_s, 1),
            verdict=report.verdict(total_s <= 600),
        )
    )
    return rows


def main(argv=None) -> None:
    args = parse_args(argv)
    started = time.perf_counter()
    raise_open_files_limit(max([*args.client_counts, args.confirms, args.profile]) * 2 + 512)
    meta = {
        "command": " ".join(["python -m bench", *(sys.argv[1:] if argv is None else argv)]),
        "commit": product_commit(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_start": os.getloadavg(),
        "scenarios": args.scenarios,
        "clients": args.client_counts,
        "turns_per_client": args.turns,
        "token_delay_ms": args.delay_ms,
    }
    results: dict = {"meta": meta}
    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    ws = Workspace(workdir)
    pg_ws = Workspace(workdir, postgres=args.postgres) if postgres_answers(args.postgres) else None
    meta["databases"] = ["sqlite"] + (["postgresql"] if pg_ws else [])
    try:
        log(f"preparing the product database in {workdir}")
        ws.prepare()
        if pg_ws is not None:
            log("preparing the product's PostgreSQL template database")
            pg_ws.prepare()
        needs_servers = {1, 2, 4} & set(args.scenarios) or args.profile or args.patches
        if needs_servers:
            record_turn(ws)
            meta["frames"], meta["response_text"] = ws.frames, ws.response.get("text")
        if 1 in args.scenarios:
            results["scenario1"] = scenario_latency(ws, pg_ws, args)
        if 2 in args.scenarios:
            results["scenario2"] = scenario_load(ws, pg_ws, args)
        if 3 in args.scenarios:
            results["scenario3"] = scenario_grounding(args)
        if 4 in args.scenarios:
            results["scenario4"] = scenario_actions(ws, args)
        if args.patches:
            results["patches"] = patches.patch_runs(ws, args, load_run, measured, log)
        if args.profile:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            results["profile"] = profile_runs(ws, args, args.out.parent)
    finally:
        if pg_ws is not None:
            pg_ws.close()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            log(f"kept {workdir}")

    total = time.perf_counter() - started
    meta["seconds"] = round(total, 1)
    meta["load_average_end"] = os.getloadavg()
    rows = build_rows(results, args, total)
    results["table"] = [row.as_dict() for row in rows]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    print(report.table(rows))
    if "patches" in results:
        print(patches.table(results["patches"]))
    if "profile" in results:
        print_profiles(results["profile"])
    print(
        f"\n{meta['cpus']} CPUs, load average {meta['load_average_start'][0]:.2f} at start, "
        f"{meta['load_average_end'][0]:.2f} at end (a shared machine: figures are noisy)."
    )
    print(f"JSON: {args.out}")
    misses = [row.figure for row in rows if row.verdict == "MISS"]
    print(f"{len(misses)} target(s) missed" + (": " + "; ".join(misses) if misses else ""))


if __name__ == "__main__":
    main()
