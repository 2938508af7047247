"""The audit trail of conversations: every turn is kept, nothing is edited."""

import uuid

from django.conf import settings
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


def conversation_id_for(credential: str) -> uuid.UUID:
    """The id a new conversation of this session key or widget token gets (keyed, one-way).

    Every tab presenting the same credential before the first message starts
    the same conversation. Another salt than ``session_hash``: the id (shown
    to staff) is not the stored lookup key, and neither gives the credential.
    """
    digest = salted_hmac(_CONVERSATION_ID_SALT, credential, algorithm="sha256").hexdigest()
    return uuid.UUID(digest[:32], version=4)


_CONVERSATION_ID_SALT = "chat.Conversation.id"


class Conversation(models.Model):
    """One customer's conversation, bound to the credential its browser presents.

    | channel | credential                       | resumes while                      |
    |---------|----------------------------------|------------------------------------|
    | page    | the session cookie (``/``)        | the cookie lives                   |
    | widget  | the widget's conversation token   | not revoked, before token_expires_at |

    Either credential is stored only as ``session_hash(credential)``.
    """

    class Channel(models.TextChoices):
        PAGE = "page", "Chat page"
        WIDGET = "widget", "Website widget"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The browser session (or widget token) that owns it, as ``session_hash(key)``;
    # empty for clients without cookies. In no admin list, search or export.
    session_hash = models.CharField(max_length=64, blank=True, db_index=True, editable=False)
    channel = models.CharField(max_length=8, choices=Channel.choices, default=Channel.PAGE)
    # Widget conversations: when the token stops resuming it, and when staff revoked it.
    token_expires_at = models.DateTimeField(null=True, blank=True)
    token_revoked_at = models.DateTimeField(null=True, blank=True)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.SWEDISH)
    started_at = models.DateTimeField(auto_now_add=True, db_index=True)
    last_active_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-last_active_at"]
        permissions = [("revoke_widget_token", "Can revoke a widget conversation's token")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(channel__in=["page", "widget"]),
                name="chat_conversation_channel_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(channel="page", token_expires_at__isnull=True)
                | models.Q(channel="widget", token_expires_at__isnull=False),
                name="chat_conversation_widget_token_expires",
            ),
        ]

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
        INTERRUPTED = "interrupted", "Interrupted (server shutdown or crash)"
        # The question is recorded and the answer is being generated.
        IN_PROGRESS = "in_progress", "In progress"

    # No index of its own: the (conversation, created_at) index below serves every look-up
    # by conversation. Each index of a random key (a conversation's, a message id) cost
    # each turn's two inserts an entry and its group commit a page (``bench.audit_cpu``).
    conversation = models.ForeignKey(
        Conversation, on_delete=models.PROTECT, related_name="messages", db_index=False
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    # The turn's messageId as the client knows it: looked up within its conversation only
    # (the index below), so no index of its own either.
    message_id = models.CharField(max_length=100)
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
    numbers = models.JSONField(
        default=list,
        blank=True,
        help_text="Where each number of the text comes from: its span, KB file, line and fact.",
    )
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
    """Assistant answers withheld by the number guard or without KB support: the review queue."""

    class Meta:
        proxy = True
        verbose_name = "rejected answer"
        verbose_name_plural = "review queue: rejected and no-support answers"


class Feedback(models.Model):
    class Rating(models.TextChoices):
        UP = "up", "👍"
        DOWN = "down", "👎"

    class Reason(models.TextChoices):
        WRONG = "wrong", "Wrong"
        NOT_HELPFUL = "not_helpful", "Not helpful"
        NO_ANSWER = "no_answer", "Did not answer the question"
        OTHER = "other", "Other"

    message = models.ForeignKey(Message, on_delete=models.PROTECT, related_name="feedback")
    rating = models.CharField(max_length=4, choices=Rating.choices)
    reason = models.CharField(max_length=16, choices=Reason.choices, blank=True)
    comment = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "feedback"

    def __str__(self) -> str:
        return f"{self.rating} on {self.message}"


class AnswerReview(models.Model):
    """Staff's review of one rejected or no-support answer; the answer itself is never edited.

    | status   | reviewed_by | reviewed_at | meaning                          |
    |----------|-------------|-------------|----------------------------------|
    | open     | empty       | empty       | waiting (maybe with an assignee) |
    | reviewed | set         | set         | done: who, when, and the note    |
    """

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        REVIEWED = "reviewed", "Reviewed"

    message = models.OneToOneField(Message, on_delete=models.PROTECT, related_name="review")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="assigned_reviews",
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="answer_reviews",
    )
    reviewed_at = models.DateTimeField(null=True, blank=True, db_index=True)
    note = models.TextField(blank=True, max_length=2000)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=["open", "reviewed"]),
                name="chat_answerreview_status_valid",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(
                        status="reviewed", reviewed_by__isnull=False, reviewed_at__isnull=False
                    )
                    | models.Q(status="open", reviewed_by__isnull=True, reviewed_at__isnull=True)
                ),
                name="chat_answerreview_reviewed_has_who_and_when",
            ),
        ]

    def __str__(self) -> str:
        return f"Review of {self.message}: {self.get_status_display()}"


