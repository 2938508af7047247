"""The website widget's conversation token: what resumes an embedded conversation.

A frame on another site gets no cookie of ours (third-party cookies are
blocked), so the widget keeps its own credential: a random token (32 bytes
from the browser's CSPRNG, URL-safe base64) in the embedding site's
``localStorage``, sent in the socket's first frame (``resume``) and in the
history request's ``Authorization`` header, never in a URL. The server keeps
only its keyed hash (``chat.models.session_hash``, HMAC-SHA256 with
SECRET_KEY) in ``Conversation.session_hash``, which no admin page, log line
or export shows.

| token presented               | the socket answers             | the widget then          |
|-------------------------------|--------------------------------|--------------------------|
| malformed                     | invalid_message, closed 1008   | makes a new token        |
| unknown                       | ``resumed`` (new conversation) | chats                    |
| known, live                   | ``resumed`` (its conversation) | shows the history        |
| known, revoked by staff       | ``token_refused``, closed 4001 | makes a new token        |
| known, past token_expires_at  | ``token_refused``, closed 4001 | makes a new token        |

A token's conversation is created on its first ``resume`` with an id that
follows from the token (``conversation_id_for``), so the tabs that share
the token share the conversation from the first message on. It expires
``WIDGET_TOKEN_DAYS`` after that; revoking it (the admin's action) also
closes the sockets that use it.
"""

import datetime as dt
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from chat.context import ConversationContext
from chat.handoff import customer_group
from chat.models import Conversation, conversation_id_for, session_hash
from chat.selectors import context_of

# The channel-layer event a revocation sends to the conversation's sockets.
TOKEN_REVOKED = "token.revoked"


@transaction.atomic
def widget_conversation_open(
    *, token: str, language: str, now: dt.datetime | None = None
) -> Conversation | None:
    """The token's conversation, created on the token's first use; None when revoked or expired."""
    now = now or timezone.now()
    conversation, _ = Conversation.objects.get_or_create(
        session_hash=session_hash(token),
        channel=Conversation.Channel.WIDGET,
        defaults={
            "id": conversation_id_for(token),
            "language": language,
            "token_expires_at": now + dt.timedelta(days=settings.WIDGET_TOKEN_DAYS),
        },
    )
    if conversation.token_revoked_at is not None or conversation.token_expires_at <= now:
        return None
    return conversation


def widget_context(*, token: str, language: str) -> ConversationContext | None:
    """A widget connection's starting state, or None when the token may not resume."""
    conversation = widget_conversation_open(token=token, language=language)
    if conversation is None:
        return None
    context = context_of(conversation, session_key=token)
    context.token_expires_at = conversation.token_expires_at
    return context


@transaction.atomic
def widget_tokens_revoke(
    *, conversation_ids: list[uuid.UUID], now: dt.datetime | None = None
) -> int:
    """Revoke the tokens of these widget conversations; their open sockets are closed.

    The conversations stay (the audit trail); their tokens start a new one.
    Returns how many were revoked now (already revoked ones are left as they are).
    """
    now = now or timezone.now()
    live = list(
        Conversation.objects.filter(
            pk__in=conversation_ids,
            channel=Conversation.Channel.WIDGET,
            token_revoked_at__isnull=True,
        ).values_list("pk", flat=True)
    )
    Conversation.objects.filter(pk__in=live).update(token_revoked_at=now)

    def close_sockets() -> None:
        layer = get_channel_layer()
        if layer is not None:
            for pk in live:
                async_to_sync(layer.group_send)(customer_group(pk), {"type": TOKEN_REVOKED})

    transaction.on_commit(close_sockets)
    return len(live)
