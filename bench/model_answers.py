"""Answers a language model writes from the product's prompt alone, through the guard.

    make python ARGS="-m bench.model_answers prompts tests/grounding/model/prompts.jsonl"
    make python ARGS="-m bench.model_answers check tests/grounding/model/answers.jsonl"

``prompts``: for the first ``PER_KB`` distinct questions of the grounded cases of every KB of
our own (``tests/grounding/kbs``), the chat messages the OpenAI-compatible backend would send
(``chat.llm.prompt.build_messages``: instructions, the retrieved chunks and fact cards with
their references, the question), one JSON object a line: ``id``, ``kb``, ``question``,
``messages``. A model (or a person standing in for one) writes ``answers.jsonl``: ``id``,
``answer``, and after it a judge who has not seen the guard's verdicts adds ``right`` (the
answer is correct by the KB). ``check`` runs every answer through the guard on its KB indexed
alone, with the same retrieval, and prints how many of the answers judged right pass.
"""

import json
import os
import sys
from collections import defaultdict
from pathlib import Path

PER_KB = 5
KBS = Path(__file__).resolve().parent.parent / "tests" / "grounding" / "kbs"


def _setup() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _index(kb_dir: Path):
    from grounding.index import KBIndex
    from grounding.lookup import FactTable
    from grounding.services import read_kb_dir, source_facts, source_records

    sources = read_kb_dir(kb_dir).values()
    return KBIndex(
        [r for s in sources for r in source_records(s)],
        facts=FactTable(f for s in sources for f in source_facts(s)),
    )


def prompts(out: Path) -> None:
    from chat.llm.base import LLMRequest
    from chat.llm.prompt import build_messages
    from grounding.evaluation import Expect, parse_cases
    from grounding.retrieval import retrieve
    from grounding.text import detect_language

    with out.open("w", encoding="utf-8") as file:
        for kb_dir in sorted(p for p in KBS.iterdir() if (p / "cases.jsonl").is_file()):
            index = _index(kb_dir)
            cases = parse_cases((kb_dir / "cases.jsonl").read_text(encoding="utf-8").splitlines())
            questions = list(
                dict.fromkeys(c.question for c in cases if c.expect == Expect.GROUNDED)
            )
            for number, question in enumerate(questions[:PER_KB], start=1):
                result = retrieve(index, question)
                request = LLMRequest(
                    question=question,
                    snippets=result.context,
                    language=detect_language(question),
                    cite=True,
                )
                messages = build_messages(request, token_budget=6000)
                record = {
                    "id": f"{kb_dir.name}-{number}",
                    "kb": kb_dir.name,
                    "question": question,
                    "messages": messages,
                }
                file.write(json.dumps(record, ensure_ascii=False) + "\n")


def check(answers: Path) -> None:
    figures = verdicts(answers)
    for line in figures["withheld"]:
        print(line)
    right, passed = figures["right"], figures["passed"]
    print(f"answers: {figures['answers']}; judged right: {right}; of those passed: {passed}")
    if right:
        print(f"pass rate of right answers: {passed / right:.1%}")


def verdicts(answers: Path) -> dict:
    """How many answers were judged right, how many of those pass the guard, and why the
    others were withheld."""
    from grounding.answer_check import answer_check

    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines() if line]
    prompts_file = answers.with_name("prompts.jsonl")
    questions = {
        r["id"]: r for r in map(json.loads, prompts_file.read_text(encoding="utf-8").splitlines())
    }
    by_kb = defaultdict(list)
    for row in rows:
        by_kb[questions[row["id"]]["kb"]].append(row)
    figures = {"answers": len(rows), "right": 0, "passed": 0, "withheld": []}
    for kb, kb_rows in sorted(by_kb.items()):
        index = _index(KBS / kb)
        for row in kb_rows:
            if not row.get("right"):
                continue
            verdict = answer_check(
                index=index, question=questions[row["id"]]["question"], answer=row["answer"]
            )
            figures["right"] += 1
            figures["passed"] += verdict.grounded
            if not verdict.grounded:
                reasons = [u["reason"] for u in verdict.as_dict()["unsupported"]]
                figures["withheld"].append(f"{row['id']}: {row['answer']} -> {reasons}")
    return figures


def main() -> None:
    _setup()
    command, path = sys.argv[1], Path(sys.argv[2])
    {"prompts": prompts, "check": check}[command](path)


if __name__ == "__main__":
    main()
