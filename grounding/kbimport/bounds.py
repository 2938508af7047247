"""Decompression bombs: what a DOCX or PDF unpacks to, measured before it is parsed.

Pure but for :func:`limit_memory`: bytes in, a verdict out; nothing is kept but counts. A document that a parser would
inflate to gigabytes (a 2 MB file under the download cap) is refused with its name.

| document | measured | bound (setting) |
|---|---|---|
| DOCX (a zip) | the members' declared uncompressed sizes (``zipfile`` never reads a member past its declared size), their sum and its ratio to the file's size, the number of members | ``KB_IMPORT_MAX_UNPACKED_BYTES``, ``KB_IMPORT_MAX_RATIO``, 10,000 members |
| PDF | every ``FlateDecode`` stream inflated in bounded steps (never more than the budget left), their sum and its ratio; the ``/Type /Page`` objects, in the file and in its object streams | the same two, and ``KB_IMPORT_MAX_PDF_PAGES`` |
| both | the memory of the whole import (``KB_IMPORT_MAX_MEMORY_BYTES``: ``RLIMIT_AS`` of the importing process, :func:`limit_memory`); a document that still runs out of memory fails alone, named | |
"""

import io
import re
import resource
import zipfile
import zlib
from dataclasses import dataclass

MAX_MEMBERS = 10_000
_STEP = 1 << 20  # inflate a stream a megabyte at a time
_STREAM = re.compile(rb"stream\r?\n")
_END = re.compile(rb"\r?\nendstream|endstream")
_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


class TooLarge(ValueError):
    """A document that would unpack past a bound; the message says which."""


@dataclass(frozen=True, slots=True)
class UnpackBounds:
    max_unpacked: int = 50_000_000
    max_ratio: float = 100.0
    max_pages: int = 2000


def check_docx(data: bytes, bounds: UnpackBounds) -> None:
    """``TooLarge`` when the DOCX's members would unpack past the bounds."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, ValueError):
        return  # not a zip: the parser reports it
    if len(members) > MAX_MEMBERS:
        raise TooLarge(f"{len(members)} parts in the archive (at most {MAX_MEMBERS})")
    total = sum(member.file_size for member in members)
    _check_total(total, len(data), bounds)


def check_pdf(data: bytes, bounds: UnpackBounds) -> None:
    """``TooLarge`` when the PDF's compressed streams or its pages pass the bounds."""
    total = 0
    pages = len(_PAGE.findall(data))
    position = 0
    while (match := _STREAM.search(data, position)) is not None:
        start = match.end()
        end = _END.search(data, start)
        stop = end.start() if end else len(data)
        budget = bounds.max_unpacked - total
        size, inflated = _inflated(data[start:stop], budget + 1)
        total += size
        if total > bounds.max_unpacked:
            raise TooLarge(f"its streams unpack to over {bounds.max_unpacked} bytes")
        pages += len(_PAGE.findall(inflated))  # object streams hold page objects too
        position = end.end() if end else len(data)
    if pages > bounds.max_pages:
        raise TooLarge(f"{pages} pages (at most {bounds.max_pages})")
    _check_total(total, len(data), bounds)


def _inflated(raw: bytes, budget: int) -> tuple[int, bytes]:
    """The size a zlib stream inflates to (at most ``budget``) and its first megabytes."""
    inflater = zlib.decompressobj()
    size, kept = 0, []
    pending = raw
    try:
        while pending and size < budget:
            piece = inflater.decompress(pending, min(_STEP, budget - size))
            if not piece:
                break
            size += len(piece)
            if size <= 4 * _STEP:
                kept.append(piece)
            pending = inflater.unconsumed_tail
    except zlib.error:
        pass  # not (or no longer) Flate: only what inflated counts
    return size, b"".join(kept)


def _check_total(total: int, packed: int, bounds: UnpackBounds) -> None:
    if total > bounds.max_unpacked:
        raise TooLarge(f"unpacks to {total} bytes (at most {bounds.max_unpacked})")
    ratio = total / max(packed, 1)
    if ratio > bounds.max_ratio:
        raise TooLarge(f"unpacks to {ratio:.0f} times its size (at most {bounds.max_ratio:g})")


def limit_memory(max_bytes: int) -> None:
    """Bound this process's address space to ``max_bytes`` (0: no bound): past it an
    allocation fails with ``MemoryError`` instead of swapping the machine to death."""
    if max_bytes <= 0:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        max_bytes = min(max_bytes, hard)
    if soft == resource.RLIM_INFINITY or soft > max_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, hard))
