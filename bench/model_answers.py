"""Answers a language model writes from the product's prompt alone, through the guard.

    make python ARGS="-m bench.model_answers prompts tests/grounding/model/prompts.jsonl"
    make python ARGS="-m bench.model_answers check tests/grounding/model/answers.jsonl"
    make python ARGS="-m bench.model_answers repair-prompts tests/grounding/model/answers.jsonl"

``prompts``: for the first ``PER_KB`` distinct questions of the grounded cases of every KB of
our own (``tests/grounding/kbs``), the chat messages the OpenAI-compatible backend would send
(``chat.llm.prompt.build_messages``: instructions, the retrieved chunks and fact cards with
their references, the question), one JSON object a line: ``id``, ``kb``, ``question``,
``messages``. A model (or a person standing in for one) writes ``answers.jsonl``: ``id``,
``answer``, and after it a judge who has not seen the guard's verdicts adds ``right`` (the
answer is correct by the KB). ``check`` runs every answer through the guard on its KB indexed
alone, with the same retrieval, and prints how many of the answers judged right pass.

The repair round trip (docs/prompt.md): ``repair-prompts`` writes, for every answer judged
right that the turn's guard withholds, what the real backend would send then
(``chat.llm.prompt.build_repair_messages`` with the guard's reason and the part the customer
already saw) to ``repair_prompts.jsonl`` beside the answers; the model (or its stand-in) writes
``repairs.jsonl`` from those alone: ``id``, ``answer``, ``right``. ``check`` then prints the
figure before and after the repair: a repair counts when it is judged right, begins with what
was shown, and the turn's guard passes it.
"""

import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

PER_KB = 5
# The deltas a provider streams, as the fake provider of the tests does (a word with its space).
_DELTAS = re.compile(r"\S+\s*|\s+")
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


def cited_request(index, question: str):
    """The turn's request for ``question`` on ``index``: the retrieved context, cited."""
    from chat.llm.base import LLMRequest
    from grounding.retrieval import retrieve
    from grounding.text import detect_language

    return LLMRequest(
        question=question,
        snippets=retrieve(index, question).context,
        language=detect_language(question),
        cite=True,
    )


def prompts(out: Path) -> None:
    from chat.llm.prompt import build_messages
    from grounding.evaluation import Expect, parse_cases

    with out.open("w", encoding="utf-8") as file:
        for kb_dir in sorted(p for p in KBS.iterdir() if (p / "cases.jsonl").is_file()):
            index = _index(kb_dir)
            cases = parse_cases((kb_dir / "cases.jsonl").read_text(encoding="utf-8").splitlines())
            questions = list(
                dict.fromkeys(c.question for c in cases if c.expect == Expect.GROUNDED)
            )
            for number, question in enumerate(questions[:PER_KB], start=1):
                messages = build_messages(cited_request(index, question), token_budget=6000)
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
        after = figures["passed_after_repair"]
        print(
            f"after one repair round trip: {after} of {right} ({after / right:.1%}); "
            f"repairs asked {figures['repairs']}, accepted {figures['repairs_accepted']}"
        )
        for line in figures["repair_outcomes"]:
            print(line)


def turn_outcome(index, question: str, draft: str, shown: str = "") -> dict:
    """What the turn's guard does with ``draft`` streamed word by word: whether the answer is
    shown (``passed``), what it released (``released``) and, when it withheld it, its reason
    for the repair (``problem``). With ``shown``, a draft that does not begin with it fails,
    as a repair does in ``chat.pipeline``."""
    from grounding.guard import ContinuedStream, GuardedStream
    from grounding.retrieval import retrieve

    result = retrieve(index, question)
    guard = GuardedStream(result.context, facts=index.facts, question=question)
    stream = ContinuedStream(guard, shown)
    for delta in _DELTAS.findall(draft):
        stream.feed(delta)
        if stream.stopped:
            break
    else:
        stream.finish()
    passed = (
        stream.accepted and guard.checker.verdict(draft).grounded and bool(guard.released.strip())
    )
    return {"passed": passed, "released": guard.released, "problem": guard.problem}


def _rows(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def verdicts(answers: Path) -> dict:
    """How many answers were judged right, how many of those pass the guard, and why the
    others were withheld; then the same after one repair round trip (``repairs.jsonl``)."""
    from grounding.answer_check import answer_check

    rows = _rows(answers)
    repairs = {r["id"]: r for r in _rows(answers.with_name("repairs.jsonl"))}
    questions = {r["id"]: r for r in _rows(answers.with_name("prompts.jsonl"))}
    by_kb = defaultdict(list)
    for row in rows:
        by_kb[questions[row["id"]]["kb"]].append(row)
    figures = {
        "answers": len(rows),
        "right": 0,
        "passed": 0,
        "withheld": [],
        "repairs": 0,
        "repairs_accepted": 0,
        "passed_after_repair": 0,
        "repair_outcomes": [],
        "missing_repairs": [],
    }
    for kb, kb_rows in sorted(by_kb.items()):
        index = _index(KBS / kb)
        for row in kb_rows:
            if not row.get("right"):
                continue
            question = questions[row["id"]]["question"]
            verdict = answer_check(index=index, question=question, answer=row["answer"])
            figures["right"] += 1
            figures["passed"] += verdict.grounded
            first = turn_outcome(index, question, row["answer"])
            if first["passed"]:
                figures["passed_after_repair"] += 1
                continue
            if not verdict.grounded:
                reasons = [u["reason"] for u in verdict.as_dict()["unsupported"]]
                figures["withheld"].append(f"{row['id']}: {row['answer']} -> {reasons}")
            figures["repairs"] += 1
            repair = repairs.get(row["id"])
            if repair is None:
                figures["missing_repairs"].append(row["id"])
                continue
            second = turn_outcome(index, question, repair["answer"], shown=first["released"])
            figures["repairs_accepted"] += second["passed"]
            fixed = second["passed"] and bool(repair.get("right"))
            figures["passed_after_repair"] += fixed
            outcome = "passes" if second["passed"] else f"withheld ({second['problem']})"
            judged = "judged right" if repair.get("right") else "judged not right"
            figures["repair_outcomes"].append(
                f"{row['id']} repaired: {repair['answer']} -> {outcome}, {judged}"
            )
    return figures


def repair_prompts(answers: Path) -> None:
    """The repair request of every answer judged right that the turn's guard withholds."""
    from chat.llm.prompt import build_repair_messages

    questions = {r["id"]: r for r in _rows(answers.with_name("prompts.jsonl"))}
    out = answers.with_name("repair_prompts.jsonl")
    with out.open("w", encoding="utf-8") as file:
        for row in _rows(answers):
            record = questions[row["id"]]
            index = _index(KBS / record["kb"])
            first = turn_outcome(index, record["question"], row["answer"])
            if not row.get("right") or first["passed"]:
                continue
            messages = build_repair_messages(
                cited_request(index, record["question"]),
                draft=row["answer"],
                reason=first["problem"] or "",
                shown=first["released"],
                token_budget=6000,
            )
            repair = {"id": row["id"], "shown": first["released"], "messages": messages}
            file.write(json.dumps(repair, ensure_ascii=False) + "\n")


def main() -> None:
    _setup()
    command, path = sys.argv[1], Path(sys.argv[2])
    {"prompts": prompts, "check": check, "repair-prompts": repair_prompts}[command](path)


if __name__ == "__main__":
    main()
