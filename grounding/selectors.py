"""Reads of the KB index: the process-wide in-memory index, kept current.

Each call reads the version row (one cheap query); only when the version
moved does it reload every chunk and every fact, in one query each. So a
``reindex_kb`` run in any process reaches every server process at its next
question, without a restart.
"""

import threading
import time
from datetime import datetime

from channels.db import database_sync_to_async
from django.conf import settings

from grounding.facts import Fact, Kind
from grounding.index import ChunkRecord, KBIndex
from grounding.lookup import FactTable
from grounding.models import KBChunk, KBDocument, KBFact, KBIndexState

# The version with the time of its bump: a version number alone repeats when
# a database is recreated (every test database starts at 0 again).
StateKey = tuple[int, datetime | None]

_lock = threading.Lock()
_cached: tuple[StateKey, KBIndex] | None = None
_checked_at = float("-inf")  # time.monotonic() of the last version check from async code
_RELOAD_ATTEMPTS = 5

_CHUNK_FIELDS = (
    "id",
    "text",
    "heading",
    "start_line",
    "end_line",
    "document__path",
    "document__title",
    "document__source_url",
    "document__category",
    "document__language",
    "document__keywords",
)


def _load_records() -> list[ChunkRecord]:
    rows = KBChunk.objects.order_by("document__path", "ordinal").values_list(*_CHUNK_FIELDS)
    return [
        ChunkRecord(
            chunk_id=chunk_id,
            text=text,
            heading=heading,
            start_line=start_line,
            end_line=end_line,
            file=path,
            title=title,
            source_url=source_url,
            category=category,
            language=language,
            keywords=tuple(keywords or ()),
        )
        for (
            chunk_id,
            text,
            heading,
            start_line,
            end_line,
            path,
            title,
            source_url,
            category,
            language,
            keywords,
        ) in rows
    ]


_FACT_FIELDS = (
    "value",
    "kind",
    "unit",
    "period",
    "subject",
    "qualifiers",
    "context",
    "subject_text",
    "document__path",
    "line",
    "cell_row",
    "cell_column",
    "text",
    "language",
    "entity",
    "attribute",
    "group",
)


_KINDS = {kind.value: kind for kind in Kind}  # a dict lookup, not Enum's call, per row


def _load_facts() -> list[Fact]:
    rows = KBFact.objects.order_by("document__path", "ordinal").values_list(*_FACT_FIELDS)
    return [
        Fact(
            value=value,
            kind=_KINDS[kind],
            unit=unit or None,
            period=period or None,
            subject=frozenset(subject),
            qualifiers=frozenset(qualifiers),
            context=frozenset(context),
            subject_text=subject_text,
            file=path,
            line=line,
            cell=None if row is None else (row, column),
            text=text,
            language=language,
            entity=frozenset(entity),
            attribute=frozenset(attribute),
            group=group,
        )
        for (
            value,
            kind,
            unit,
            period,
            subject,
            qualifiers,
            context,
            subject_text,
            path,
            line,
            row,
            column,
            text,
            language,
            entity,
            attribute,
            group,
        ) in rows
    ]


def _state_key() -> StateKey:
    row = (
        KBIndexState.objects.filter(pk=KBIndexState.SINGLETON_ID)
        .values_list("version", "updated_at")
        .first()
    )
    return row if row is not None else (0, None)


def _load_index(key: StateKey) -> tuple[StateKey, KBIndex]:
    """The index of state ``key``, read consistently without a read transaction.

    The chunks come from one statement and the facts from another; reading
    the state again afterwards proves no reindex committed in between or
    before them (a read transaction would take the write lock on SQLite in
    IMMEDIATE mode).
    """
    for _ in range(_RELOAD_ATTEMPTS):
        records, facts = _load_records(), _load_facts()
        after = _state_key()
        if after == key:
            return key, KBIndex(records, version=key[0], facts=FactTable(facts))
        key = after
    # Reindexes keep committing: records and facts may be of two versions, so
    # they are kept under a key that matches nothing, and the next call reloads.
    return (-1, None), KBIndex(records, version=key[0], facts=FactTable(facts))


def current_index() -> KBIndex:
    """The in-memory index of the current KB version (thread safe, cached per process)."""
    global _cached
    key = _state_key()
    cached = _cached
    if cached is not None and cached[0] == key:
        return cached[1]
    with _lock:
        if _cached is None or _cached[0] != key:
            _cached = _load_index(key)
        return _cached[1]


async def acurrent_index() -> KBIndex:
    """``current_index`` for async code.

    The version is read from the database (in a worker thread) at most every
    ``KB_VERSION_CHECK_SECONDS``; in between, turns use the cached index with
    no thread hop at all. A reindex announces itself over the channel layer
    (``arefresh_index``), so the check is only the fallback.
    """
    global _checked_at
    cached = _cached
    now = time.monotonic()
    if cached is not None and now - _checked_at < settings.KB_VERSION_CHECK_SECONDS:
        return cached[1]
    # Claimed before the await: turns that start meanwhile use the cached index
    # instead of each queueing a check of their own.
    _checked_at = now
    return await database_sync_to_async(current_index, thread_sensitive=False)()


async def arefresh_index(*, version: int) -> None:
    """Load index ``version`` now, once per process however many connections heard of it."""
    global _checked_at
    cached = _cached
    if cached is not None and cached[0][0] >= version:
        return
    _checked_at = float("-inf")
    await acurrent_index()


def index_version() -> int:
    """The current version of the index (0 before the first reindex)."""
    return _state_key()[0]


def index_is_empty() -> bool:
    """Whether no KB document has been indexed yet."""
    return not KBDocument.objects.exists()


def clear_index_cache() -> None:
    """Forget the cached index (tests, and after swapping databases)."""
    global _cached, _checked_at
    with _lock:
        _cached = None
        _checked_at = float("-inf")
