"""Benchmark ``kb_reindex`` (and retrieval) on a generated knowledge base.

    make python ARGS="-m bench.reindex"                 # 500 files of ~10 KB
    make python ARGS="-m bench.reindex --files 1000"

Generates markdown files in a temporary directory, migrates a throwaway
SQLite database in the same directory, indexes twice (cold, then unchanged),
then changes one file and indexes again. Finally it loads the index the way
a server process does and measures retrieval over it. Nothing touches the
project's own database.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORDS = [
    "faktura", "abonnemang", "lagring", "molnet", "konto", "lösenord", "säkerhetskopia",
    "synkronisering", "appen", "kundtjänst", "telefon", "öppettider", "uppsägning", "avtal",
    "villkor", "rabatt", "betalning", "påminnelse", "ränta", "tillgänglighet", "driftavbrott",
    "ersättning", "enhet", "dator", "mobil", "delning", "länk", "papperskorg", "fil", "mapp",
    "användare", "administratör", "företag", "student", "kryptering", "datacenter", "incident",
    "leverans", "kvartal", "månad", "vecka", "dag", "timme", "minut", "support", "ärende",
    "svar", "fråga", "hjälp", "inställningar",
]  # fmt: skip
PLANS = ["Basic", "Standard", "Premium", "Business", "Team", "Familj", "Student", "Pro"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 16))]
    return " ".join(words).capitalize() + "."


def generate_file(rng: random.Random, number: int, target_bytes: int = 10_000) -> str:
    """A markdown file of about ``target_bytes`` with front matter, headings and facts."""
    parts = [
        "---",
        f"title: Dokument {number}",
        f"category: kategori{number % 12}",
        f"keywords: {', '.join(rng.sample(WORDS, 4))}",
        "lang: sv",
        "---",
        f"# Dokument {number}",
        "",
    ]
    size = sum(len(p) + 1 for p in parts)
    section = 0
    while size < target_bytes:
        section += 1
        lines = [f"## Avsnitt {section}", ""]
        for plan in rng.sample(PLANS, 3):
            lines.append(f"- {plan}: {rng.randint(49, 999)} kr/månad")
        lines.append(f"- Telefon: +46 8 {rng.randint(100, 999)} {rng.randint(10, 99)} 00")
        lines.append("")
        lines.extend(_sentence(rng) for _ in range(rng.randint(4, 9)))
        lines.append("")
        size += sum(len(line) + 1 for line in lines)
        parts.extend(lines)
    return "\n".join(parts) + "\n"


def generate_kb(kb_dir: Path, files: int, seed: int = 42) -> None:
    rng = random.Random(seed)
    for number in range(files):
        folder = kb_dir / f"omrade{number % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"dokument{number}.md").write_text(generate_file(rng, number), encoding="utf-8")


def _setup_django(database: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _retrieval_p50(queries: int, seed: int = 7) -> tuple[float, int, float]:
    from grounding.retrieval import retrieve
    from grounding.selectors import current_index

    started = time.perf_counter()
    index = current_index()
    load_seconds = time.perf_counter() - started
    rng = random.Random(seed)
    questions = [
        " ".join(rng.choice(WORDS + [p.lower() for p in PLANS]) for _ in range(rng.randint(2, 6)))
        for _ in range(queries)
    ]
    timings = []
    for question in questions:
        begin = time.perf_counter()
        retrieve(index, question)
        timings.append(time.perf_counter() - begin)
    return statistics.median(timings), len(index), load_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=500, help="markdown files (default 500)")
    parser.add_argument("--queries", type=int, default=500, help="retrieval queries to time")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kb-bench-") as temp:
        temp_dir = Path(temp)
        kb_dir = temp_dir / "kb"
        generate_kb(kb_dir, args.files)
        total_kb = sum(f.stat().st_size for f in kb_dir.rglob("*.md")) / 1024
        print(f"Generated {args.files} files, {total_kb:,.0f} KB in total")
        _setup_django(temp_dir / "bench.sqlite3")
        from grounding.services import kb_reindex

        cold = kb_reindex(kb_dir=kb_dir)
        print(f"cold:      {cold.seconds:7.3f} s  ({cold})")
        warm = kb_reindex(kb_dir=kb_dir)
        print(f"unchanged: {warm.seconds:7.3f} s  ({warm})")
        print(f"ratio unchanged/cold: {warm.seconds / cold.seconds:.3f}")

        first = next(iter(sorted(kb_dir.rglob("*.md"))))
        first.write_text(first.read_text(encoding="utf-8") + "\nNy rad.\n", encoding="utf-8")
        one = kb_reindex(kb_dir=kb_dir)
        print(f"one file changed: {one.seconds:7.3f} s  ({one})")

        p50, chunks, load = _retrieval_p50(args.queries)
        print(f"index load: {load:.2f} s for {chunks} chunks")
        print(f"retrieval p50: {p50 * 1000:.3f} ms over {chunks} chunks")


if __name__ == "__main__":
    main()
