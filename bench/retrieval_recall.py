"""Retrieval recall on a case file: is a line that supports the answer among the retrieved?

    uv run python -m bench.retrieval_recall ../shared/grounding-dev/kommun
    uv run python -m bench.retrieval_recall KB_DIR --cases CASES.jsonl -v

Indexes ``KB_DIR``'s ``*.md`` files in memory (no database), then for every
grounded case whose answer states a number: retrieves for the question as the
chat does, and counts the case as found when, for each number of the answer,
a KB line whose fact supports it by value, kind, unit and period (rule rows
1-4, ``grounding.rule``) lies within a retrieved chunk. Subjects are left
out, so the figure is an upper bound of what retrieval gives the checker.
"""

import argparse
import os
import sys
from pathlib import Path


def _setup() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def supporting_lines(claim, facts) -> set[tuple[str, int]]:
    """Every (file, line) of a fact matching ``claim`` in value, kind, unit and period."""
    from grounding import rule

    return {
        (fact.file, fact.line)
        for fact in facts.by_value(claim.key)
        if rule.value_matches(claim, fact)
        and rule.kind_matches(claim, fact)
        and claim.unit in (None, fact.unit)
        and claim.period in (None, fact.period)
    }


def measure(kb_dir: Path, cases_file: Path, *, verbose: bool = False) -> tuple[int, int]:
    from grounding.claims import extract_claims
    from grounding.evaluation import Expect, parse_cases
    from grounding.index import KBIndex
    from grounding.retrieval import retrieve
    from grounding.services import read_kb_dir, source_records

    index = KBIndex([r for s in read_kb_dir(kb_dir).values() for r in source_records(s)])
    found = total = 0
    for case in parse_cases(cases_file.read_text(encoding="utf-8").splitlines()):
        claims = extract_claims(case.answer)
        if case.expect != Expect.GROUNDED or not claims:
            continue
        snippets = retrieve(index, case.question).snippets
        retrieved = {(s.file, line) for s in snippets for line, _ in s.lines()}
        missing = [
            claim.text
            for claim in claims
            if (lines := supporting_lines(claim, index.facts)) and not lines & retrieved
        ]
        total += 1
        found += not missing
        if missing and verbose:
            print(f"  line {case.line} [{case.kind}] {case.question!r}: not retrieved {missing}")
    return found, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb_dir", type=Path)
    parser.add_argument("--cases", type=Path, default=None, help="default: KB_DIR/cases.jsonl")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    args = parser.parse_args()
    _setup()
    found, total = measure(
        args.kb_dir, args.cases or args.kb_dir / "cases.jsonl", verbose=args.verbose
    )
    print(f"{args.kb_dir}: supporting line retrieved for {found}/{total} grounded cases")


if __name__ == "__main__":
    main()
