"""The audit trail's SQL, built once per database from the models' own metadata.

A question's beginning and a turn's completion are the two writes of every
turn. Through the ORM each compiled its statements anew (a filter, an
``exists()``, an ``update()``): for one turn written alone, as a single
client's turns are, that compiling was most of the write (``make bench``'s S1;
``bench.audit_cpu`` reports a lone beginning). Here each statement's text, its
columns and the values that are the same for every row (the defaults of the
columns a write does not name) are prepared once per database connection
alias and reused; every value is still prepared by its field's
``get_db_prep_save`` / ``get_db_prep_value``, as the ORM prepares it.

| statement              | used by                  | SQLite                  | PostgreSQL        |
|------------------------|--------------------------|-------------------------|-------------------|
| ``messages_insert``    | a beginning: question,   | the next pk read, then  | ``INSERT ... FROM |
|                        | answer row               | one ``INSERT``, the     | UNNEST(...)       |
|                        |                          | rows' pks given         | RETURNING pk``    |
| ``any_owned``          | a beginning: who owns it | ``SELECT ... IN (...)`` | the same          |
| ``rows_update``        | a completion: answers,   | ``WITH v AS (VALUES     | ``executemany``:  |
| (``conversations_      | conversations' activity  | ...) UPDATE ... FROM v``| one round trip    |
| active`` is one)       | and language             |                         |                   |

Why SQLite's shapes step once per statement: Python's ``sqlite3`` lets go of
the GIL at every step of a statement (``executemany`` steps once per row, and
so does every row an ``INSERT ... RETURNING`` hands back). The writer runs
in a thread beside the event loop, so under load each of those steps waited
for the loop to hand the GIL back: a batch of 50 completions stepped about 100
times, and took 50-60 ms of wall time for 10 ms of its thread's CPU. One step
per statement is why a batch now takes a few. An inserted row's pk is given,
not returned: the write transaction is ``IMMEDIATE`` (``config.settings``), so
nobody else inserts between the read of the next pk and the ``INSERT``; and if
the database were set up otherwise, SQLite refuses the write of a transaction
whose snapshot is stale (``SQLITE_BUSY_SNAPSHOT``), so a pk is never taken twice.
The next pk is the one ``AUTOINCREMENT`` would give (above every pk ever used).

Only public API: ``Model._meta``, ``Field.get_db_prep_*`` and ``db_type``,
``connection.ops.quote_name``, ``connection.cursor()``; plain SQL, but for
PostgreSQL's ``UNNEST`` of a multi-row insert and SQLite's ``sqlite_sequence``
(the table where ``AUTOINCREMENT`` keeps the largest pk used).
"""

import functools
import sqlite3
from dataclasses import dataclass

from django.db import transaction
from django.db.models import NOT_PROVIDED, Field
from django.utils import timezone

from chat.models import Conversation, Handoff, Message

# Callable defaults that build a new empty value each time: the prepared value is the same.
_EMPTY_DEFAULTS = (list, dict, tuple, str)


def _stamped(field: Field) -> bool:
    """A date field the ORM sets to now on save (``auto_now``, ``auto_now_add``)."""
    return getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)


def _constant_default(field: Field) -> bool:
    if _stamped(field):
        return False
    default = field.default
    return default is NOT_PROVIDED or not callable(default) or default in _EMPTY_DEFAULTS


@dataclass(frozen=True)
class _Insert:
    fields: tuple[Field, ...]
    head: str  # "INSERT INTO ... (...) " (SQLite: the pk's column first)
    row_sql: str  # "(%s, %s, ...)", one per row after VALUES
    unnest: str | None  # PostgreSQL: "SELECT * FROM UNNEST((%s)::type[], ...)", one array a column
    tail: str  # " RETURNING pk" (SQLite: nothing, the pks are given)
    next_pk: str | None  # SQLite: the pk AUTOINCREMENT would give the next row
    per_batch: int  # rows per VALUES statement within the database's parameter limit
    shared: dict  # attname -> the prepared default, for the columns a write does not name

    def statements(self, values: list[list]):
        """``(sql, params)`` for rows of prepared values (SQLite: each row's pk first), in order."""
        if self.unnest is not None and len(values) > 1:
            # As Django's own bulk insert on PostgreSQL: one array per column, so the
            # statement's text (parsed by the driver at every call) does not grow with the rows.
            yield self.head + self.unnest + self.tail, [list(c) for c in zip(*values, strict=True)]
            return
        for start in range(0, len(values), self.per_batch):
            batch = values[start : start + self.per_batch]
            rows_sql = ", ".join([self.row_sql] * len(batch))
            yield f"{self.head}VALUES {rows_sql}{self.tail}", [v for row in batch for v in row]


