"""Writes to the KB index: ``kb_reindex`` turns the markdown files into rows.

The swap is atomic: every change of one run (documents added, chunks and
facts replaced, documents removed, the version bumped) commits in one
transaction, so a reader sees the old index or the new one, never a mix.
Server processes notice the new version and reload (see ``selectors``).
"""

import hashlib
import importlib.util
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from grounding.bounds import bounded_text
from grounding.broadcast import index_version_announce
from grounding.chunking import Chunk, chunk_markdown, first_heading, parse_front_matter
from grounding.facts import Fact, extract_facts
from grounding.index import ChunkRecord
from grounding.kbimport.documents import web_url
from grounding.models import KBChunk, KBDocument, KBFact, KBIndexState, Language
from grounding.selectors import index_version
from grounding.text import detect_language, remove_invisible

logger = logging.getLogger(__name__)

KB_PREFIX = "kb"
_BATCH = 500  # rows per bulk statement and ids per IN (...) list

Progress = Callable[[str], None]


class KBDirectoryNotFound(Exception):
    pass


@dataclass(frozen=True, slots=True)
class ReindexSummary:
    added: int
    changed: int
    unchanged: int
    removed: int
    chunks: int  # chunks in the index after the run
    seconds: float
    version: int
    facts: int = 0  # facts in the index after the run

    @property
    def changed_anything(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def __str__(self) -> str:
        return (
            f"{self.added} added, {self.changed} changed, {self.unchanged} unchanged, "
            f"{self.removed} removed; {self.chunks} chunks, {self.facts} facts; "
            f"version {self.version}; {self.seconds:.2f} s"
        )


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A KB file's text as the index reads it (decoded, bounded)."""

    path: str  # "kb/<relative path>"
    text: str
    content_hash: str


@dataclass(frozen=True, slots=True)
class KBFile:
    """A KB file as read from the disk: its bytes and their hash.

    Planning a reindex needs only the hash; ``source()`` decodes and bounds the
    text, which a reindex does only for the files it indexes (about a
    millisecond for a 10 KB file: nearly all of an unchanged run's time when
    every file was bounded).
    """

    path: str  # "kb/<relative path>"
    data: bytes
    content_hash: str

    def source(self) -> SourceFile:
        text = self.data.decode("utf-8-sig", errors="replace")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        # NUL cannot be stored (PostgreSQL refuses it): one bad byte must not stop a reindex.
        text = text.replace("\x00", "\ufffd")
        # What a reader cannot see, the checker must not read: bidi controls and other
        # format characters go before anything reads the text.
        text = remove_invisible(text)
        bounded = bounded_text(
            text,
            max_columns=settings.KB_MAX_TABLE_COLUMNS,
            max_numbers=settings.KB_MAX_NUMBERS_PER_LINE,
            max_file_numbers=settings.KB_MAX_NUMBERS_PER_FILE,
        )
        for what in bounded.skipped:
            logger.warning("KB file %s: %s (the rest of it skipped)", self.path, what)
        return SourceFile(path=self.path, text=bounded.text, content_hash=self.content_hash)


@dataclass(frozen=True, slots=True)
class _Plan:
    added: list[KBFile]
    changed: list[tuple[int, KBFile]]  # (document id, new content)
    unchanged: int
    removed: list[tuple[int, str]]  # (document id, path)

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.changed or self.removed)


def read_kb_dir(kb_dir: Path) -> dict[str, SourceFile]:
    """Every ``*.md`` file under ``kb_dir`` (hidden folders skipped), by KB path, as indexed."""
    return {path: file.source() for path, file in read_kb_files(kb_dir).items()}


def read_kb_files(kb_dir: Path) -> dict[str, KBFile]:
    """Every ``*.md`` file under ``kb_dir`` (hidden folders skipped), by KB path, as read."""
    kb_dir = Path(kb_dir)
    if not kb_dir.is_dir():
        raise KBDirectoryNotFound(f"KB directory not found: {kb_dir}")
    files = {}
    root = kb_dir.resolve()
    max_bytes = settings.KB_MAX_FILE_BYTES
    for file in sorted(kb_dir.rglob("*.md")):
        relative = file.relative_to(kb_dir)
        if not file.is_file() or any(part.startswith(".") for part in relative.parts):
            continue
        if not file.resolve().is_relative_to(root):
            logger.warning("KB file %s skipped: it links outside the KB directory", relative)
            continue
        size = file.stat().st_size
        if max_bytes and size > max_bytes:
            logger.warning(
                "KB file %s skipped: %d bytes, over KB_MAX_FILE_BYTES (%d)",
                relative,
                size,
                max_bytes,
            )
            continue
        data = file.read_bytes()
        path = f"{KB_PREFIX}/{relative.as_posix()}"
        files[path] = KBFile(path=path, data=data, content_hash=_hash(data))
    return files


