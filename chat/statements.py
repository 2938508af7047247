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

| statement                | used by                            | shape                        |
|--------------------------|------------------------------------|------------------------------|
| ``messages_insert``      | a beginning: question, answer row  | ``INSERT ... RETURNING pk``, |
|                          |                                    | one row per turn (PostgreSQL:|
|                          |                                    | one array per column)        |
| ``any_owned``            | a beginning: who owns them         | ``SELECT ... IN (...)``      |
| ``conversations_active`` | a completion: activity, language   | ``UPDATE`` per conversation  |

Only public API: ``Model._meta``, ``Field.get_db_prep_*`` and ``db_type``,
``connection.ops.quote_name``, ``connection.cursor()``; plain SQL that SQLite and
PostgreSQL both run, but for PostgreSQL's ``UNNEST`` of a multi-row insert.
"""

import functools
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
    head: str  # "INSERT INTO ... (...) "
    row_sql: str  # "(%s, %s, ...)", one per row after VALUES
    unnest: str | None  # PostgreSQL: "SELECT * FROM UNNEST((%s)::type[], ...)", one array a column
    tail: str  # " RETURNING pk"
    per_batch: int  # rows per VALUES statement within the database's parameter limit
    shared: dict  # attname -> the prepared default, for the columns a write does not name

    def statements(self, values: list[list]):
        """``(sql, params)`` for rows of prepared values, in order."""
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
    unnest = None
    if vendor == "postgresql":
        # The column's type without its length (varchar[], not varchar(16)[]), as Django's.
        casts = ", ".join(f"(%s)::{f.db_type(connection).split('(')[0]}[]" for f in fields)
        unnest = f"SELECT * FROM UNNEST({casts})"
    return _Insert(
        fields=fields,
        head=(
            f"INSERT INTO {quote(Message._meta.db_table)} "
            f"({', '.join(quote(f.column) for f in fields)}) "
        ),
        row_sql="(" + ", ".join(["%s"] * len(fields)) + ")",
        unnest=unnest,
        tail=f" RETURNING {quote(Message._meta.pk.column)}",
        per_batch=max(1, (connection.features.max_query_params or 10_000) // len(fields)),
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
    pks: list[int] = []
    with connection.cursor() as cursor:
        for sql, params in insert.statements(values):
            cursor.execute(sql, params)
            pks.extend(pk for (pk,) in cursor.fetchall())
    return pks


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


@functools.cache
def _active_update(alias: str, vendor: str) -> tuple[str, Field, Field]:
    connection = transaction.get_connection(alias)
    quote = connection.ops.quote_name
    meta = Conversation._meta
    last_active, language = meta.get_field("last_active_at"), meta.get_field("language")
    sql = (
        f"UPDATE {quote(meta.db_table)} SET {quote(last_active.column)} = %s, "
        f"{quote(language.column)} = %s WHERE {quote(meta.pk.column)} = %s"
    )
    return sql, last_active, language


def conversations_active(languages: dict, *, alias: str = "default") -> None:
    """Mark each conversation of ``{conversation pk: language}`` active now, in its language."""
    if not languages:
        return
    connection = transaction.get_connection(alias)
    sql, last_active, language = _active_update(alias, connection.vendor)
    pk_field = Conversation._meta.pk
    now = last_active.get_db_prep_save(timezone.now(), connection)
    params = [
        [
            now,
            language.get_db_prep_save(code, connection),
            pk_field.get_db_prep_value(pk, connection),
        ]
        for pk, code in languages.items()
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)
