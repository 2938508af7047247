"""The imported files in the KB directory, and what changed since the last import.

| case | what happens | reported as |
|---|---|---|
| a new source | its file is written | ``added`` |
| a source whose cleaned content's SHA-1 changed | its file is rewritten | ``updated`` |
| a source whose SHA-1 is unchanged | its file is not touched (``reindex_kb`` then skips it too) | ``unchanged`` |
| a page of an earlier import of the site that the crawl no longer finds, or that answers 404 or 410 | its file is removed (``--keep-vanished``: kept and only reported) | ``removed`` / ``vanished`` |
| a page that failed to fetch otherwise (5xx, a timeout, over the size cap) | its previous file is kept | ``failed`` |
| a crawl that reached no page, stopped at the page limit, or an import of single pages (``--depth 0``) | nothing is removed | |

Each site's manifest (``imported/<host>/manifest.json``, not markdown, so never indexed)
maps the site's URLs to their files. Nothing is written outside the KB directory.
"""

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from grounding.kbimport.documents import ImportedDocument, sha1_of_file

MANIFEST = "manifest.json"


@dataclass
class ImportReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    vanished: list[str] = field(default_factory=list)  # kept: --keep-vanished
    failed: list[tuple[str, str]] = field(default_factory=list)  # (source, why)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (url, why)

    @property
    def imported(self) -> int:
        return len(self.added) + len(self.updated) + len(self.unchanged)

    def as_dict(self) -> dict:
        return {
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "vanished": self.vanished,
            "failed": [{"source": s, "reason": r} for s, r in self.failed],
            "skipped": [{"url": u, "reason": r} for u, r in self.skipped],
        }

    def summary(self) -> str:
        return (
            f"{len(self.added)} added, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {len(self.removed)} removed, "
            f"{len(self.failed)} failed, {len(self.skipped)} skipped"
        )


def _inside(kb_dir: Path, relative: str) -> Path:
    target = (kb_dir / relative).resolve()
    if not target.is_relative_to(kb_dir.resolve()):
        raise ValueError(f"{relative} is outside the KB directory")
    return target


def write_document(
    kb_dir: Path, document: ImportedDocument, fetched_at: datetime, report: ImportReport
) -> None:
    target = _inside(kb_dir, document.kb_path)
    if target.is_file() and not target.is_symlink():
        old = target.read_text(encoding="utf-8", errors="replace")
        if sha1_of_file(old) == document.sha1:
            report.unchanged.append(document.source)
            return
        report.updated.append(document.source)
    else:
        report.added.append(document.source)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".md.partial")
    temporary.write_text(document.file_text(fetched_at), encoding="utf-8")
    temporary.replace(target)  # a reader never sees half a file


def read_manifest(kb_dir: Path, folder: str) -> dict[str, str]:
    path = _inside(kb_dir, f"{folder}/{MANIFEST}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def write_manifest(kb_dir: Path, folder: str, pages: dict[str, str]) -> None:
    path = _inside(kb_dir, f"{folder}/{MANIFEST}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(sorted(pages.items())), indent=1) + "\n", encoding="utf-8")


def remove_vanished(
    kb_dir: Path, vanished: dict[str, str], report: ImportReport, *, keep: bool
) -> None:
    for url, relative in sorted(vanished.items()):
        if keep:
            report.vanished.append(url)
            continue
        target = _inside(kb_dir, relative)
        if target.is_file():
            target.unlink()
        report.removed.append(url)
