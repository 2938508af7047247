import json

from django.core.management.base import BaseCommand

from grounding.answer_check import answer_check
from grounding.selectors import current_index


class Command(BaseCommand):
    help = "Run the grounding check on an answer to a question and print the verdict."

    def add_arguments(self, parser):
        parser.add_argument("--question", required=True)
        parser.add_argument("--answer", required=True)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, question: str, answer: str, **options):
        check = answer_check(index=current_index(), question=question, answer=answer)
        if options["json"]:
            self.stdout.write(json.dumps(check.as_dict(), ensure_ascii=False))
            return
        verdict = "GROUNDED" if check.grounded else f"WITHHELD ({check.reason})"
        self.stdout.write(f"Verdict: {verdict}")
        self.stdout.write(f"Shown:   {check.text}")
        for citation in check.citations:
            self.stdout.write(
                f"  cites {citation['file']}:{citation['line']}: {citation['snippet']}"
            )
        for item in check.unsupported:
            where = ", ".join(f"{loc['file']}:{loc['line']}" for loc in item["kb_locations"])
            self.stdout.write(
                f"  unsupported {item['text']!r} ({item['reason']}); "
                f"in the KB: {where or 'nowhere'}"
            )
