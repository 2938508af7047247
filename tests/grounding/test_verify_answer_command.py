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


def kb_fact_lines() -> list[tuple[str, str]]:
    """Every line of the shipped KB that states a number, as plain text, and its locator
    (``kb/FILE:LINE``, as the index names the file)."""
    facts = []
    kb_dir = Path(settings.KB_DIR)
    for path in sorted(kb_dir.rglob("*.md")):
        locator = f"kb/{path.relative_to(kb_dir).as_posix()}"
        lines = path.read_text().splitlines()
        body_start = 0
        if lines and lines[0] == "---":  # front matter: its lines count, its numbers do not
            body_start = lines.index("---", 1) + 1
        for number, line in enumerate(lines[body_start:], start=body_start + 1):
            # A numbered list's "2." opens a step: not a number (test_a_numbered_step_...).
            text = re.sub(r"^\s*(?:[-*]\s+|#+\s+|\d{1,2}\.\s+)|\*\*", "", line).strip()
            if extract_claims(text) and not text.startswith("|"):
                facts.append((text, f"{locator}:{number}"))
    return facts


def cite(text: str, locator: str) -> str:
    """``text`` with ``[locator]`` right after each of its numbers (before punctuation)."""
    out, last = [], 0
    for claim in extract_claims(text):
        end = claim.start + len(claim.text.rstrip(".,;:!?"))
        out.append(text[last:end] + f" [{locator}]")
        last = end
    return "".join(out) + text[last:]


ANSWER = "Premium kostar 399 kr/månad [kb/pricing.md:18]."


def test_json_output_shape(index):
    """--json prints one object with grounded, text, citations and unsupported."""
    result = verify("Vad kostar premium?", ANSWER)
    assert result["grounded"] is True and result["text"] == ANSWER
    assert result["citations"][0]["file"] == "kb/pricing.md"
    assert "399" in result["citations"][0]["snippet"] and result["unsupported"] == []


def test_human_output_names_the_unsupported_number_and_where_it_occurs(index):
    """The plain output gives the verdict and where a wrong number does occur in the KB."""
    out = StringIO()
    call_command(
        "verify_answer",
        question="Vad kostar basic?",
        answer="Basic kostar 399 kr/månad [kb/pricing.md:18].",
        stdout=out,
    )
    text = out.getvalue()
    assert "WITHHELD" in text and "399" in text and "kb/pricing.md" in text


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Vad kostar premium?", "Premium kostar 399 kr/månad [kb/pricing.md:18]."),
        ("Vad kostar premium?", "Premium kostar 399 kronor i månaden [kb/pricing.md:18]."),
        ("Vad kostar premium?", "Premium: 399 kr per månad [kb/pricing.md:18]"),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på +46 8 123 45 67 [kb/contact.md:13]."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på 08-123 45 67 [kb/contact.md:13]."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på +46-8-123-45-67 [kb/contact.md:13]."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på +4681234567 [kb/contact.md:13]."),
        ("När gäller villkoren från?", "Villkoren gäller från 2025-01-01 [kb/terms.md:9]."),
        ("När gäller villkoren från?", "Villkoren gäller från 2025/01/01 [kb/terms.md:9]."),
        ("Vilka öppettider har kundtjänst?", "Måndag–fredag 08:00–17:00 [kb/contact.md:19]."),
        ("Vad kostar premium årsvis?", "Premium årsvis kostar 3 990 kr/år [kb/pricing.md:34]."),
        ("Vad kostar premium årsvis?", "Premium årsvis kostar 3990 kr/år [kb/pricing.md:34]."),
        (
            "Hur stor är studentrabatten?",
            "Studenter får 25 % [kb/pricing.md:38] rabatt på Premium.",
        ),
        ("Hur stor är studentrabatten?", "Studenter får 25% [kb/pricing.md:38] rabatt på Premium."),
    ],
)
def test_correct_statements_in_any_written_form_pass(index, question, answer):
    """A KB number written in any supported form is grounded."""
    result = verify(question, answer)
    assert result["grounded"] is True, result


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Vad kostar premium?", "Premium kostar 398 kr/månad [kb/pricing.md:18]."),
        ("Vad kostar premium?", "Premium kostar 39.9 kr/månad [kb/pricing.md:18]."),
        ("Vad kostar basic?", "Basic kostar 399 kr/månad [kb/pricing.md:18]."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på +46 8 123 45 76 [kb/contact.md:13]."),
        ("Vilket telefonnummer har kundtjänst?", "Ring oss på 08-123 45 77 [kb/contact.md:13]."),
        ("När gäller villkoren från?", "Villkoren gäller från 2025-01-02 [kb/terms.md:9]."),
        ("När gäller villkoren från?", "Villkoren gäller från 2024/01/01 [kb/terms.md:9]."),
        ("Vilka öppettider har kundtjänst?", "Måndag–fredag 08:00–18:00 [kb/contact.md:19]."),
        (
            "Hur stor är studentrabatten?",
            "Studenter får 35 % [kb/pricing.md:38] rabatt på Premium.",
        ),
        (
            "Hur stor är studentrabatten?",
            "Studenter får 2.5 % [kb/pricing.md:38] rabatt på Premium.",
        ),
        ("Vad kostar en pappersfaktura?", "En pappersfaktura kostar 29 % [kb/billing.md:15]."),
        # A value that exists in the KB, cited from a sibling's line (Standard's reply time):
        (
            "Hur snabbt svarar kundtjänst Premium?",
            "Premium: svar inom 24 timmar [kb/support/sla.md:18].",
        ),
        # The right value cited from a line that does not state it:
        ("Vad kostar premium?", "Premium kostar 399 kr/månad [kb/pricing.md:34]."),
        # The right value with no reference, or only a chunk marker:
        ("Vad kostar premium?", "Premium kostar 399 kr/månad."),
        ("Vad kostar premium?", "Premium kostar 399 kr/månad [1]."),
        (
            "How long is the password reset link valid?",
            "The reset link is valid for 4 hours [kb/en/support.md:30].",
        ),
        (
            "Hur långt är Molnias ansvar?",
            "Ansvaret gäller avgifter under de senaste 10 månaderna [kb/terms.md:37].",
        ),
    ],
)
def test_any_changed_number_fails(index, question, answer):
    """A changed digit, moved decimal point, swapped date, phone or percentage is withheld."""
    result = verify(question, answer)
    assert result["grounded"] is False, result
    assert result["text"] == "Jag kan inte verifiera det." and result["unsupported"]


