"""Answers a language model wrote from the product's prompt alone pass the guard.

``tests/grounding/model/prompts.jsonl`` holds the prompt of 200 questions of our own KBs (the
instructions and the retrieved lines with their references, ``bench.model_answers``);
``answers.jsonl`` what a model wrote from each, judged against its context. The guard on the
same retrieval must pass at least 95 % of the answers judged right, before the repair round
trip and after it: ``repair_prompts.jsonl`` holds the repair request of each right answer the
turn's guard withholds, ``repairs.jsonl`` what the model wrote from it, judged the same way.
"""

from pathlib import Path

from bench.model_answers import verdicts

ANSWERS = Path(__file__).parent / "model" / "answers.jsonl"


def test_answers_a_model_wrote_from_the_prompt_pass_the_guard():
    figures = verdicts(ANSWERS)
    assert figures["answers"] >= 200 and figures["right"] >= 190
    assert figures["passed"] >= 0.95 * figures["right"], "\n".join(figures["withheld"])


def test_after_one_repair_round_trip_at_least_as_many_right_answers_pass():
    """Every withheld right answer has its repair; one that is judged right, begins with
    what the customer saw and passes the guard counts."""
    figures = verdicts(ANSWERS)
    assert figures["missing_repairs"] == []
    assert figures["repairs"] == figures["right"] - figures["passed"]
    after = figures["passed_after_repair"]
    assert figures["passed"] <= after <= figures["right"]
    assert after >= 0.95 * figures["right"], "\n".join(figures["repair_outcomes"])
