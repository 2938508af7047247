"""Scenario 3, the grounding microbenchmarks, in a process of its own.

    make python ARGS="-m bench.scenarios.grounding [--files 1000] [--chunks 10000]"

- the cited check (``verify_cited``) of cited answers to a question about the shipped
  ``kb/``: one restating up to 20 numbers of the retrieved lines, and the mock LLM's;
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
KB_DIR = ROOT / "kb"
QUESTION = "Vad kostar abonnemangen och hur mycket lagring ingår?"
ANSWER_NUMBERS = 20


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


def cited_check(runs: int) -> dict:
    """``verify_cited`` on cited answers to a question about the shipped ``kb/``, as a turn runs
    it: against the question's retrieved snippets and fact cards and the KB's facts.

    Two answers: one restating every number of the retrieved lines (up to
    ``ANSWER_NUMBERS``), each citing its line as the generator writes it, and the mock LLM's
    own answer to the question. Each run checks with a fresh checker, as a turn does.
    """
    from chat.llm.base import LLMRequest
    from chat.llm.mock import compose
    from grounding.cited import verify_cited
    from grounding.claims import extract_claims
    from grounding.index import KBIndex
    from grounding.mutation import restatements, statement_of
    from grounding.references import strip_references
    from grounding.retrieval import retrieve
    from grounding.services import read_kb_dir, source_records

    records = [r for source in read_kb_dir(KB_DIR).values() for r in source_records(source)]
    index = KBIndex(records)
    context = retrieve(index, QUESTION).context

    def check(answer: str):
        return verify_cited(answer, context, facts=index.facts, question=QUESTION)

    sentences, numbers = [], 0
    for snippet in context:
        for line, _ in snippet.lines():
            for fact in index.facts.on_line(snippet.file, line):
                statement = statement_of(fact)
                restated = restatements(statement) if statement else []
                # A restatement the guard withholds is no grounded answer (the guard report
                # counts those); the answer holds the ones it passes.
                if numbers < ANSWER_NUMBERS and restated and check(restated[0][1]).grounded:
                    sentences.append(restated[0][1])
                    numbers += len(
                        extract_claims(strip_references(restated[0][1])[0], language="sv")
                    )
    answers = {
        "restated": " ".join(sentences),
        "mock": compose(LLMRequest(question=QUESTION, snippets=context, cite=True)),
    }
    result = {}
    for name, answer in answers.items():
        verdict = check(answer)
        result[name] = {
            "answer_chars": len(answer),
            "numbers": len(extract_claims(strip_references(answer)[0], language="sv")),
            "grounded": verdict.grounded,
            "ms": summary_ms(_timed(lambda answer=answer: check(answer), runs)),
        }
    return result


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
            "cited_check": cited_check(args.verify_runs),
            "retrieval": retrieval(kb_dir, args.chunks, args.queries),
            "reindex": reindex(kb_dir, args.files, database),
        }
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
