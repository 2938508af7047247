"""Scenario 3, the grounding microbenchmarks, in a process of its own.

    make python ARGS="-m bench.scenarios.grounding [--files 1000] [--chunks 10000]"

- verification of a 2,000-character answer with 20 numbers (``verify_answer``);
- retrieval over an index of ``--chunks`` chunks built from a generated KB;
- ``reindex_kb`` on ``--files`` generated files (about 10 KB each), cold, then
  unchanged, in process (``call_command``) and as the command line runs it.

Everything happens in a temporary directory with a throwaway SQLite
database. Prints one JSON object on stdout.
"""

import argparse
import gc
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.reindex import PLANS, WORDS, generate_kb
from bench.stats import summary_ms

ROOT = Path(__file__).resolve().parent.parent.parent
ANSWER_CHARS = 2000
ANSWER_NUMBERS = 20
# Ten plans, each with a price and a storage size: 20 numbers in the answer.
_PLANS = [
    "Basic", "Standard", "Premium", "Business", "Team", "Familj", "Student", "Pro", "Plus", "Max",
]  # fmt: skip
_FILLER = " Kontakta gärna kundtjänst om du har frågor om ditt abonnemang eller vill byta plan."


def _setup_django(database: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _timed(func, runs: int, warmup: int = 10) -> list[float]:
    for _ in range(warmup):
        func()
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        func()
        timings.append(time.perf_counter() - started)
    return timings


def verification(runs: int) -> dict:
    """``verify_answer`` on a grounded 2,000-character answer stating 20 numbers."""
    from grounding.claims import extract_claims
    from grounding.lookup import FactTable
    from grounding.snippets import Snippet
    from grounding.verification import verify_answer

    prices = ["# Priser", ""] + [f"- {p}: {99 + 100 * i} kr/månad" for i, p in enumerate(_PLANS)]
    storage = ["# Lagring", ""] + [f"- {p}: {i + 1} TB lagring" for i, p in enumerate(_PLANS)]
    snippets = [
        Snippet(file="kb/priser.md", text="\n".join(prices), start_line=1, score=3.0),
        Snippet(file="kb/lagring.md", text="\n".join(storage), start_line=1, score=2.5),
    ]
    answer = " ".join(
        f"Abonnemanget {p} kostar {99 + 100 * i} kr/månad och ger {i + 1} TB lagring för "
        "alla dina filer, bilder och dokument."
        for i, p in enumerate(_PLANS)
    )
    while len(answer) < ANSWER_CHARS:
        answer += _FILLER
    answer = answer[:ANSWER_CHARS]
    numbers = len(extract_claims(answer, language="sv"))
    # The KB's facts are built once, as the index holds them; each run checks a fresh answer
    # object against them, as a turn does.
    facts = FactTable.from_snippets(snippets)
    question = "Vad kostar abonnemangen och hur mycket lagring ingår?"
    verdict = verify_answer(answer, snippets, facts=facts, question=question)
    timings = _timed(lambda: verify_answer(answer, snippets, facts=facts, question=question), runs)
    return {
        "answer_chars": len(answer),
        "numbers": numbers,
        "grounded": verdict.grounded,
        "ms": summary_ms(timings),
    }


def _questions(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    vocabulary = WORDS + [plan.lower() for plan in PLANS]
    openers = ["Vad kostar", "Hur fungerar", "Hur lång tid tar", "Kan jag ändra", ""]
    return [
        f"{rng.choice(openers)} "
        + " ".join(rng.choice(vocabulary) for _ in range(rng.randint(2, 6)))
        + "?"
        for _ in range(count)
    ]


def retrieval(kb_dir: Path, chunks: int, queries: int) -> dict:
    """``retrieve`` over an in-memory index of exactly ``chunks`` generated chunks."""
    from grounding.index import KBIndex
    from grounding.retrieval import retrieve
    from grounding.services import read_kb_dir, source_records

    records = []
    for source in read_kb_dir(kb_dir).values():
        records.extend(source_records(source))
        if len(records) >= chunks:
            break
    records = records[:chunks]
    started = time.perf_counter()
    index = KBIndex(records)
    build = time.perf_counter() - started
    questions = iter(_questions(queries + 20))
    hits = []

    def one() -> None:
        hits.append(len(retrieve(index, next(questions)).snippets))

    timings = _timed(one, queries, warmup=20)
    return {
        "chunks": len(index),
        "queries": queries,
        "answered": sum(1 for h in hits if h),
        "index_build_s": round(build, 3),
        "ms": summary_ms(timings),
    }


def reindex(kb_dir: Path, files: int, database: Path) -> dict:
    """``reindex_kb`` cold and unchanged, in process and as a separate command."""
    from django.core.management import call_command

    size = sum(f.stat().st_size for f in kb_dir.rglob("*.md"))
    times = {}
    for label in ("cold", "unchanged"):
        started = time.perf_counter()
        call_command("reindex_kb", kb_dir=kb_dir, stdout=io.StringIO())
        times[label] = round(time.perf_counter() - started, 3)
    # The command line as a KB editor runs it: interpreter and Django start included.
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}.cli"}
    manage = [sys.executable, "manage.py"]
    subprocess.run(
        [*manage, "migrate", "--no-input"], cwd=ROOT, env=env, check=True, capture_output=True
    )
    for label in ("cold", "unchanged"):
        started = time.perf_counter()
        subprocess.run(
            [*manage, "reindex_kb", "--kb-dir", str(kb_dir)],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        times[f"{label}_command_line"] = round(time.perf_counter() - started, 3)

    from grounding.models import KBChunk, KBFact

    return {
        "files": files,
        "bytes": size,
        "chunks": KBChunk.objects.count(),
        "facts": KBFact.objects.count(),
        "seconds": times,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--verify-runs", type=int, default=500)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-grounding-") as temp:
        temp_dir = Path(temp)
        kb_dir = temp_dir / "kb"
        database = temp_dir / "grounding.sqlite3"
        started = time.perf_counter()
        generate_kb(kb_dir, args.files)
        generated = time.perf_counter() - started
        _setup_django(database)
        gc.collect()
        result = {
            "generate_s": round(generated, 3),
            "verification": verification(args.verify_runs),
            "retrieval": retrieval(kb_dir, args.chunks, args.queries),
            "reindex": reindex(kb_dir, args.files, database),
        }
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
