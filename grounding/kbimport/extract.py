"""Main content as markdown: HTML with trafilatura, PDF and DOCX with markitdown.

Pure of the network and the KB: bytes in, text out. Navigation, footers, cookie
banners and other boilerplate are trafilatura's to strip; headings, lists and
tables come out as markdown (tables as pipe tables, so a cell keeps its row and
column for the checker).
"""

import io
from dataclasses import dataclass

import trafilatura
from markitdown import MarkItDown, StreamInfo

from grounding.kbimport.bounds import TooLarge, UnpackBounds, check_docx, check_pdf
from grounding.kbimport.documents import clean_markdown


class ExtractionError(ValueError):
    """A source that yields no text (an image-only PDF, an empty page)."""


@dataclass(frozen=True, slots=True)
class Extracted:
    title: str
    markdown: str


HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
PDF_TYPES = frozenset({"application/pdf"})
DOCX_TYPES = frozenset({"application/vnd.openxmlformats-officedocument.wordprocessingml.document"})
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
SUPPORTED_TYPES = HTML_TYPES | PDF_TYPES | DOCX_TYPES | MARKDOWN_TYPES
EXTENSION_TYPES = {
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".docx": next(iter(DOCX_TYPES)),
    ".md": "text/markdown",
}


def extract(
    data: bytes,
    content_type: str,
    *,
    name: str,
    encoding: str | None = None,
    bounds: UnpackBounds = UnpackBounds(),  # noqa: B008 (frozen)
) -> Extracted:
    """The title and cleaned markdown of one source; ``ExtractionError`` when there is none,
    or when a DOCX or PDF would unpack past ``bounds`` (checked before it is parsed)."""
    if content_type in HTML_TYPES:
        found = _html(data, encoding)
    elif content_type in MARKDOWN_TYPES:
        text = data.decode(encoding or "utf-8", errors="replace")
        found = Extracted(title="", markdown=text)
    elif content_type in PDF_TYPES | DOCX_TYPES:
        found = _document(data, content_type, name, bounds)
    else:
        raise ExtractionError(f"{name}: content type {content_type!r} is not imported")
    markdown = clean_markdown(found.markdown)
    if not markdown.strip():
        raise ExtractionError(f"{name}: no text in it (an image-only PDF or an empty page?)")
    return Extracted(title=" ".join(found.title.split())[:300], markdown=markdown)


def _html(data: bytes, encoding: str | None) -> Extracted:
    html = data.decode(encoding or "utf-8", errors="replace")
    markdown = trafilatura.extract(
        html,
        output_format="markdown",
        include_tables=True,
        include_links=False,  # link targets are no KB text (and "javascript:" never gets in)
        include_images=False,
        include_comments=False,
        favor_precision=True,
    )
    metadata = trafilatura.extract_metadata(html)
    title = (metadata.title if metadata else "") or ""
    return Extracted(title=title, markdown=markdown or "")


def _document(data: bytes, content_type: str, name: str, bounds: UnpackBounds) -> Extracted:
    extension = ".pdf" if content_type in PDF_TYPES else ".docx"
    try:
        (check_pdf if extension == ".pdf" else check_docx)(data, bounds)
    except TooLarge as error:
        raise ExtractionError(f"{name}: refused, {error}") from error
    try:
        result = MarkItDown(enable_plugins=False).convert_stream(
            io.BytesIO(data), stream_info=StreamInfo(mimetype=content_type, extension=extension)
        )
    except MemoryError as error:  # past KB_IMPORT_MAX_MEMORY_BYTES: this document alone fails
        raise ExtractionError(f"{name}: refused, over the import's memory bound") from error
    except Exception as error:  # markitdown wraps each converter's own errors
        raise ExtractionError(
            f"{name}: cannot be read as {extension[1:].upper()}: {error}"
        ) from error
    return Extracted(title=result.title or "", markdown=result.text_content or "")
