from pathlib import Path

import pytest
from django.conf import settings

from grounding.index import KBIndex
from grounding.selectors import clear_index_cache
from grounding.services import read_kb_dir, source_records

SHIPPED_KB = Path(settings.BASE_DIR) / "kb"


@pytest.fixture(scope="session")
def shipped_index() -> KBIndex:
    """The shipped ``kb/`` as an in-memory index, built the way a reindex stores it."""
    records = [
        record for source in read_kb_dir(SHIPPED_KB).values() for record in source_records(source)
    ]
    return KBIndex(records, version=1)


@pytest.fixture
def write_kb(tmp_path):
    """Write ``{relative path: text}`` into a fresh KB directory and return it."""
    kb_dir = tmp_path / "kb"
    kb_dir.mkdir()

    def write(files: dict[str, str]) -> Path:
        for relative, text in files.items():
            file = kb_dir / relative
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")
        return kb_dir

    return write


@pytest.fixture(autouse=True)
def _fresh_index_cache():
    clear_index_cache()
    yield
    clear_index_cache()
