"""`manage.py verify_answer` on the shipped KB: right numbers pass, any change fails."""

import json
import random
import re
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from grounding import selectors
from grounding.answer_check import answer_check
from grounding.claims import extract_claims
from grounding.services import kb_reindex


@pytest.fixture
def index(transactional_db):
    selectors.clear_index_cache()
    kb_reindex(kb_dir=settings.KB_DIR)
    yield selectors.current_index()
    selectors.clear_index_cache()


def verify(question: str, answer: str) -> dict:
    out = StringIO()
    call_command("verify_answer", question=question, answer=answer, json=True, stdout=out)
    return json.loads(out.getvalue())


def kb_fact_lines() -> list[str]:
    """Every line of the shipped KB that states a number, as plain text."""
    facts = []
    for path in sorted(Path(settings.KB_DIR).rglob("*.md")):
        body = path.read_text().split("\n---\n", 1)[-1]
        for line in body.splitlines():
            text = re.sub(r"^\s*(?:[-*]\s+|#+\s+)|\*\*", "", line).strip()
            if extract_claims(text) and not text.startswith("|"):
                facts.append(text)
    return facts


def test_json_output_shape(index):
    """--json prints one object with grounded, text, citations and unsupported."""
    result = verify("Vad kostar premium?", "Premium kostar 399 kr/månad.")
    assert result["grounded"] is True and result["text"] == "Premium kostar 399 kr/månad."
    assert result["citations"][0]["file"] == "kb/pricing.md"
    assert "399" in result["citations"][0]["snippet"] and result["unsupported"] == []


def test_human_output_names_the_unsupported_number_and_where_it_occurs(index):
    """The plain output gives the verdict and where a wrong number does occur in the KB."""
    out = StringIO()
    call_command(
        "verify_answer",
        question="Vad kostar basic?",
        answer="Basic kostar 399 kr/månad.",
        stdout=out,
    )
    text = out.getvalue()
    assert "WITHHELD" in text and "399" in text and "kb/pricing.md" in text


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Vad kostar premium?", "Premium kostar 399 kr/månad."),
        ("Vad kostar premium?", "Premium kostar 399 kronor i månaden."),
        ("Vad kostar premium?", "Premium: 399 kr per månad"),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på +46 8 123 45 67."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på 08-123 45 67."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på +46-8-123-45-67."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på +4681234567."),
        ("När gäller villkoren från?", "Villkoren gäller från 2025-01-01."),
        ("När gäller villkoren från?", "Villkoren gäller från 2025/01/01."),
        ("Vilka öppettider har kundtjänst?", "Måndag–fredag 08:00–17:00."),
        ("Vad kostar premium årsvis?", "Premium årsvis kostar 3 990 kr/år."),
        ("Vad kostar premium årsvis?", "Premium årsvis kostar 3990 kr/år."),
        ("Hur stor är studentrabatten?", "Studenter får 25 % rabatt på Premium."),
        ("Hur stor är studentrabatten?", "Studenter får 25% rabatt på Premium."),
    ],
)
def test_correct_statements_in_any_written_form_pass(index, question, answer):
    """A KB number written in any supported form is grounded."""
    result = verify(question, answer)
    assert result["grounded"] is True, result


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Vad kostar premium?", "Premium kostar 398 kr/månad."),
        ("Vad kostar premium?", "Premium kostar 39.9 kr/månad."),
        ("Vad kostar basic?", "Basic kostar 399 kr/månad."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på +46 8 123 45 76."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på 08-123 45 77."),
        ("När gäller villkoren från?", "Villkoren gäller från 2025-01-02."),
        ("När gäller villkoren från?", "Villkoren gäller från 2024/01/01."),
        ("Vilka öppettider har kundtjänst?", "Måndag–fredag 08:00–18:00."),
        ("Hur stor är studentrabatten?", "Studenter får 35 % rabatt på Premium."),
        ("Hur stor är studentrabatten?", "Studenter får 2.5 % rabatt på Premium."),
        ("Vad kostar en pappersfaktura?", "En pappersfaktura kostar 29 %."),
        # A value that exists in the KB, attached to something else:
        (
            "Appen synkar inte, vad gör jag?",
            "1. Kontrollera att det finns ledigt lagringsutrymme i ditt abonnemang.",
        ),
        ("How long is the password reset link valid?", "The reset link is valid for 4 hours."),
        (
            "Hur långt är Molnias ansvar?",
            "Ansvaret gäller avgifter under de senaste 10 månaderna.",
        ),
    ],
)
def test_any_changed_number_fails(index, question, answer):
    """A changed digit, moved decimal point, swapped date, phone or percentage is withheld."""
    result = verify(question, answer)
    assert result["grounded"] is False, result
    assert result["text"] == "Jag kan inte verifiera det." and result["unsupported"]


def test_every_kb_fact_passes_and_every_digit_change_fails(index):
    """Sweep over the shipped KB: each fact line verifies; changing one digit never does."""
    rng = random.Random(7)
    facts = kb_fact_lines()
    assert len(facts) > 40
    for fact in facts:
        check = answer_check(index=index, question=fact, answer=fact)
        assert check.grounded, (fact, check.unsupported)
        # A digit of a number written with digits ("ett år" has none to change).
        numbers = [c for c in extract_claims(fact) if any(ch.isdigit() for ch in c.text)]
        if not numbers:
            continue
        target = rng.choice(numbers)
        digits = [i for i in range(target.start, target.end) if fact[i].isdigit()]
        i = rng.choice(digits)
        changed = fact[:i] + str((int(fact[i]) + rng.randint(1, 9)) % 10) + fact[i + 1 :]
        wrong = answer_check(index=index, question=fact, answer=changed)
        assert not wrong.grounded, (fact, changed)
