"""README.md is a front page, and every shell command that it and docs/ show runs on a fresh
clone where ``make`` put the tools: each names a make target of the Makefile (a management
command for ``make manage``) or a file of the repository, never a bare ``uv``."""

import os
import re
import shlex
import subprocess

import pytest
from django.core.management import get_commands

from tests.live import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *DOCS]
SHELL_BLOCK = re.compile(r"^```(?:sh|bash|shell|console)\n(.*?)^```", re.MULTILINE | re.DOTALL)
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# A commit hash as a development log cites one: hex, with a letter and a digit in it.
HASH_LIKE = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")


def make_targets() -> set[str]:
    rule = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:(?!=)", re.MULTILINE)
    return set(rule.findall((ROOT / "Makefile").read_text()))


def shell_commands(path) -> list[str]:
    """Every command line of the document's shell blocks (continuations joined)."""
    commands = []
    for block in SHELL_BLOCK.findall(path.read_text()):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                commands.append(line)
    return commands


COMMANDS = [
    pytest.param(path, line, id=f"{path.relative_to(ROOT)}: {line.split('#')[0].strip()}")
    for path in DOCUMENTS
    for line in shell_commands(path)
]


def test_the_readme_is_a_front_page_of_at_most_200_lines_without_a_development_log():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    assert HASH_LIKE.findall(text) == []
    assert re.findall(r"issue \d+", text, re.IGNORECASE) == []
    assert re.findall(r"\bseed", text, re.IGNORECASE) == []
    assert re.findall(r"\b20\d\d-\d\d-\d\d\b", text) == []  # no dated passes


def test_the_readme_starts_with_the_two_commands_and_shows_shell_commands_to_check():
    first = shell_commands(README)
    assert [shlex.split(line, comments=True) for line in first[:2]] == [
        ["make", "run"],
        ["make", "test"],
    ]
    assert len(first) >= 5


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_document_tells_the_reader_to_run_uv_which_a_fresh_clone_has_not_on_its_path(path):
    assert re.findall(r"\buv (?:run|sync|add|pip)\b", path.read_text()) == []
    assert "SPEC.md" not in path.read_text()


def check_command(line: str) -> None:
    """Fail unless ``line`` runs a make target (a real management command for ``manage``) or
    an executable file of the repository, with variables set before it or as make's."""
    words = shlex.split(line, comments=True)
    if words[-1] == "&":
        words.pop()
    if words[0] == "export":
        assert words[1:] and all(ASSIGNMENT.match(word) for word in words[1:]), line
        return
    env = {}
    while words and ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words, f"{line!r} only sets variables"
    if words[0] != "make":
        program = ROOT / words[0]
        assert program.is_file() and os.access(program, os.X_OK), f"{line!r}: no such program"
        return
    targets = [word for word in words[1:] if not ASSIGNMENT.match(word)]
    assert targets and set(targets) <= make_targets(), f"{line!r}: unknown make target"
    variables = dict(word.partition("=")[::2] for word in words[1:] if ASSIGNMENT.match(word))
    if "manage" in targets:
        command = shlex.split(variables["ARGS"])[0]
        known = {*get_commands(), "help"}  # `manage.py help` is the utility's own
        assert command in known, f"{line!r}: no management command {command!r}"
    # make itself reads the line (its variables, its targets), printing and running nothing.
    dry = subprocess.run(
        ["make", "--dry-run", "--no-print-directory", *words[1:]],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert dry.returncode == 0, dry.stderr


@pytest.mark.parametrize(("path", "line"), COMMANDS)
def test_every_shown_command_names_a_make_target_or_a_file_of_the_repository(path, line):
    check_command(line)


@pytest.mark.parametrize(
    "line",
    [
        "make createsuperuser   # a target the Makefile does not have",
        'make manage ARGS="no_such_command --flag"',
        "uv run python manage.py createsuperuser",
        "scripts/no-such-script.sh",
        "PORT=9000",
    ],
)
def test_the_check_fails_a_command_that_would_not_run_on_a_fresh_clone(line):
    with pytest.raises(AssertionError):
        check_command(line)
