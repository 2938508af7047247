"""The apps import in one direction, checked by import-linter's contracts (``make lint``)."""

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.live import ROOT

APPS = ("config", "staff", "chat", "actions", "grounding")
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))
# Imports inside a function: only where the order of imports matters, said in a comment there.
ORDERED_IMPORTS = {"config/serve.py"}
# The importer's libraries load in an import run, not in a chat server (tests/config/test_asgi.py).
LAZY_IMPORTS = {"grounding/kbimport/runs.py"}
NOT_OURS = {"chat/fast_insert.py"}  # issue 14 replaces the batch writer


def contracts() -> list[dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["contracts"]


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_the_contracts_state_the_layering():
    """config > staff > chat > actions > grounding; daphne, Twisted, Autobahn only in the server
    package."""
    by_type = {c["type"]: c for c in contracts()}
    assert by_type["layers"]["layers"] == list(APPS)
    forbidden = by_type["forbidden"]
    assert set(forbidden["forbidden_modules"]) == {"daphne", "twisted", "autobahn"}
    sources = set(forbidden["source_modules"])
    assert {"chat", "actions", "grounding", "config.asgi", "config.settings"} <= sources
    config_modules = {
        f"config.{path.stem}" for path in (ROOT / "config").glob("*.py") if path.stem != "__init__"
    }
    # Every config module is a source but the server entry point.
    assert config_modules - sources == {"config.serve"}


def test_lint_imports_passes():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "broken" in done.stdout and "0 broken" in done.stdout


def test_the_contracts_catch_an_upward_import_and_a_daphne_import(tmp_path):
    """A copy of the apps with grounding importing chat, and chat importing daphne, fails both."""
    for app in APPS:
        shutil.copytree(ROOT / app, tmp_path / app, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / "grounding" / "upward.py").write_text("from chat import protocol\n")
    (tmp_path / "chat" / "server_specific.py").write_text("import daphne.server\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "grounding.upward -> chat.protocol" in done.stdout
    assert "chat.server_specific -> daphne" in done.stdout


def test_no_imports_hidden_inside_functions():
    """Imports sit at the top of a module, where a cycle would show."""
    hidden = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if "/migrations/" in name or name in ORDERED_IMPORTS | LAZY_IMPORTS | NOT_OURS:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    hidden += [
                        f"{name}:{inner.lineno}"
                        for inner in ast.walk(node)
                        if isinstance(inner, ast.Import | ast.ImportFrom)
                    ]
    assert hidden == []
