"""``manage.py grounding_eval CASES.jsonl``: score the chat's checker on a case file.

``manage.py grounding_eval --mutate``: no case file; the cases are made from the
current index's own facts (:mod:`grounding.mutation`), in cited form (``[PATH:LINE]``
after every number): wrong answers that must be withheld, restatements that must pass
(at least ``--min-restated``, 97 %), and the facts no reader could tell apart.

Each case goes through ``answer_check``, the retrieval and verification that
``verify_answer`` and the chat run, on the current index. ``--kb-dir DIR``
first makes the current database's index hold exactly the ``*.md`` files
under DIR (subfolders included), as ``reindex_kb --kb-dir DIR`` does, so
point ``DATABASE_URL`` at a scratch database to keep the KB you serve.
"""

import argparse
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from grounding.answer_check import answer_check
from grounding.evaluation import CaseFormatError, CaseResult, Expect, Outcome, evaluate, parse_cases
from grounding.mutation import mutation_cases
from grounding.selectors import current_index
from grounding.services import KBDirectoryNotFound, kb_reindex

# What a miss shows of the check's answer: the lines it considered and why it decided.
_DETAILS = ("citations", "unsupported", "retrieved")


def _rate(text: str) -> float:
    rate = float(text)
    if not 0 <= rate <= 1:
        raise argparse.ArgumentTypeError("a rate between 0 and 1, e.g. 0.95")
    return rate


def chat_check(question: str, answer: str, *, uncited: bool = False) -> Outcome:
    """The chat's verdict on ``answer`` to ``question``, with what it considered
    (``uncited``: the check of a person's message, whose numbers cite nothing)."""
    check = answer_check(index=current_index(), question=question, answer=answer, uncited=uncited)
    shown = check.as_dict()
    return Outcome(check.grounded, check.reason, {key: shown[key] for key in _DETAILS})


