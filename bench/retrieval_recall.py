"""Retrieval recall on case files: is a line that supports the answer among the retrieved?

    make python ARGS="-m bench.retrieval_recall tests/grounding/dev/kommun"
    make python ARGS="-m bench.retrieval_recall tests/grounding/dev/*/ -v"
    make python ARGS="-m bench.retrieval_recall KB_DIR --cases CASES.jsonl --threshold 0"

Indexes each ``KB_DIR``'s ``*.md`` files in memory (no database), then for
every grounded case whose answer states a number: retrieves for the question
as the chat does, and counts the case as found when, for each number of the
answer, a KB line whose fact supports it by value, kind, unit and period (rule
rows 1-4, ``grounding.rule``) lies within a retrieved chunk. Subjects are left
out, so the figure is an upper bound of what retrieval gives the LLM.

It also runs the chat's checker (``answer_check``) on every grounded case and
sorts the ones it withholds by cause: ``retrieval`` when the supporting line
was not retrieved, ``checker`` when it was (or the answer has no number).
"""

import argparse
import os
import sys
from dataclasses import dataclass, field
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


@dataclass
class Recall:
    found: int = 0  # grounded cases with a number whose supporting lines were all retrieved
    total: int = 0  # grounded cases with a number
    withheld: dict[str, int] = field(default_factory=lambda: {"retrieval": 0, "checker": 0})
    misses: list[str] = field(default_factory=list)


def measure(kb_dir: Path, cases_file: Path, *, threshold: float | None = None) -> Recall:
    from grounding.answer_check import answer_check
    from grounding.claims import extract_claims
    from grounding.evaluation import Expect, parse_cases
    from grounding.index import KBIndex
    from grounding.lookup import FactTable
    from grounding.retrieval import retrieve
    from grounding.services import read_kb_dir, source_facts, source_records

    sources = read_kb_dir(kb_dir).values()
    index = KBIndex(
        [r for s in sources for r in source_records(s)],
        facts=FactTable(f for s in sources for f in source_facts(s)),
    )
    recall = Recall()
    for case in parse_cases(cases_file.read_text(encoding="utf-8").splitlines()):
        if case.expect != Expect.GROUNDED:
            continue
        claims = extract_claims(case.answer)
        snippets = retrieve(index, case.question, threshold=threshold).snippets
        retrieved = {(s.file, line) for s in snippets for line, _ in s.lines()}
        missing = [
            claim.text
            for claim in claims
            if (lines := supporting_lines(claim, index.facts)) and not lines & retrieved
        ]
        if claims:
            recall.total += 1
            recall.found += not missing
        if missing:
            recall.misses.append(
                f"line {case.line} [{case.kind}] {case.question!r}: not retrieved {missing}"
            )
        check = answer_check(index=index, question=case.question, answer=case.answer)
        if not check.grounded:
            recall.withheld["retrieval" if missing else "checker"] += 1
    return recall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb_dirs", type=Path, nargs="+")
    parser.add_argument("--cases", type=Path, default=None, help="default: KB_DIR/cases.jsonl")
    parser.add_argument(
        "--threshold", type=float, default=None, help="default: RETRIEVAL_RELATIVE_THRESHOLD"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    args = parser.parse_args()
    _setup()
    for kb_dir in args.kb_dirs:
        recall = measure(kb_dir, args.cases or kb_dir / "cases.jsonl", threshold=args.threshold)
        if args.verbose:
            print("\n".join(f"  {miss}" for miss in recall.misses))
        print(
            f"{kb_dir.name or kb_dir}: supporting line retrieved for {recall.found}/"
            f"{recall.total} grounded cases; grounded cases withheld: "
            f"{recall.withheld['retrieval']} with the line not retrieved, "
            f"{recall.withheld['checker']} with it retrieved"
        )


if __name__ == "__main__":
    main()