def _hash(data: bytes) -> str:
    bounds = (
        f"{settings.KB_MAX_TABLE_COLUMNS}/{settings.KB_MAX_NUMBERS_PER_LINE}/"
        f"{settings.KB_MAX_NUMBERS_PER_FILE}"
    )
    return hashlib.sha256(data + extractor_fingerprint().encode() + bounds.encode()).hexdigest()


# What decides a file's chunks and facts besides its bytes: these modules and libraries.
_EXTRACTOR_MODULES = (
    "grounding.bounds",
    "grounding.chunking",
    "grounding.facts",
    "grounding.notation",
    "grounding.numerals",
    "grounding.clauses",
    "grounding.terms",
    "grounding.text",
    "grounding.phones",
    "grounding.lexicon",
)
_EXTRACTOR_LIBRARIES = (
    "markdown-it-py",
    "babel",
    "simplemma",
    "phonenumbers",
    "PyStemmer",
    "num2words",
    "text2num",
)


@cache
def extractor_fingerprint() -> str:
    """A digest of the code that turns a file into chunks and facts.

    Part of every document's stored hash: after an upgrade that changes how
    facts are read, the next reindex treats every file as changed and stores
    facts the new checker understands, instead of keeping stale ones.
    """
    digest = hashlib.sha256()
    for name in _EXTRACTOR_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        path = Path(spec.origin)
        files = sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]
        for file in files:
            digest.update(file.read_bytes())
    for library in _EXTRACTOR_LIBRARIES:
        digest.update(f"{library}=={metadata.version(library)}".encode())
    return digest.hexdigest()


def _plan(files: dict[str, KBFile], existing: dict[str, tuple[int, str]]) -> _Plan:
    added, changed, unchanged = [], [], 0
    for path, file in files.items():
        if path not in existing:
            added.append(file)
        elif existing[path][1] != file.content_hash:
            changed.append((existing[path][0], file))
        else:
            unchanged += 1
    removed = [(doc_id, path) for path, (doc_id, _) in existing.items() if path not in files]
    return _Plan(added=added, changed=changed, unchanged=unchanged, removed=removed)


def _existing_documents() -> dict[str, tuple[int, str]]:
    return {
        path: (doc_id, content_hash)
        for doc_id, path, content_hash in KBDocument.objects.values_list(
            "id", "path", "content_hash"
        )
    }


def document_fields(source: SourceFile) -> dict:
    """Title, category, keywords and language from front matter, folders and text."""
    front = parse_front_matter(source.text)
    folders = list(PurePosixPath(source.path).parts[1:-1])
    language_folders = [f for f in folders if f in Language.values]
    topic_folders = [f for f in folders if f not in Language.values]
    language = front.get("lang") or front.get("language")
    if language not in Language.values:
        language = language_folders[0] if language_folders else detect_language(source.text)
    return {
        "title": (
            front.get("title") or first_heading(source.text) or PurePosixPath(source.path).stem
        )[:300],
        "category": (front.get("category") or (topic_folders[0] if topic_folders else ""))[:100],
        "source_url": web_url(front.get("source") or ""),
        "keywords": list(front.get_list("keywords")),
        "language": language,
        "content_hash": source.content_hash,
    }


def _chunk(source: SourceFile) -> list[Chunk]:
    return chunk_markdown(
        source.text, size=settings.KB_CHUNK_SIZE, overlap=settings.KB_CHUNK_OVERLAP
    )


def source_records(source: SourceFile) -> list[ChunkRecord]:
    """The index records of one file as a reindex would store them, without the database.

    For building an in-memory index straight from files (tests, benchmarks).
    """
    fields = document_fields(source)
    return [
        ChunkRecord(
            file=source.path,
            text=chunk.text,
            start_line=chunk.start_line,
            end_line=chunk.end_line,
            heading=chunk.heading[:500],
            category=fields["category"],
            language=fields["language"],
            title=fields["title"],
            source_url=fields["source_url"],
            keywords=tuple(fields["keywords"]),
        )
        for chunk in _chunk(source)
    ]


def source_facts(source: SourceFile) -> list[Fact]:
    """The facts of one file as a reindex would store them, without the database."""
    return extract_facts(
        source.text, file=source.path, language=document_fields(source)["language"]
    )


