"""Conversations keep a keyed hash of their browser session's key, never the key."""

from django.db import migrations, models
from django.utils.crypto import salted_hmac

# Frozen copy of chat.models.session_hash at the time of this migration.
_SALT = "chat.Conversation.session_hash"


def _hash(key: str) -> str:
    return salted_hmac(_SALT, key, algorithm="sha256").hexdigest() if key else ""


def hash_existing_keys(apps, schema_editor):
    Conversation = apps.get_model("chat", "Conversation")
    rows = Conversation.objects.exclude(session_key="").values_list("pk", "session_key")
    for pk, key in rows.iterator(chunk_size=2000):
        Conversation.objects.filter(pk=pk).update(session_hash=_hash(key))


class Migration(migrations.Migration):
    dependencies = [("chat", "0004_i15_feedback_reason")]

    operations = [
        migrations.AddField(
            model_name="conversation",
            name="session_hash",
            field=models.CharField(blank=True, db_index=True, editable=False, max_length=64),
        ),
        # Not reversible: the keys are gone once hashed.
        migrations.RunPython(hash_existing_keys, migrations.RunPython.noop, elidable=False),
        migrations.RemoveField(model_name="conversation", name="session_key"),
    ]