class Handoff(models.Model):
    """A customer's request for a person, and who owns the conversation meanwhile.

    | status  | taken_by | the agent answers? | the customer sees              |
    |---------|----------|--------------------|--------------------------------|
    | waiting | empty    | yes                | handoff_queued {position}      |
    | active  | set      | never (any frame)  | agent_joined, agent_message... |
    | closed  | any      | yes                | agent_left                     |
    | offline | empty    | yes                | handoff_offline (callback/ticket instead) |
    | resolved | any     | yes                | agent_left (staff may reopen it) |

    At most one waiting or active handoff per conversation (a constraint),
    and "take" is one conditional UPDATE from waiting to active: exactly one
    staff member wins, whichever process they are on.
    """

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for a person"
        ACTIVE = "active", "A person owns the conversation"
        CLOSED = "closed", "Handed back to the agent"
        OFFLINE = "offline", "Outside opening hours"
        EXPIRED = "expired", "The customer left before anyone took it"
        RESOLVED = "resolved", "Resolved by staff (the agent answers again)"

    class Source(models.TextChoices):
        BUTTON = "button", "Button"
        PHRASE = "phrase", "Asked in a message"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.PROTECT, related_name="handoffs"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.BUTTON)
    requested_at = models.DateTimeField(db_index=True)
    taken_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="handoffs_taken",
    )
    taken_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # When the owner's last console closed; cleared when one opens again. Past
    # HANDOFF_RELEASE_SECONDS the conversation goes back to the queue.
    owner_left_at = models.DateTimeField(null=True, blank=True)
    # When the customer's last connection closed while waiting; cleared when one opens
    # again. Past HANDOFF_WAITING_EXPIRE_SECONDS the request expires.
    customer_left_at = models.DateTimeField(null=True, blank=True)
    # The keyed hash of the asking client's address (never the address): how many waiting
    # requests one address may have (HANDOFF_MAX_WAITING_PER_ADDRESS).
    client_hash = models.CharField(max_length=64, blank=True, db_index=True)

    class Meta:
        ordering = ["requested_at", "id"]
        permissions = [("handle_handoff", "Can take and answer customers who ask for a person")]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation"],
                condition=models.Q(status__in=["waiting", "active"]),
                name="chat_handoff_one_open_per_conversation",
            ),
            models.CheckConstraint(
                condition=models.Q(
                    status__in=["waiting", "active", "closed", "offline", "expired", "resolved"]
                ),
                name="chat_handoff_status_valid",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="active")
                | models.Q(taken_by__isnull=False, taken_at__isnull=False),
                name="chat_handoff_active_has_owner",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="waiting") | models.Q(taken_by__isnull=True),
                name="chat_handoff_waiting_has_no_owner",
            ),
        ]
        indexes = [models.Index(fields=["status", "requested_at"])]

    def __str__(self) -> str:
        return f"Handoff {self.pk} of {self.conversation} ({self.status})"


class HandoffEvent(models.Model):
    """One step of a handoff, for the audit trail and the timeline. Never edited."""

    class Kind(models.TextChoices):
        REQUESTED = "requested", "Customer asked for a person"
        OFFLINE = "offline", "Outside opening hours: callback or ticket offered"
        JOINED = "joined", "Staff joined"
        STAFF_MESSAGE = "staff_message", "Staff wrote"
        CUSTOMER_MESSAGE = "customer_message", "Customer wrote"
        LEFT = "left", "Staff handed back to the agent"
        RELEASED = "released", "Back in the queue: the person was gone, or an admin released it"
        EXPIRED = "expired", "The customer left the queue (gone past the grace period)"
        ASSIGNED = "assigned", "Assigned to a colleague"
        RESOLVED = "resolved", "Resolved"
        REOPENED = "reopened", "Reopened"
        NOTE = "note", "Private note (staff only)"
        SENT_OVER_FLAG = "sent_over_flag", "Sent over the flag: a number the KB does not state"

    handoff = models.ForeignKey(Handoff, on_delete=models.PROTECT, related_name="events")
    conversation = models.ForeignKey(
        Conversation, on_delete=models.PROTECT, related_name="handoff_events"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    message_id = models.CharField(max_length=100, blank=True)
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(
                    kind__in=[
                        "requested",
                        "offline",
                        "joined",
                        "staff_message",
                        "customer_message",
                        "left",
                        "released",
                        "expired",
                        "assigned",
                        "resolved",
                        "reopened",
                        "note",
                        "sent_over_flag",
                    ]
                ),
                name="chat_handoffevent_kind_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.created_at:%Y-%m-%d %H:%M:%S})"


class StaffConsole(models.Model):
    """An open staff console (one row a socket): whether a person is there to answer.

    Written when a console opens, touched every ``STAFF_PRESENCE_SECONDS`` while
    it stays open, deleted when it closes. A row not touched for three
    intervals is a console whose process died: it no longer counts (and the
    next open or close anywhere deletes it).
    """

    channel_name = models.CharField(max_length=200, unique=True)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_consoles"
    )
    opened_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(seen_at__gte=models.F("opened_at")),
                name="chat_staffconsole_seen_after_opened",
            ),
        ]

    def __str__(self) -> str:
        return f"Console of {self.staff} since {self.opened_at:%Y-%m-%d %H:%M}"