def fact_fields(fact: Fact) -> dict:
    """A fact as the fields of its ``KBFact`` row (the document aside)."""
    row, column = fact.cell if fact.cell is not None else (None, None)
    return {
        "value": fact.value,
        "kind": str(fact.kind),
        "unit": fact.unit or "",
        "period": fact.period or "",
        "subject_text": fact.subject_text[:500],
        "subject": sorted(fact.subject),
        "qualifiers": sorted(fact.qualifiers),
        "context": sorted(fact.context),
        "line": fact.line,
        "cell_row": row,
        "cell_column": column,
        "text": fact.text,
        "language": fact.language,
        "fact_id": fact.fact_id,
        "entity": sorted(fact.entity),
        "attribute": sorted(fact.attribute),
        "group": fact.group[:500],
    }


def _facts_for(document: KBDocument, source: SourceFile) -> list[KBFact]:
    facts = extract_facts(source.text, file=source.path, language=document.language)
    return [
        KBFact(document=document, ordinal=ordinal, **fact_fields(fact))
        for ordinal, fact in enumerate(facts)
    ]


def _chunks_for(document: KBDocument, source: SourceFile) -> list[KBChunk]:
    return [
        KBChunk(
            document=document,
            ordinal=chunk.ordinal,
            heading=chunk.heading[:500],
            text=chunk.text,
            start_line=chunk.start_line,
            end_line=chunk.end_line,
        )
        for chunk in _chunk(source)
    ]


def _batches(ids: list[int]) -> Iterable[list[int]]:
    for start in range(0, len(ids), _BATCH):
        yield ids[start : start + _BATCH]


def kb_reindex(*, kb_dir: Path, progress: Progress | None = None) -> ReindexSummary:
    """Bring the index in line with the markdown files under ``kb_dir``.

    Unchanged files (same SHA-256) are skipped; a run that changes nothing
    writes nothing and keeps the version. Otherwise all writes and the
    version bump commit together. Concurrent runs queue on the state row's
    lock (and on SQLite's write lock), and each re-plans inside its
    transaction, so they never undo each other.
    """
    started = time.perf_counter()
    report = progress or (lambda message: None)
    files = read_kb_files(kb_dir)
    report(f"Read {len(files)} markdown files from {kb_dir}")
    plan = _plan(files, _existing_documents())
    if plan.is_empty:
        version = index_version()
    else:
        plan, version = _apply(files, report)
    return ReindexSummary(
        added=len(plan.added),
        changed=len(plan.changed),
        unchanged=plan.unchanged,
        removed=len(plan.removed),
        chunks=KBChunk.objects.count(),
        facts=KBFact.objects.count(),
        seconds=time.perf_counter() - started,
        version=version,
    )


@transaction.atomic
def _apply(files: dict[str, KBFile], report: Progress) -> tuple[_Plan, int]:
    state, _ = KBIndexState.objects.select_for_update().get_or_create(pk=KBIndexState.SINGLETON_ID)
    # Planned again under the lock: another run may have committed meanwhile.
    plan = _plan(files, _existing_documents())
    if plan.is_empty:
        return plan, state.version
    now = timezone.now()
    # Runs after the new index is committed, so processes reload the new one.
    transaction.on_commit(lambda: index_version_announce(version=state.version))

    for ids in _batches([doc_id for doc_id, _ in plan.removed]):
        KBDocument.objects.filter(id__in=ids).delete()
    for ids in _batches([doc_id for doc_id, _ in plan.changed]):
        KBChunk.objects.filter(document_id__in=ids).delete()
        KBFact.objects.filter(document_id__in=ids).delete()

    changed_documents = []
    for doc_id, file in plan.changed:
        source = file.source()
        fields = document_fields(source)
        document = KBDocument(id=doc_id, path=source.path, indexed_at=now, **fields)
        changed_documents.append((document, source))
    KBDocument.objects.bulk_update(
        [document for document, _ in changed_documents],
        ["title", "source_url", "category", "keywords", "language", "content_hash", "indexed_at"],
        batch_size=_BATCH,
    )

    added_documents = []
    for file in plan.added:
        source = file.source()
        document = KBDocument(path=source.path, indexed_at=now, **document_fields(source))
        added_documents.append((document, source))
    KBDocument.objects.bulk_create([document for document, _ in added_documents], batch_size=_BATCH)

    chunks, facts = [], []
    for document, source in changed_documents + added_documents:
        new_chunks = _chunks_for(document, source)
        new_facts = _facts_for(document, source)
        report(f"Indexed {source.path}: {len(new_chunks)} chunks, {len(new_facts)} facts")
        chunks.extend(new_chunks)
        facts.extend(new_facts)
    KBChunk.objects.bulk_create(chunks, batch_size=_BATCH)
    KBFact.objects.bulk_create(facts, batch_size=_BATCH)

    for _, path in plan.removed:
        report(f"Removed {path}")
    state.version += 1
    state.save(update_fields=["version", "updated_at"])
    return plan, state.version
