"""``import_sources``: sites, pages and files into the KB directory (see the package table).
``import_replacing``: the same into an empty directory that then becomes the whole KB."""

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
from django.conf import settings
from django.utils import timezone

from grounding.kbimport.bounds import UnpackBounds
from grounding.kbimport.confine import confined_transport
from grounding.kbimport.crawl import CrawlLimits, crawl
from grounding.kbimport.documents import (
    IMPORT_FOLDER,
    ImportedDocument,
    category_for,
    file_path,
    page_path,
)
from grounding.kbimport.extract import EXTENSION_TYPES, ExtractionError, extract
from grounding.kbimport.fetch import Fetched
from grounding.kbimport.writer import (
    ImportReport,
    read_manifest,
    remove_vanished,
    write_document,
    write_manifest,
)

Progress = Callable[[str, ImportReport], None]
# A page answering these is gone from the site: its file goes too (other failures keep it).
GONE = frozenset({"HTTP 404", "HTTP 410"})


@dataclass(frozen=True, slots=True)
class ImportOptions:
    max_pages: int
    max_depth: int  # 0: the given page only
    max_bytes: int
    timeout: float
    delay: float
    keep_vanished: bool = False
    page_seconds: float | None = None  # KB_IMPORT_PAGE_SECONDS: a page's whole fetch
    run_seconds: float | None = None  # KB_IMPORT_RUN_SECONDS: a site's whole crawl
    # A DOCX's or PDF's unpacked size (kbimport.bounds); frozen, so one default is shared safely.
    unpack: UnpackBounds = UnpackBounds()  # noqa: RUF009
    internal_hosts: tuple[str, ...] = ()  # KB_IMPORT_INTERNAL_HOSTS (grounding.kbimport.confine)

    @classmethod
    def from_settings(cls, **overrides) -> "ImportOptions":
        values = {
            "max_pages": settings.KB_IMPORT_MAX_PAGES,
            "max_depth": settings.KB_IMPORT_MAX_DEPTH,
            "max_bytes": settings.KB_IMPORT_MAX_BYTES,
            "timeout": settings.KB_IMPORT_TIMEOUT,
            "delay": settings.KB_IMPORT_DELAY,
            "page_seconds": settings.KB_IMPORT_PAGE_SECONDS,
            "run_seconds": settings.KB_IMPORT_RUN_SECONDS,
            "internal_hosts": tuple(settings.KB_IMPORT_INTERNAL_HOSTS),
            "unpack": UnpackBounds(
                max_unpacked=settings.KB_IMPORT_MAX_UNPACKED_BYTES,
                max_ratio=settings.KB_IMPORT_MAX_RATIO,
                max_pages=settings.KB_IMPORT_MAX_PDF_PAGES,
            ),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def is_url(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


def import_sources(
    sources: Sequence[str],
    *,
    kb_dir: Path,
    options: ImportOptions,
    progress: Progress | None = None,
) -> ImportReport:
    """Import every source into ``kb_dir``; the report says what changed and what failed."""
    kb_dir = Path(kb_dir)
    if not kb_dir.is_dir():
        raise FileNotFoundError(f"KB directory not found: {kb_dir}")
    report = ImportReport()
    notify = progress or (lambda source, report: None)
    with httpx.Client(
        # Every connection (source, redirects, links) to a checked public address only.
        transport=confined_transport(options.internal_hosts),
        trust_env=False,  # no proxy from the environment: it would connect for us, unchecked
        timeout=options.timeout,
        follow_redirects=False,
        headers={"User-Agent": settings.KB_IMPORT_USER_AGENT},
    ) as client:
        for source in sources:
            if is_url(source):
                _import_site(client, source, kb_dir, options, report, notify)
            else:
                _import_files(Path(source), kb_dir, options, report, notify)
    return report


def import_replacing(
    sources: Sequence[str],
    *,
    kb_dir: Path,
    options: ImportOptions,
    progress: Progress | None = None,
) -> ImportReport:
    """Import every source into an empty directory; when at least one page or file came in,
    its result replaces everything in ``kb_dir`` (the example KB included). When nothing
    could be imported (the site down, no such file), ``kb_dir`` is left as it was."""
    kb_dir = Path(kb_dir)
    if not kb_dir.is_dir():
        raise FileNotFoundError(f"KB directory not found: {kb_dir}")
    # Beside the KB (the same file system), so the result moves in by renames.
    staging = Path(tempfile.mkdtemp(prefix=f".{kb_dir.name}-replacing-", dir=kb_dir.parent))
    try:
        report = import_sources(sources, kb_dir=staging, options=options, progress=progress)
        if report.imported:
            for entry in kb_dir.iterdir():
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
            for entry in staging.iterdir():
                entry.rename(kb_dir / entry.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def _page_document(page: Fetched, options: ImportOptions) -> ImportedDocument:
    extracted = extract(
        page.data, page.content_type, name=page.url, encoding=page.encoding, bounds=options.unpack
    )
    return ImportedDocument(
        kb_path=page_path(page.url),
        source=page.url,
        title=extracted.title or page.url,
        category=category_for(
            page.url, settings.KB_IMPORT_CATEGORIES, settings.KB_IMPORT_DEFAULT_CATEGORY
        ),
        markdown=extracted.markdown,
    )


def _import_site(client, start, kb_dir, options, report, notify) -> None:
    folder = page_path(start).rsplit("/", 1)[0]
    manifest = read_manifest(kb_dir, folder)
    found: dict[str, str] = {}
    kept: dict[str, str] = {}
    complete = True
    limits = CrawlLimits(
        options.max_pages,
        options.max_depth,
        options.max_bytes,
        options.delay,
        page_seconds=options.page_seconds,
        run_seconds=options.run_seconds,
    )
    for visit in crawl(client, start, limits, user_agent=settings.KB_IMPORT_USER_AGENT):
        if visit.skipped is not None:
            report.skipped.append((visit.url, visit.skipped))
            # Cut short by the page or the time limit: the pages not reached are not gone.
            complete = complete and not visit.skipped.startswith("over the ")
        elif visit.error is not None:
            report.failed.append((visit.url, visit.error))
            if visit.url in manifest and visit.error not in GONE:
                kept[visit.url] = manifest[visit.url]  # keeps its previous version
        else:
            try:
                document = _page_document(visit.page, options)
            except ExtractionError as error:
                report.failed.append((visit.url, str(error)))
                if visit.url in manifest:
                    kept[visit.url] = manifest[visit.url]
            else:
                write_document(kb_dir, document, timezone.now(), report)
                found[visit.url] = document.kb_path
        notify(visit.url, report)
    if not found:
        return  # no page reached: the site is down, not empty; the old files stay
    vanished = {url: path for url, path in manifest.items() if url not in found and url not in kept}
    # Only a whole crawl says a page is gone: not one cut short by the page limit, and not
    # the import of single pages (--depth 0), which says nothing of the site's others.
    if complete and options.max_depth > 0:
        remove_vanished(kb_dir, vanished, report, keep=options.keep_vanished)
        if options.keep_vanished:
            kept.update(vanished)
    else:
        kept.update(vanished)
    write_manifest(kb_dir, folder, {**kept, **found})


def _import_files(path: Path, kb_dir, options, report, notify) -> None:
    if not path.exists():
        report.failed.append((str(path), "no such file or folder"))
        return
    root = path.resolve() if path.is_dir() else path.resolve().parent
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        name = str(file)
        content_type = EXTENSION_TYPES.get(file.suffix.lower())
        if content_type is None:
            if not path.is_dir():
                report.failed.append((name, f"{file.suffix or 'no extension'} is not imported"))
            continue
        if not file.resolve().is_relative_to(root):
            report.skipped.append((name, "links outside the folder"))
            continue
        if file.resolve().is_relative_to(kb_dir.resolve() / IMPORT_FOLDER):
            continue  # our own output
        size = file.stat().st_size
        if size > options.max_bytes:
            report.failed.append((name, f"over {options.max_bytes} bytes ({size})"))
            continue
        try:
            extracted = extract(
                file.read_bytes(), content_type, name=file.name, bounds=options.unpack
            )
        except ExtractionError as error:
            report.failed.append((name, str(error)))
            continue
        relative = file.relative_to(path).as_posix() if path.is_dir() else file.name
        document = ImportedDocument(
            kb_path=file_path(relative),
            source=file.name,
            title=extracted.title or file.stem,
            category="",
            markdown=extracted.markdown,
        )
        write_document(kb_dir, document, timezone.now(), report)
        notify(name, report)
