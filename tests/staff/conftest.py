"""The chat tests' fixtures the staff tests share (a KB indexed; a person on duty)."""

from tests.chat.conftest import handoff_open_all_day, indexed_kb

__all__ = ["handoff_open_all_day", "indexed_kb"]
