"""Message.conversation and Message.message_id lose their own indexes: the
(conversation, created_at) index serves every look-up of either.

The indexes are dropped by name (the names Django gave them in 0001), so that on
SQLite this is a DROP INDEX, not two rebuilds of the audit trail's largest table
(an AlterField of a SQLite column copies the table).
"""

import django.db.models.deletion
from django.db import migrations, models

# The indexes 0001 created, by name; PostgreSQL adds a LIKE index for a varchar column.
INDEXES = {
    "chat_message_conversation_id_a1207bf4": '("conversation_id")',
    "chat_message_message_id_34ce0999": '("message_id")',
}
POSTGRESQL_LIKE = {"chat_message_message_id_34ce0999_like": '("message_id" varchar_pattern_ops)'}


def _indexes(schema_editor) -> dict[str, str]:
    postgresql = schema_editor.connection.vendor == "postgresql"
    return INDEXES | (POSTGRESQL_LIKE if postgresql else {})


def drop_indexes(apps, schema_editor) -> None:
    for name in _indexes(schema_editor):
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


def create_indexes(apps, schema_editor) -> None:
    for name, columns in _indexes(schema_editor).items():
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "chat_message" {columns}')


class Migration(migrations.Migration):
    dependencies = [
        ("chat", "0010_handoff_waiting_expiry"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop_indexes, create_indexes)],
            state_operations=[
                migrations.AlterField(
                    model_name="message",
                    name="conversation",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="messages",
                        to="chat.conversation",
                    ),
                ),
                migrations.AlterField(
                    model_name="message",
                    name="message_id",
                    field=models.CharField(max_length=100),
                ),
            ],
        ),
    ]
