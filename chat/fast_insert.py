"""INSERT many rows without the ORM's per-row compilation.

``bulk_create`` builds a model instance per row and compiles every value
through the SQL compiler (``pre_save``, ``get_db_prep_save``, a placeholder
per value): hundreds of µs of Python per row. On a write path that runs in a
worker thread beside the event loop, that time holds the GIL.
:func:`insert_rows` takes plain tuples instead and does per row only what
the database needs. The statement is built once per model, field list,
options and connection, and each value goes through an adapter chosen once
per field and connection. Then, depending on the database:

* PostgreSQL (psycopg 3): one statement per call, whatever the number of
  rows. The rows travel as a single ``jsonb`` array (serialised by orjson)
  that ``INSERT ... SELECT ... FROM jsonb_array_elements(%s)`` unpacks on
  the server, casting each element to its column's type. Django's client-side
  binding would otherwise quote every value in Python, and psycopg parses a
  multi-row ``VALUES`` statement placeholder by placeholder, several µs each.
* Elsewhere (SQLite): ``executemany`` of a one-row INSERT, or, when the new
  primary keys are wanted, multi-row ``INSERT ... VALUES ... RETURNING``
  statements of at most ``connection.ops.bulk_batch_size`` rows. Values are
  adapted as ``get_db_prep_save`` would: none for text, numbers and
  booleans, ``.hex`` for a UUID, ``connection.ops`` for aware datetimes, and
  orjson for JSON (see :func:`_json_bytes` for why that reads back the same).

A field class or a value the fast adapters do not know goes through the
field's own ``get_db_prep_save``; on PostgreSQL such a call takes the
``VALUES`` path instead of the ``jsonb`` one.

Unlike ``bulk_create`` it fills nothing in: no Python defaults, no
``pre_save`` (so no ``auto_now`` or ``auto_now_add``), no signals, no
expressions as values. A field list that leaves out a column the ORM would
fill is refused. Values are stored as given, without the field's
``to_python``: a text column takes a ``str``, a number column a number.
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import uuid
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import orjson
from django.db import DEFAULT_DB_ALIAS, NotSupportedError, connections, models
from django.db.models.constants import OnConflict

# Field classes whose values the drivers take as they are. Exact classes: a
# subclass may override get_prep_value, so it goes through get_db_prep_save.
_AS_IS = frozenset(
    {
        models.AutoField,
        models.BigAutoField,
        models.SmallAutoField,
        models.BigIntegerField,
        models.BooleanField,
        models.CharField,
        models.FloatField,
        models.IntegerField,
        models.PositiveBigIntegerField,
        models.PositiveIntegerField,
        models.PositiveSmallIntegerField,
        models.SlugField,
        models.SmallIntegerField,
        models.TextField,
    }
)
_TEXT = frozenset({models.CharField, models.SlugField, models.TextField})
_RELATIONS = (models.ForeignKey, models.OneToOneField)
# In a JSON column: orjson serialises datetimes and dataclasses, json.dumps refuses
# them, so refuse too (and let json.dumps raise the ORM's TypeError).
_JSON_COLUMN_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS

Adapter = Callable[[object], object]


class _NotBatchable(Exception):
    """A value the PostgreSQL jsonb path cannot carry exactly: use the VALUES path."""


@dataclass(frozen=True)
class _Plan:
    """What one (model, fields, options, connection) needs, worked out once."""

    fields: tuple
    insert_one_sql: str  # one row of placeholders, for executemany
    head_sql: str  # INSERT INTO table (columns)
    tail_sql: str  # ON CONFLICT ... RETURNING ...
    placeholders: tuple  # ("%s", "%s", ...): one row's
    # (column index, adapter, whether consecutive identical values share one result)
    adapters: tuple[tuple[int, Adapter, bool], ...]
    pk_converters: tuple  # the returned pk's from_db_value-style converters
    pk_col: object
    jsonb_sql: str | None  # PostgreSQL: INSERT ... SELECT ... FROM jsonb_array_elements(%s)
    jsonb_adapters: tuple[tuple[int, Adapter], ...]


# Plans per connection object (each thread has its own), so adapters that
# hold connection.ops never serve another thread's connection.
_plans: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def insert_rows(
    model: type[models.Model],
    field_names: Sequence[str],
    rows: Iterable[Sequence],
    *,
    returning_pk: bool = False,
    ignore_conflicts: bool = False,
    using: str = DEFAULT_DB_ALIAS,
) -> list | None:
    """INSERT ``rows`` into ``model``'s table; the new primary keys if ``returning_pk``.

    ``field_names`` names the model's fields (``"conversation"`` or
    ``"conversation_id"`` alike); each row holds one value per field, in that
    order: what the ORM keeps in the field's attribute, so the target's
    primary key for a foreign key. Every concrete field of the model must be
    named except an auto-incremented primary key and fields with a
    ``db_default``; otherwise ``ValueError``.

    With ``returning_pk`` the result is the database-generated primary keys
    in row order (taken from ``RETURNING`` in the order the database sends
    them, as ``bulk_create`` does). Where the database cannot return rows
    from a multi-row INSERT, each row is inserted on its own through the
    ORM's insert query, as ``Model.save`` does. Otherwise the result is
    ``None``.

    With ``ignore_conflicts`` rows that would violate a constraint are
    skipped (``INSERT OR IGNORE`` on SQLite, ``ON CONFLICT DO NOTHING`` on
    PostgreSQL); it cannot be combined with ``returning_pk``, since skipped
    rows return nothing.

    Runs in the caller's transaction, if any.
    """
    if returning_pk and ignore_conflicts:
        raise ValueError("returning_pk and ignore_conflicts cannot be combined")
    connection = connections[using]
    plan = _plan(connection, model, tuple(field_names), ignore_conflicts, returning_pk)
    width = len(plan.fields)
    rows = rows if isinstance(rows, list) else list(rows)
    for row in rows:
        if len(row) != width:
            raise ValueError(f"a row of {len(row)} values for {width} fields")
    if not rows:
        return [] if returning_pk else None

    if plan.jsonb_sql is not None:
        try:
            payload = _jsonb_payload(rows, plan.jsonb_adapters)
        except _NotBatchable:
            pass
        else:
            with connection.cursor() as cursor:
                cursor.execute(plan.jsonb_sql, [payload])
                returned = cursor.fetchall() if returning_pk else None
            return _returned_pks(returned, len(rows), plan, connection) if returning_pk else None

    if returning_pk and not connection.features.can_return_rows_from_bulk_insert:
        return _insert_one_by_one(model, plan.fields, rows=rows, using=using)
    prepared = rows
    if plan.adapters:
        adapters = tuple(
            (index, _last_value_memo(adapt) if memo else adapt)
            for index, adapt, memo in plan.adapters
        )
        prepared = _adapted(rows, adapters)

    if not returning_pk:
        with connection.cursor() as cursor:
            cursor.executemany(plan.insert_one_sql, prepared)
        return None
    returned = []
    batch_size = max(connection.ops.bulk_batch_size(plan.fields, prepared), 1)
    with connection.cursor() as cursor:
        for start in range(0, len(prepared), batch_size):
            batch = prepared[start : start + batch_size]
            values_sql = connection.ops.bulk_insert_sql(
                plan.fields, [plan.placeholders] * len(batch)
            )
            cursor.execute(
                f"{plan.head_sql} {values_sql} {plan.tail_sql}",
                [value for row in batch for value in row],
            )
            returned.extend(connection.ops.fetch_returned_insert_rows(cursor))
    return _returned_pks(returned, len(rows), plan, connection)


def _returned_pks(returned: list, expected: int, plan: _Plan, connection) -> list:
    if len(returned) != expected:
        raise RuntimeError(f"{len(returned)} keys returned for {expected} rows")
    pks = [row[0] for row in returned]
    if plan.pk_converters:
        pks = [_converted(pk, plan.pk_converters, plan.pk_col, connection) for pk in pks]
    return pks


def _plan(connection, model, field_names: tuple, ignore_conflicts: bool, returning_pk: bool):
    by_key = _plans.get(connection)
    if by_key is None:
        by_key = _plans[connection] = {}
    key = (model, field_names, ignore_conflicts, returning_pk)
    plan = by_key.get(key)
    if plan is None:
        plan = by_key[key] = _build_plan(
            connection, model, field_names, ignore_conflicts, returning_pk
        )
    return plan


def _build_plan(connection, model, field_names, ignore_conflicts, returning_pk) -> _Plan:
    opts = model._meta.concrete_model._meta  # a proxy writes its concrete model's table
    fields = tuple(opts.get_field(name) for name in field_names)
    _check_fields(opts, fields, field_names, returning_pk)
    if ignore_conflicts and not connection.features.supports_ignore_conflicts:
        raise NotSupportedError("This database backend does not support ignoring conflicts.")

    ops = connection.ops
    on_conflict = OnConflict.IGNORE if ignore_conflicts else None
    table = ops.quote_name(opts.db_table)
    columns = ", ".join(ops.quote_name(field.column) for field in fields)
    head_sql = f"{ops.insert_statement(on_conflict=on_conflict)} {table} ({columns})"
    placeholders = ("%s",) * len(fields)
    conflict_sql = ops.on_conflict_suffix_sql(fields, on_conflict, None, None) or ""
    returning_sql = ""
    pk_converters: tuple = ()
    pk_col = None
    if returning_pk and connection.features.can_return_rows_from_bulk_insert:
        returning_sql, _ = ops.return_insert_columns([opts.pk])
        pk_col = opts.pk.get_col(opts.db_table)
        pk_converters = tuple(ops.get_db_converters(pk_col) + pk_col.get_db_converters(connection))
    adapters = []
    for index, field in enumerate(fields):
        adapter = _adapter(field, connection)
        if adapter is not None:
            adapters.append((index, adapter, field.get_internal_type() == "DateTimeField"))

    jsonb_sql, jsonb_adapters = None, ()
    if _jsonb_path_available(connection, fields):
        unpacked = ", ".join(
            _jsonb_element_sql(index, field, connection) for index, field in enumerate(fields)
        )
        jsonb_sql = " ".join(
            part
            for part in (
                head_sql,
                f"SELECT {unpacked} FROM jsonb_array_elements(%s)"
                " WITH ORDINALITY AS r(v, n) ORDER BY r.n",
                conflict_sql,
                returning_sql,
            )
            if part
        )
        jsonb_adapters = tuple(
            (index, adapter)
            for index, field in enumerate(fields)
            if (adapter := _jsonb_adapter(field, connection)) is not None
        )

    one_row_sql = ops.bulk_insert_sql(fields, [placeholders])
    return _Plan(
        fields=fields,
        insert_one_sql=" ".join(part for part in (head_sql, one_row_sql, conflict_sql) if part),
        head_sql=head_sql,
        tail_sql=" ".join(part for part in (conflict_sql, returning_sql) if part),
        placeholders=placeholders,
        adapters=tuple(adapters),
        pk_converters=pk_converters,
        pk_col=pk_col,
        jsonb_sql=jsonb_sql,
        jsonb_adapters=jsonb_adapters,
    )


def _check_fields(opts, fields, field_names, returning_pk) -> None:
    local = set(opts.local_concrete_fields)
    for field in fields:
        if field not in local:
            raise ValueError(f"{field!r} is not a concrete field of {opts.label}'s own table")
        if hasattr(field, "get_placeholder"):
            raise ValueError(f"{field!r} needs its own SQL placeholder; use bulk_create")
    if len(set(fields)) != len(fields):
        raise ValueError(f"a field is named twice in {field_names}")
    missing = [
        field.name
        for field in opts.local_concrete_fields
        if field not in fields
        and not (field.primary_key and isinstance(field, models.AutoField))
        and field.db_default is models.NOT_PROVIDED
    ]
    if missing:
        raise ValueError(f"{opts.label} rows must also give {', '.join(missing)}")
    if returning_pk and (opts.pk in fields or not isinstance(opts.pk, models.AutoField)):
        raise ValueError("returning_pk is for a primary key the database generates")


def _target(field):
    """The field whose values ``field`` holds: itself, or a relation's target column."""
    while type(field) in _RELATIONS:
        field = field.target_field
    return field


