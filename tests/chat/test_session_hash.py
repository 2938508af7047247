"""No readable session keys: conversations keep a keyed hash of their session's key."""

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from chat import audit, sessionkeys
from chat.models import Conversation, session_hash
from tests.chat.conftest import open_socket, run_turn

SESSION_KEY = "k3y0fav1ct1mbr0ws3rs3ss10nabcdef"


def test_the_hash_is_keyed_and_stable(settings):
    """Same key, same hash; another secret key, another hash; no key, no hash."""
    first = session_hash(SESSION_KEY)
    assert first == session_hash(SESSION_KEY) and len(first) == 64
    assert SESSION_KEY not in first
    settings.SECRET_KEY = "another-secret-key-" + "x" * 40
    assert session_hash(SESSION_KEY) != first
    assert session_hash("") == ""


@pytest.mark.usefixtures("indexed_kb")
async def test_a_chatting_session_stores_only_the_hash_and_resumes_by_it():
    """The session key appears in no column; a reconnect with the same cookie resumes."""
    key = sessionkeys.issue()
    cookie = [(b"cookie", f"sessionid={key}".encode())]
    ws = await open_socket(headers=cookie)
    await run_turn(ws, "Vad kostar premium?", message_id="m1")
    await ws.disconnect()
    await audit.drain()

    def stored():
        conversation = Conversation.objects.get()
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM chat_conversation")
            rows = cursor.fetchall()
        return conversation, rows

    from asgiref.sync import sync_to_async

    conversation, rows = await sync_to_async(stored)()
    assert conversation.session_hash == session_hash(key)
    assert all(key not in str(value) for row in rows for value in row)

    again = await open_socket(headers=cookie)
    await run_turn(again, "Och basic?", message_id="m2")
    await again.disconnect()
    await audit.drain()
    assert await sync_to_async(Conversation.objects.count)() == 1


@pytest.mark.django_db
def test_the_admin_neither_searches_shows_nor_exports_the_hash(admin_client):
    """Searching by the key or its hash finds nothing; the page and the export omit both."""
    digest = session_hash(SESSION_KEY)
    conversation = Conversation.objects.create(session_hash=digest)
    changelist = reverse("admin:chat_conversation_changelist")
    for term in (SESSION_KEY, digest):
        body = admin_client.get(changelist, {"q": term}).content.decode()
        assert "0 conversations" in body or str(conversation.pk) not in body
    change = admin_client.get(reverse("admin:chat_conversation_change", args=[conversation.pk]))
    assert change.status_code == 200 and digest not in change.content.decode()
    export = admin_client.post(
        changelist, {"action": "export_jsonl", "_selected_action": [str(conversation.pk)]}
    )
    row = json.loads(export.content.decode().splitlines()[0])
    assert row["id"] == str(conversation.pk)
    assert "session_hash" not in row and "session_key" not in row
    assert digest not in export.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_migration_hashes_existing_keys():
    """Rows written before the migration keep their session, as a hash, and lose the key."""
    executor = MigrationExecutor(connection)
    before, after = [("chat", "0004_i15_feedback_reason")], [("chat", "0005_i14_session_hash")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps.get_model("chat", "Conversation")
    with_key = old.objects.create(session_key=SESSION_KEY)
    without_key = old.objects.create(session_key="")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    new = executor.loader.project_state(after).apps.get_model("chat", "Conversation")
    assert new.objects.get(pk=with_key.pk).session_hash == session_hash(SESSION_KEY)
    assert new.objects.get(pk=without_key.pk).session_hash == ""
    columns = [
        c.name
        for c in connection.introspection.get_table_description(
            connection.cursor(), "chat_conversation"
        )
    ]
    assert "session_key" not in columns

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
