"""Suggested actions, their single execution, and what the executions produced.

Every row here is part of the audit trail: services create and advance them,
nothing deletes them. "Runs exactly once" rests on the database: a suggestion
has at most one ``Execution`` (a unique one-to-one column), and each artifact
(callback, SMS, ticket) has at most one row per suggestion as a backstop.

An execution's states (``actions.services`` moves it, nothing else):

| from     | to        | when                                                        |
|----------|-----------|-------------------------------------------------------------|
| (none)   | pending   | a confirm won the claim (row lock on the suggestion)        |
| pending  | running   | an attempt starts (``attempts`` + 1, ``started_at``)         |
| running  | succeeded | the executor's writes and this update commit together       |
| running  | failed    | the executor raised (never retried)                         |
| pending, running | running | recovery: left by a crash for ``EXECUTION_RECOVERY_SECONDS`` |
| pending, running | failed  | recovery after ``EXECUTION_MAX_ATTEMPTS`` attempts          |
"""

import datetime as dt

from django.db import models


class ActionType(models.TextChoices):
    SCHEDULE_CALLBACK = "schedule_callback", "Schedule callback"
    SEND_SMS = "send_sms", "Send SMS"
    CREATE_TICKET = "create_ticket", "Create ticket"


class SuggestionStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    EXECUTED = "executed", "Executed"
    EXPIRED = "expired", "Expired"
    REJECTED = "rejected", "Rejected"


class ExecutionStatus(models.TextChoices):
    # Pending: the confirm won the claim; no attempt has started yet.
    PENDING = "pending", "Pending"
    # Running: an attempt started; it may have had an effect outside the database.
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


UNFINISHED_EXECUTION = (ExecutionStatus.PENDING, ExecutionStatus.RUNNING)


class Suggestion(models.Model):
    Status = SuggestionStatus

    suggestion_id = models.CharField(max_length=64, unique=True, editable=False)
    conversation = models.ForeignKey(
        "chat.Conversation", on_delete=models.PROTECT, related_name="suggestions"
    )
    action = models.CharField(max_length=32, choices=ActionType.choices)
    payload = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    # The chat turn (messageId) whose user message triggered the suggestion.
    source_message_id = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(db_index=True)
    expires_at = models.DateTimeField(db_index=True)
    # When it left "pending" (confirmed, rejected or found expired).
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(expires_at__gte=models.F("created_at")),
                name="actions_suggestion_expires_after_created",
            ),
            models.CheckConstraint(
                condition=models.Q(action__in=ActionType.values),
                name="actions_suggestion_action_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=SuggestionStatus.values),
                name="actions_suggestion_status_valid",
            ),
        ]
        indexes = [models.Index(fields=["status", "expires_at"])]

    def __str__(self) -> str:
        return self.suggestion_id

    def is_stale(self, now: dt.datetime) -> bool:
        """True once the confirm window has passed (whatever the stored status says)."""
        return now > self.expires_at

    def as_frame(self) -> dict:
        """The ``action_suggestion`` frame the client shows for approval."""
        expires = self.expires_at.astimezone(dt.UTC).isoformat(timespec="milliseconds")
        return {
            "type": "action_suggestion",
            "suggestionId": self.suggestion_id,
            "action": self.action,
            "payload": self.payload,
            "expiresAt": expires.replace("+00:00", "Z"),
        }


class Execution(models.Model):
    Status = ExecutionStatus

    suggestion = models.OneToOneField(
        Suggestion, on_delete=models.PROTECT, related_name="execution"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    success = models.BooleanField(default=False)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Attempts started (more than one: recovered after a crash)."
    )
    started_at = models.DateTimeField(null=True, blank=True, help_text="The last attempt's start.")
    client_address = models.CharField(
        max_length=64, blank=True, db_index=True, help_text="Who confirmed (for quotas)."
    )
    message = models.CharField(max_length=300, blank=True, help_text="What the user was told.")
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, help_text="Why the executor failed, for staff.")
    claimed_at = models.DateTimeField(db_index=True)
    executed_at = models.DateTimeField(null=True, blank=True, db_index=True)
    duplicate_confirms = models.PositiveIntegerField(
        default=0, help_text="Confirms that arrived after this one and were ignored."
    )

    class Meta:
        ordering = ["-claimed_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=ExecutionStatus.values),
                name="actions_execution_status_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(status=ExecutionStatus.SUCCEEDED, success=True)
                | (~models.Q(status=ExecutionStatus.SUCCEEDED) & models.Q(success=False)),
                name="actions_execution_success_iff_succeeded",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=UNFINISHED_EXECUTION)
                | models.Q(executed_at__isnull=False),
                name="actions_execution_finished_has_time",
            ),
            models.CheckConstraint(
                condition=~models.Q(status=ExecutionStatus.RUNNING)
                | (models.Q(started_at__isnull=False) & models.Q(attempts__gte=1)),
                name="actions_execution_running_has_attempt",
            ),
        ]
        indexes = [models.Index(fields=["status", "claimed_at"])]

    def __str__(self) -> str:
        return f"Execution of {self.suggestion} ({self.get_status_display()})"

    @property
    def idempotency_key(self) -> str:
        """What executors hand a provider so a re-run after a crash is not a second effect."""
        return f"execution-{self.pk}"


class CallbackRequest(models.Model):
    suggestion = models.OneToOneField(Suggestion, on_delete=models.PROTECT, related_name="callback")
    conversation = models.ForeignKey(
        "chat.Conversation", on_delete=models.PROTECT, related_name="callbacks"
    )
    phone = models.CharField(max_length=40, blank=True, help_text="As the customer wrote it.")
    phone_e164 = models.CharField(max_length=20, blank=True, db_index=True)
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Callback to {self.phone}" if self.phone else "Callback (no number)"


class SmsMessage(models.Model):
    suggestion = models.OneToOneField(Suggestion, on_delete=models.PROTECT, related_name="sms")
    conversation = models.ForeignKey(
        "chat.Conversation", on_delete=models.PROTECT, related_name="sms_messages"
    )
    to = models.CharField(max_length=20, db_index=True, help_text="E.164.")
    body = models.TextField()
    backend = models.CharField(max_length=200)
    sent_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-sent_at"]
        verbose_name = "SMS message"
        verbose_name_plural = "SMS log"

    def __str__(self) -> str:
        return f"SMS to {self.to}"


class SupportTicket(models.Model):
    suggestion = models.OneToOneField(Suggestion, on_delete=models.PROTECT, related_name="ticket")
    conversation = models.ForeignKey(
        "chat.Conversation", on_delete=models.PROTECT, related_name="tickets"
    )
    subject = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    # How to reach the customer: the e-mail address or the phone number typed on the card.
    email = models.EmailField(max_length=254, blank=True)
    phone = models.CharField(max_length=40, blank=True)
    phone_e164 = models.CharField(max_length=20, blank=True, db_index=True)
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.reference

    @property
    def reference(self) -> str:
        """``T-000042``: derived from the primary key, so it is unique and never reused."""
        return f"T-{self.pk:06d}"