def _adapter(field, connection) -> Adapter | None:
    """What a value of ``field`` goes through before the driver (VALUES path); None: as is."""
    if type(field) in _RELATIONS:
        # ForeignKey.get_db_prep_save: None stays None, else the target's preparation.
        return _adapter(field.target_field, connection)
    cls = type(field)
    if cls in _AS_IS:
        return None
    slow = functools.partial(field.get_db_prep_save, connection=connection)
    if cls is models.UUIDField:
        if connection.features.has_native_uuid_field:
            return lambda value: value if isinstance(value, uuid.UUID) else slow(value)
        return lambda value: value.hex if isinstance(value, uuid.UUID) else slow(value)
    if cls is models.JSONField and field.encoder is None and connection.vendor == "sqlite":
        return lambda value: (
            _json_bytes(value).decode() if value.__class__ in (list, dict) else slow(value)
        )
    if cls is models.JSONField:
        adapt_json, encoder = connection.ops.adapt_json_value, field.encoder
        return lambda value: (
            adapt_json(value, encoder) if value.__class__ in (list, dict) else slow(value)
        )
    if cls is models.DateTimeField:
        adapt_datetime = connection.ops.adapt_datetimefield_value

        def datetime_adapter(value):
            # An aware datetime passes DateTimeField.get_prep_value unchanged.
            if value.__class__ is datetime.datetime and value.utcoffset() is not None:
                return adapt_datetime(value)
            return slow(value)

        return datetime_adapter
    return slow


