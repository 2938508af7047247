"""The audit trail of conversations: every turn is kept, nothing is edited."""

import uuid

from django.db import models
from django.utils.crypto import salted_hmac

_SESSION_HASH_SALT = "chat.Conversation.session_hash"


def session_hash(session_key: str) -> str:
    """The keyed hash (HMAC-SHA256 with SECRET_KEY) a conversation stores for its session.

    A session key is a live credential (it can open the admin as its user),
    so it is never stored: lookups hash the key the browser presents. ""
    for no key. Rotating SECRET_KEY unbinds existing conversations from
    their browsers (they stay in the audit trail).
    """
    if not session_key:
        return ""
    return salted_hmac(_SESSION_HASH_SALT, session_key, algorithm="sha256").hexdigest()


class Language(models.TextChoices):
    SWEDISH = "sv", "Svenska"
    ENGLISH = "en", "English"


class Conversation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The browser session that owns it, as ``session_hash(key)``; empty for
    # clients without cookies. In no admin list, search or export.
    session_hash = models.CharField(max_length=64, blank=True, db_index=True, editable=False)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.SWEDISH)
    started_at = models.DateTimeField(auto_now_add=True, db_index=True)
    last_active_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-last_active_at"]

    def __str__(self) -> str:
        return f"Conversation {str(self.id)[:8]}"


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user", "User"
        ASSISTANT = "assistant", "Assistant"

    class Status(models.TextChoices):
        DONE = "done", "Answered"
        CANCELLED = "cancelled", "Cancelled"
        WITHHELD = "withheld", "Withheld (unverified number)"
        NO_SUPPORT = "no_support", "No support in KB"
        ACTION = "action", "Action suggested"
        ERROR = "error", "Error"
        INTERRUPTED = "interrupted", "Interrupted (server shutdown)"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.PROTECT, related_name="messages"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    # The turn's messageId as the client knows it.
    message_id = models.CharField(max_length=100, db_index=True)
    reply_to = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reply"
    )
    text = models.TextField(help_text="What the user wrote, or the final text shown.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DONE)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.SWEDISH)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    # Assistant turns only.
    draft = models.TextField(blank=True, help_text="What the LLM produced (streamed so far).")
    grounded = models.BooleanField(null=True)
    block_reason = models.CharField(max_length=200, blank=True)
    unsupported = models.JSONField(default=list, blank=True)
    citations = models.JSONField(default=list, blank=True)
    retrieved = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    ttft_ms = models.FloatField(null=True, blank=True, verbose_name="time to first token (ms)")
    total_ms = models.FloatField(null=True, blank=True, verbose_name="total time (ms)")
    token_count = models.PositiveIntegerField(null=True, blank=True)
    backend = models.CharField(max_length=32, blank=True)
    model = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["conversation", "created_at"])]

    def __str__(self) -> str:
        return f"{self.get_role_display()} {self.message_id}"


class RejectedAnswer(Message):
    """Assistant answers withheld by the number guard, for review."""

    class Meta:
        proxy = True
        verbose_name = "rejected answer"


class Feedback(models.Model):
    class Rating(models.TextChoices):
        UP = "up", "👍"
        DOWN = "down", "👎"

    message = models.ForeignKey(Message, on_delete=models.PROTECT, related_name="feedback")
    rating = models.CharField(max_length=4, choices=Rating.choices)
    comment = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "feedback"

    def __str__(self) -> str:
        return f"{self.rating} on {self.message}"