class Command(BaseCommand):
    help = (
        "Run every case of a JSONL case file (question, answer, expect, kind) through the "
        "chat's grounding check; print pass counts per kind and every miss. Exits 1 when a "
        "withheld case passes or the grounded rate is below --min-grounded."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "cases", type=Path, nargs="?", help="JSONL file, one case per line (not with --mutate)"
        )
        parser.add_argument(
            "--mutate",
            action="store_true",
            help=(
                "make the cases from the KB's own facts, cited as a generator writes them "
                "([PATH:LINE] after each number): restatements citing the fact's line, and "
                "wrong answers (a sibling's value citing its line or this fact's, this fact's "
                "value with a sibling's words, a digit, the unit, period, bound or condition "
                "changed, a wrong value in words, no reference); fail when a wrong one passes, "
                "fewer than --min-restated restatements pass, or more than "
                "--max-indistinguishable of the facts cannot be told apart"
            ),
        )
        parser.add_argument("--min-restated", type=_rate, default=0.97, metavar="RATE")
        parser.add_argument("--max-indistinguishable", type=_rate, default=0.05, metavar="RATE")
        parser.add_argument(
            "--kb-dir",
            type=Path,
            default=None,
            help=(
                "Index only this directory's *.md files first (replaces the current "
                "database's index, like reindex_kb --kb-dir)."
            ),
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--uncited",
            action="store_true",
            help=(
                "answers without references: each number is checked as if it cited each fact "
                "stating its value (the check of an agent's message)"
            ),
        )
        parser.add_argument(
            "--min-grounded",
            type=_rate,
            default=0.0,
            metavar="RATE",
            help="fail when fewer than this share of grounded cases pass (0-1, default 0)",
        )

    def handle(
        self, *args, cases: Path | None, kb_dir: Path | None, min_grounded: float, **options
    ):
        if options["mutate"] == (cases is not None):
            raise CommandError("give a case file, or --mutate (not both)")
        parsed = [] if cases is None else self._read_cases(cases)
        if kb_dir is not None:
            try:
                summary = kb_reindex(kb_dir=kb_dir)
            except KBDirectoryNotFound as error:
                raise CommandError(str(error)) from error
            # On stderr, so that --json output stays one object.
            self.stderr.write(f"Index replaced by {kb_dir} alone: {summary}")
        if options["mutate"]:
            self._mutate(options)
            return
        uncited = options["uncited"]
        report = evaluate(parsed, lambda q, a: chat_check(q, a, uncited=uncited))
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), ensure_ascii=False, indent=1))
        else:
            self._print(report, cases)

        failures = []
        if report.withheld.passed < report.withheld.total:
            failures.append(
                f"{report.withheld.total - report.withheld.passed} withheld cases passed"
            )
        if report.grounded.rate < min_grounded:
            failures.append(f"grounded rate {report.grounded.rate:.1%} is below {min_grounded:.1%}")
        if failures:
            raise CommandError("; ".join(failures), returncode=1)

    def _read_cases(self, cases: Path) -> list:
        try:
            return parse_cases(cases.read_text(encoding="utf-8").splitlines())
        except OSError as error:
            raise CommandError(f"cannot read {cases}: {error}") from error
        except CaseFormatError as error:
            raise CommandError(f"{cases}: {error}") from error

    def _mutate(self, options) -> None:
        facts = current_index().facts
        mutations = mutation_cases(getattr(facts, "facts", ()))
        report = evaluate(mutations.cases, chat_check)
        share = mutations.indistinguishable_share
        pairs = [
            {
                "a": {"file": a.file, "line": a.line, "value": a.value, "text": a.text.strip()},
                "b": {"file": b.file, "line": b.line, "value": b.value, "text": b.text.strip()},
            }
            for a, b in mutations.indistinguishable
        ]
        if options["json"]:
            result = report.as_dict()
            result.update(facts=mutations.facts, indistinguishable=pairs)
            result["indistinguishable_share"] = round(share, 4)
            self.stdout.write(json.dumps(result, ensure_ascii=False, indent=1))
        else:
            self._print(report, Path(f"generated from {mutations.facts} facts"))
            write = self.stdout.write
            write(f"Facts no reader can tell apart: {len(pairs)} pairs ({share:.1%} of the facts)")
            for pair in pairs:
                write(f"  {pair['a']['file']}:{pair['a']['line']} {pair['a']['text']}")
                write(f"    ~ {pair['b']['file']}:{pair['b']['line']} {pair['b']['text']}")
        failures = []
        if report.withheld.passed < report.withheld.total:
            failures.append(
                f"{report.withheld.total - report.withheld.passed} generated wrong answers passed"
            )
        if report.grounded.rate < options["min_restated"]:
            failures.append(
                f"restatements passed {report.grounded.rate:.1%}, "
                f"below {options['min_restated']:.1%}"
            )
        if share > options["max_indistinguishable"]:
            failures.append(
                f"{share:.1%} of the facts cannot be told apart "
                f"(over {options['max_indistinguishable']:.1%})"
            )
        if failures:
            raise CommandError("; ".join(failures), returncode=1)

    def _print(self, report, cases: Path) -> None:
        write = self.stdout.write
        write(f"Cases: {cases} ({len(report.results)})")
        write(f"grounded cases passed:   {report.grounded} ({report.grounded.rate:.1%})")
        write(f"withheld cases withheld: {report.withheld} ({report.withheld.rate:.1%})")
        for expect in Expect:
            for kind in report.kinds(expect):
                write(f"  {expect:<9} {kind:<22} {report.tally(expect, kind)}")
        misses = report.misses
        write(f"Misses: {len(misses)}")
        for result in misses:
            self._print_miss(result)

    def _print_miss(self, result: CaseResult) -> None:
        write = self.stdout.write
        case, outcome = result.case, result.outcome
        got = "GROUNDED" if outcome.grounded else f"WITHHELD ({outcome.reason})"
        where = f"{case.source}:{case.line}" if case.source else f"line {case.line}"
        write(f"- {where} [{case.kind}] expected {case.expect}, got {got}")
        write(f"    Q: {case.question}")
        write(f"    A: {case.answer}")
        details = outcome.details
        for item in details.get("unsupported", []):
            where = "; ".join(
                f"{loc['file']}:{loc['line']} {loc.get('text', '').strip()}"
                for loc in item.get("kb_locations", [])
            )
            write(
                f"    unsupported {item['text']!r} ({item['reason']}); "
                f"in the KB: {where or 'nowhere'}"
            )
        for citation in details.get("citations", []):
            snippet = citation["snippet"].replace("\n", " | ")
            write(f"    cites {citation['file']}:{citation['line']}: {snippet}")
        retrieved = ", ".join(
            f"{r['file']}:{r['line']} ({r['score']})" for r in details.get("retrieved", [])
        )
        write(f"    retrieved: {retrieved or 'nothing'}")
