"""Citations as the page labels them: by the document's title, never its path.

An imported document (``manage.py import_kb``) also carries its page's ``url``: the
chat page's citation links to it.

The title is the KB document's front-matter ``title``; without one, the first
heading of the document (the top of its chunks' heading paths); without that,
the file name made readable (``kb/support/sla.md`` -> ``Sla``). Computed once
per loaded index, at read time: the grounding models are not changed.
"""

import weakref
from pathlib import PurePosixPath

_titles: "weakref.WeakKeyDictionary[object, dict[str, str]]" = weakref.WeakKeyDictionary()
_urls: "weakref.WeakKeyDictionary[object, dict[str, str]]" = weakref.WeakKeyDictionary()


def file_label(file: str) -> str:
    """The last resort: the file name without folders or extension, capitalised."""
    stem = PurePosixPath(file).stem.replace("_", " ").replace("-", " ").strip()
    return stem[:1].upper() + stem[1:] if stem else file


def document_titles(index) -> dict[str, str]:
    """``{file: title}`` for every document of ``index`` (cached per index)."""
    try:
        return _titles[index]
    except KeyError:
        pass
    titles: dict[str, str] = {}
    for record in index.records:
        if record.file in titles:
            continue
        heading = record.heading.split(" > ")[0].strip() if record.heading else ""
        titles[record.file] = record.title or heading or file_label(record.file)
    _titles[index] = titles
    return titles


def source_urls(index) -> dict[str, str]:
    """``{file: source URL}`` for the imported documents of ``index`` (cached per index)."""
    try:
        return _urls[index]
    except KeyError:
        pass
    urls = {record.file: record.source_url for record in index.records if record.source_url}
    _urls[index] = urls
    return urls


def with_titles(citations: list[dict], index) -> list[dict]:
    """The citation dicts with a ``title`` each, and the ``url`` of an imported page."""
    titles, urls = document_titles(index), source_urls(index)
    labelled = []
    for c in citations:
        citation = {**c, "title": titles.get(c["file"]) or file_label(c["file"])}
        if url := urls.get(c["file"]):
            citation["url"] = url
        labelled.append(citation)
    return labelled