def _jsonb_path_available(connection, fields) -> bool:
    if connection.vendor != "postgresql":
        return False
    from django.db.backends.postgresql.psycopg_any import is_psycopg3

    if not is_psycopg3:
        return False
    for field in map(_target, fields):
        cls = type(field)
        if cls is models.JSONField and field.encoder is not None:
            return False
        if cls not in _AS_IS and cls not in (
            models.UUIDField,
            models.JSONField,
            models.DateTimeField,
        ):
            return False
    return True


def _jsonb_element_sql(index: int, field, connection) -> str:
    """Column ``index`` of the jsonb row ``r.v`` as what ``field``'s column stores."""
    target = _target(field)
    if type(target) is models.JSONField:
        # Python None is SQL NULL, as JSONField.get_db_prep_save has it.
        return f"NULLIF(r.v->{index}, 'null'::jsonb)"
    if type(target) in _TEXT:
        # Text as is; the INSERT's assignment cast checks a varchar's length
        # (where CAST would cut the value short).
        return f"r.v->>{index}"
    return f"CAST(r.v->>{index} AS {target.cast_db_type(connection)})"


def _jsonb_adapter(field, connection) -> Adapter | None:
    """What a value of ``field`` becomes in the jsonb rows; None: as is.

    orjson writes str, int, bool, None, ``uuid.UUID`` and aware datetimes in
    forms PostgreSQL reads back exactly. The adapters raise _NotBatchable for
    what it would not (a float that is not finite: orjson writes null).
    """
    target = _target(field)
    cls = type(target)
    slow = functools.partial(target.get_db_prep_save, connection=connection)
    if cls is models.FloatField:
        return _finite_float
    if cls is models.UUIDField:
        return lambda value: value if isinstance(value, uuid.UUID) else slow(value)
    if cls is models.DateTimeField:
        return lambda value: (
            value
            if value.__class__ is datetime.datetime and value.utcoffset() is not None
            else slow(value)  # an aware datetime, or None
        )
    if cls is models.JSONField:
        return _jsonb_json_value
    return None


