"""Decompression bombs (grounding/kbimport/bounds.py): refused by name before parsing.

A DOCX or PDF far under the 2 MB download cap that unpacks to hundreds of megabytes grew
``import_kb`` to 3.5 GB; it is now refused from its declared and measured unpacked size,
and the import's memory is bounded as a last resort.
"""

import io
import subprocess
import sys
import zipfile
import zlib

import pytest

from grounding.kbimport.bounds import (
    TooLarge,
    UnpackBounds,
    check_docx,
    check_pdf,
)
from grounding.kbimport.extract import DOCX_TYPES, PDF_TYPES, ExtractionError, extract
from grounding.kbimport.service import ImportOptions, import_sources
from tests.kbimport.site import AVBOKNING_DOCX, VILLKOR_PDF

MB = 1 << 20


def docx_bomb(unpacked: int) -> bytes:
    """A Word document whose body is ``unpacked`` bytes of spaces (deflated to a sliver)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(b'<?xml version="1.0"?><w:document><w:body>')
            chunk = b" " * MB
            for _ in range(unpacked // MB):
                member.write(chunk)
            member.write(b"</w:body></w:document>")
    return out.getvalue()


def pdf_bomb(unpacked: int, pages: int = 1) -> bytes:
    """A PDF whose one content stream inflates to ``unpacked`` bytes."""
    inflater = zlib.compressobj(9)
    body = b"".join(inflater.compress(b"0 0 m " * (MB // 6)) for _ in range(unpacked // MB))
    body += inflater.flush()
    page_objects = b"".join(
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>\n" for _ in range(pages)
    )
    return (
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Count 1 >> endobj\n3 0 obj " + page_objects + b"endobj\n"
        b"4 0 obj << /Length %d /Filter /FlateDecode >>\nstream\n"
        % len(body)
        + body
        + b"\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    )


def test_a_docx_that_unpacks_to_300_mb_is_refused_by_name_before_parsing(tmp_path, settings):
    """Under the download cap (a few hundred KB), refused without being unpacked."""
    bomb = docx_bomb(300 * MB)
    assert len(bomb) < settings.KB_IMPORT_MAX_BYTES
    path = tmp_path / "handbok.docx"
    path.write_bytes(bomb)
    kb = tmp_path / "kb"
    kb.mkdir()
    report = import_sources([str(path)], kb_dir=kb, options=ImportOptions.from_settings())
    assert report.imported == 0
    [(source, reason)] = report.failed
    assert source == str(path)
    assert reason.startswith("handbok.docx: refused, unpacks to ")


def test_a_pdf_whose_stream_inflates_to_300_mb_is_refused_by_name(tmp_path):
    bomb = pdf_bomb(300 * MB)
    assert len(bomb) < 2_000_000
    with pytest.raises(
        ExtractionError, match=r"^villkor\.pdf: refused, its streams unpack to over"
    ):
        extract(bomb, next(iter(PDF_TYPES)), name="villkor.pdf")


def test_a_docx_of_high_ratio_is_refused_under_the_size_bound():
    """A small archive that expands a thousandfold is a bomb whatever its total."""
    bomb = docx_bomb(10 * MB)
    with pytest.raises(TooLarge, match="times its size"):
        check_docx(bomb, UnpackBounds(max_unpacked=50 * MB, max_ratio=100))


def test_a_pdf_with_too_many_pages_is_refused():
    with pytest.raises(TooLarge, match=r"^3 pages \(at most 2\)"):
        check_pdf(pdf_bomb(0, pages=3), UnpackBounds(max_pages=2))


def test_the_fixture_documents_are_within_every_bound():
    """An ordinary PDF and Word document pass, and are imported as before."""
    check_pdf(VILLKOR_PDF, UnpackBounds())
    check_docx(AVBOKNING_DOCX, UnpackBounds())
    assert "Avbokning" in extract(AVBOKNING_DOCX, next(iter(DOCX_TYPES)), name="a.docx").markdown


def test_a_document_that_runs_out_of_memory_fails_alone_and_by_name(monkeypatch):
    from markitdown import MarkItDown

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(MarkItDown, "convert_stream", exhausted)
    with pytest.raises(ExtractionError, match=r"^a\.docx: refused, over the import's memory bound"):
        extract(AVBOKNING_DOCX, next(iter(DOCX_TYPES)), name="a.docx")


def test_the_memory_bound_turns_runaway_growth_into_a_memory_error():
    """``limit_memory`` (import_kb and the worker set it): 3 GB cannot be allocated under 1 GB."""
    code = (
        "from grounding.kbimport.bounds import limit_memory\n"
        "limit_memory(1_000_000_000)\n"
        "try:\n    bytearray(3_000_000_000)\nexcept MemoryError:\n    print('refused')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "refused"