@functools.cache
def _message_insert(alias: str, vendor: str, named: frozenset[str]) -> _Insert:
    connection = transaction.get_connection(alias)
    quote = connection.ops.quote_name
    fields = tuple(f for f in Message._meta.concrete_fields if not f.primary_key)
    shared = {
        f.attname: f.get_db_prep_save(f.get_default(), connection)
        for f in fields
        if f.attname not in named and _constant_default(f)
    }
    table, pk = quote(Message._meta.db_table), quote(Message._meta.pk.column)
    columns = [quote(f.column) for f in fields]
    unnest = next_pk = None
    tail = f" RETURNING {pk}"
    if vendor == "postgresql":
        # The column's type without its length (varchar[], not varchar(16)[]), as Django's.
        casts = ", ".join(f"(%s)::{f.db_type(connection).split('(')[0]}[]" for f in fields)
        unnest = f"SELECT * FROM UNNEST({casts})"
    elif vendor == "sqlite":
        columns.insert(0, pk)
        tail = ""
        next_pk = (
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = %s), 0), "
            f"coalesce((SELECT max({pk}) FROM {table}), 0)) + 1"
        )
    return _Insert(
        fields=fields,
        head=f"INSERT INTO {table} ({', '.join(columns)}) ",
        row_sql="(" + ", ".join(["%s"] * len(columns)) + ")",
        unnest=unnest,
        tail=tail,
        next_pk=next_pk,
        per_batch=max(1, (connection.features.max_query_params or 10_000) // len(columns)),
        shared=shared,
    )


def messages_insert(rows: list[dict], *, alias: str = "default") -> list[int]:
    """Insert ``Message`` rows given as ``{attname: value}``; returns their pks, in order.

    What ``bulk_create`` does for these rows without building a model instance
    per row: a column a row does not name gets its field's default, and
    ``created_at`` now (one time for the call). The rows of one call name the
    same columns.
    """
    if not rows:
        return []
    connection = transaction.get_connection(alias)
    insert = _message_insert(alias, connection.vendor, frozenset(rows[0]))
    now = timezone.now()
    per_call = {
        f.attname: f.get_db_prep_save(now if _stamped(f) else f.get_default(), connection)
        for f in insert.fields
        if f.attname not in rows[0] and f.attname not in insert.shared
    }
    defaults = insert.shared | per_call
    values = [
        [
            f.get_db_prep_save(row[f.attname], connection)
            if f.attname in row
            else defaults[f.attname]
            for f in insert.fields
        ]
        for row in rows
    ]
    if insert.next_pk is not None:
        # The read of the next pk and the rows' INSERT in one write transaction.
        with transaction.atomic(using=alias, savepoint=False), connection.cursor() as cursor:
            cursor.execute(insert.next_pk, [Message._meta.db_table])
            (first,) = cursor.fetchone()
            pks = list(range(first, first + len(values)))
            values = [[pk, *row] for pk, row in zip(pks, values, strict=True)]
            for sql, params in insert.statements(values):
                cursor.execute(sql, params)
        return pks
    pks = []
    with connection.cursor() as cursor:
        for sql, params in insert.statements(values):
            cursor.execute(sql, params)
            pks.extend(pk for (pk,) in cursor.fetchall())
    return pks


def rows_update(model, columns: list[Field], rows: list[list], *, alias: str = "default") -> None:
    """``UPDATE model SET columns WHERE pk`` for each row of prepared values ``[*values, pk]``.

    SQLite (3.33 or later): one statement per chunk of rows, the rows as a
    ``VALUES`` list joined by pk. Elsewhere ``executemany`` of one statement
    (psycopg sends its rows in one round trip).
    """
    if not rows:
        return
    connection = transaction.get_connection(alias)
    quote = connection.ops.quote_name
    table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
    names = [quote(field.column) for field in columns]
    with connection.cursor() as cursor:
        if connection.vendor != "sqlite" or sqlite3.sqlite_version_info < (3, 33):
            assignments = ", ".join(f"{name} = %s" for name in names)
            cursor.executemany(f"UPDATE {table} SET {assignments} WHERE {pk} = %s", rows)
            return
        width = len(names) + 1
        per_statement = max(1, (connection.features.max_query_params or 10_000) // width)
        assignments = ", ".join(f"{name} = v.{name}" for name in names)
        for start in range(0, len(rows), per_statement):
            chunk = rows[start : start + per_statement]
            values = ", ".join(["(" + ", ".join(["%s"] * width) + ")"] * len(chunk))
            cursor.execute(
                f"WITH v({', '.join(names)}, {pk}) AS (VALUES {values}) "
                f"UPDATE {table} SET {assignments} FROM v WHERE {table}.{pk} = v.{pk}",
                [value for row in chunk for value in row],
            )


@functools.cache
def _owned_select(alias: str, vendor: str) -> tuple[str, Field]:
    connection = transaction.get_connection(alias)
    quote = connection.ops.quote_name
    conversation = Handoff._meta.get_field("conversation")
    status = Handoff._meta.get_field("status")
    sql = (
        f"SELECT 1 FROM {quote(Handoff._meta.db_table)} "
        f"WHERE {quote(status.column)} = %s AND {quote(conversation.column)} IN "
    )
    return sql, conversation


def any_owned(conversation_ids, *, alias: str = "default") -> bool:
    """Whether a person owns (an active handoff) any of these conversations: the read
    every beginning makes, in one statement."""
    ids = list(dict.fromkeys(str(pk) for pk in conversation_ids))
    if not ids:
        return False
    connection = transaction.get_connection(alias)
    sql, conversation = _owned_select(alias, connection.vendor)
    params = [Handoff.Status.ACTIVE.value]
    params += [conversation.get_db_prep_value(pk, connection) for pk in ids]
    with connection.cursor() as cursor:
        cursor.execute(sql + "(" + ", ".join(["%s"] * len(ids)) + ") LIMIT 1", params)
        return cursor.fetchone() is not None


def conversations_active(languages: dict, *, alias: str = "default") -> None:
    """Mark each conversation of ``{conversation pk: language}`` active now, in its language."""
    if not languages:
        return
    connection = transaction.get_connection(alias)
    meta = Conversation._meta
    last_active, language = meta.get_field("last_active_at"), meta.get_field("language")
    now = last_active.get_db_prep_save(timezone.now(), connection)
    rows_update(
        Conversation,
        [last_active, language],
        [
            [
                now,
                language.get_db_prep_save(code, connection),
                meta.pk.get_db_prep_value(pk, connection),
            ]
            for pk, code in languages.items()
        ],
        alias=alias,
    )