def _finite_float(value):
    if value is None or value.__class__ is int:
        return value
    if value.__class__ is float and math.isfinite(value):
        return value
    raise _NotBatchable


def _jsonb_json_value(value):
    if value is None:
        return None
    if value.__class__ in (list, dict):
        return orjson.Fragment(_json_bytes(value))
    raise _NotBatchable  # the field's get_db_prep_save decides


def _adapted(rows: list, adapters: tuple) -> list[list]:
    """``rows`` as lists, each ``(index, adapt)`` applied to its column."""
    prepared = []
    for row in rows:
        row = list(row)
        for index, adapt in adapters:
            row[index] = adapt(row[index])
        prepared.append(row)
    return prepared


def _jsonb_payload(rows: list, adapters: tuple):
    from psycopg.types.json import Jsonb

    if adapters:
        rows = _adapted(rows, adapters)
    try:
        data = orjson.dumps(rows)
    except TypeError as exc:  # a type orjson refuses, an int beyond 64 bits
        raise _NotBatchable from exc
    return Jsonb(orjson.Fragment(data), dumps=orjson.dumps)


def _json_bytes(value) -> bytes:
    """``value`` as JSON, read back equal to what ``json.dumps`` would store.

    orjson, several times faster, differs from ``json.dumps`` only in layout
    (no spaces, UTF-8 instead of ``\\uXXXX``: the same value for ``json.loads``
    and for the database's JSON functions) except where this falls back to
    ``json.dumps``: orjson refuses the value (a non-str key, an int beyond 64
    bits, a lone surrogate, a datetime or dataclass) or its output holds
    ``null``, which is how orjson writes NaN and infinities.
    """
    try:
        data = orjson.dumps(value, option=_JSON_COLUMN_OPTIONS)
    except TypeError:
        return json.dumps(value).encode()  # or the ORM's TypeError
    if b"null" in data:
        return json.dumps(value).encode()
    return data


def _last_value_memo(adapt: Adapter) -> Adapter:
    """``adapt``, reusing its last result while the same object comes again.

    For immutable values repeated down a column (one timestamp for a whole
    batch): built per call, so nothing outlives a change of settings.
    """
    last: tuple = (object(), None)

    def adapter(value):
        nonlocal last
        seen, result = last
        if value is seen:
            return result
        result = adapt(value)
        last = (value, result)
        return result

    return adapter


def _converted(value, converters, col, connection):
    for converter in converters:
        value = converter(value, col, connection)
    return value


def _insert_one_by_one(model, fields, *, rows: list, using: str) -> list:
    """One ORM insert per row, as ``Model.save`` does, for databases that cannot
    return rows from a multi-row INSERT. ``raw``: no ``pre_save``, the values
    are stored as given (through each field's ``get_db_prep_save``)."""
    manager = model._base_manager.using(using)
    pk = model._meta.pk
    pks = []
    for row in rows:
        obj = model(**{field.attname: value for field, value in zip(fields, row, strict=True)})
        [returned] = manager._insert(
            [obj], fields=list(fields), returning_fields=[pk], raw=True, using=using
        )
        pks.append(returned[0])
    return pks