def test_every_kb_fact_passes_and_every_digit_change_fails(index):
    """Sweep over the shipped KB: each fact line, citing itself, verifies; changing one digit
    never does."""
    rng = random.Random(7)
    facts = kb_fact_lines()
    assert len(facts) > 40
    for fact, locator in facts:
        answer = cite(fact, locator)
        check = answer_check(index=index, question=fact, answer=answer)
        assert check.grounded, (answer, check.unsupported)
        # A digit of a number written with digits ("ett år" has none to change).
        numbers = [c for c in extract_claims(fact) if any(ch.isdigit() for ch in c.text)]
        if not numbers:
            continue
        target = rng.choice(numbers)
        digits = [i for i in range(target.start, target.end) if fact[i].isdigit()]
        i = rng.choice(digits)
        changed = fact[:i] + str((int(fact[i]) + rng.randint(1, 9)) % 10) + fact[i + 1 :]
        wrong = answer_check(index=index, question=fact, answer=cite(changed, locator))
        assert not wrong.grounded, (fact, changed)


def test_a_numbered_step_is_not_a_number(index):
    """ "2. Kontrollera ..." opens a step of a list: it needs no reference."""
    result = verify(
        "Appen synkar inte, vad gör jag?",
        "2. Kontrollera att det finns ledigt lagringsutrymme i ditt abonnemang.",
    )
    assert result["grounded"] is True, result


def test_a_line_that_was_not_retrieved_is_withheld(index):
    """A fact of the KB, cited from a line the question did not retrieve, is withheld."""
    result = verify("Vad kostar en pappersfaktura?", "Telefon: +46 8 123 45 67 [kb/contact.md:13].")
    assert result["grounded"] is False, result
    assert result["unsupported"][0]["reason"] == "cites a line not retrieved for this question"


def test_the_facts_own_id_is_accepted_as_its_reference(index):
    """``[F:xxxxxxxx]``, the product's id of a fact, names the same line as ``[kb/FILE:LINE]``."""
    premium = next(iter(index.facts.on_line("kb/pricing.md", 18)))
    result = verify("Vad kostar premium?", f"Premium kostar 399 kr/månad [{premium.fact_id}].")
    assert result["grounded"] is True, result
    assert [(c["file"], c["line"]) for c in result["citations"]] == [("kb/pricing.md", 18)]
    wrong = verify("Vad kostar basic?", f"Basic kostar 399 kr/månad [{premium.fact_id}].")
    assert wrong["grounded"] is False, wrong


def test_a_number_repeated_from_the_question_cites_it(index):
    """``[Q]`` passes a number the question states; alone it grounds nothing of the KB's."""
    question = "Hur stor volymrabatt får ett företag med 200 användare?"
    both = verify(
        question,
        "Med 200 användare [Q] får ni 20 % [kb/business/business.md:20] rabatt på månadsavgiften.",
    )
    assert both["grounded"] is True, both
    assert [(c["file"], c["line"]) for c in both["citations"]] == [("kb/business/business.md", 20)]
    not_asked = verify(question, "Med 300 användare [Q] får ni 20 % [kb/business/business.md:20].")
    assert not_asked["grounded"] is False, not_asked
    alone = verify("Kostar det 250 kr att byta abonnemang?", "Ja, det kostar 250 kr [Q].")
    assert alone["grounded"] is False, alone
