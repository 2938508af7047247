"""Per-table and per-line bounds on a KB file's text, applied as it is read.

Pure: no ORM, no I/O. One pathological file (a table of 5,000 columns, a line of
thousands of numbers) must not cost the index gigabytes or a question seconds,
and the editor must hear what was left out.

| bound | setting | what is kept | reported as |
|---|---|---|---|
| columns of a table row | ``KB_MAX_TABLE_COLUMNS`` (50) | a row's first cells (the key column and its neighbours) | ``line N: a table row of M columns read to its first K`` |
| numbers on a line | ``KB_MAX_NUMBERS_PER_LINE`` (200) | the line up to the end of its K-th number | ``line N: M numbers read to the first K`` |
| numbers in a file | ``KB_MAX_NUMBERS_PER_FILE`` (2,000) | the file up to the line where its K-th number is | ``line N: the file's first K numbers read; the rest of the file skipped`` |

What these cost when no bound holds, measured: a 1.95 MB list of 15,000 products (122,000
numbers) took 38 s to index, 8 s to load, and 2.6 s to verify one answer about it, on the
event loop; a table of 5,000 columns made 20,000 facts.

Each table is reported once (its first row over the cap), so the report stays short.
"""

import re
from dataclasses import dataclass, field

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


@dataclass
class Bounded:
    text: str
    skipped: list[str] = field(default_factory=list)


def bounded_text(
    text: str, *, max_columns: int, max_numbers: int, max_file_numbers: int = 0
) -> Bounded:
    """``text`` with every table row, line and the file within the bounds (0: no bound)."""
    if not (max_columns or max_numbers or max_file_numbers):
        return Bounded(text)
    lines = text.split("\n")
    skipped: list[str] = []
    in_wide_table = False
    total = 0
    for index, line in enumerate(lines):
        stripped = line.lstrip()
        if max_columns and stripped.startswith("|"):
            cells = stripped.strip().strip("|").split("|")
            if len(cells) > max_columns:
                if not in_wide_table:
                    skipped.append(
                        f"line {index + 1}: a table row of {len(cells)} columns read to its "
                        f"first {max_columns}"
                    )
                in_wide_table = True
                lines[index] = "| " + " | ".join(c.strip() for c in cells[:max_columns]) + " |"
                continue
        else:
            in_wide_table = False
        if max_numbers:
            numbers = list(_NUMBER.finditer(lines[index]))
            if len(numbers) > max_numbers:
                skipped.append(
                    f"line {index + 1}: {len(numbers)} numbers read to the first {max_numbers}"
                )
                lines[index] = lines[index][: numbers[max_numbers - 1].end()]
        if max_file_numbers:
            total += len(_NUMBER.findall(lines[index]))
            if total > max_file_numbers:
                skipped.append(
                    f"line {index + 1}: the file's first {max_file_numbers} numbers read; "
                    "the rest of the file skipped"
                )
                return Bounded("\n".join(lines[:index]), skipped)
    return Bounded("\n".join(lines), skipped)
