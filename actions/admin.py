"""Staff review of suggestions, executions and their artifacts: read-only audit rows."""

import re

from django.contrib import admin
from django.http import HttpRequest

from actions.admin_tools import ReadOnlyAdminMixin, export_jsonl, timeline_link
from actions.models import CallbackRequest, Execution, SmsMessage, Suggestion, SupportTicket
from actions.services import suggestions_expire

TICKET_REFERENCE_RE = re.compile(r"^T-?(\d+)$", re.IGNORECASE)


EXECUTION_FIELDS = [
    "status",
    "success",
    "message",
    "result",
    "error",
    "claimed_at",
    "executed_at",
    "duplicate_confirms",
]


class ExecutionInline(ReadOnlyAdminMixin, admin.StackedInline):
    model = Execution
    extra = 0
    can_delete = False
    fields = EXECUTION_FIELDS
    readonly_fields = fields


@admin.register(Suggestion)
class SuggestionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    actions = [export_jsonl]
    list_display = [
        "suggestion_id",
        "action",
        "status",
        "phone",
        "conversation",
        "created_at",
        "expires_at",
        "timeline",
    ]
    list_filter = ["action", "status", "created_at"]
    date_hierarchy = "created_at"
    search_fields = ["=suggestion_id", "payload__phone", "payload__phone_e164"]
    list_select_related = ["conversation"]
    readonly_fields = [
        "suggestion_id",
        "conversation",
        "action",
        "payload",
        "status",
        "source_message_id",
        "created_at",
        "expires_at",
        "closed_at",
    ]
    fields = [*readonly_fields, "timeline"]
    inlines = [ExecutionInline]

    @admin.display(description="phone")
    def phone(self, obj: Suggestion) -> str:
        return obj.payload.get("phone", "")

    @admin.display(description="timeline")
    def timeline(self, obj: Suggestion) -> str:
        return timeline_link(obj.conversation_id)

    def changelist_view(self, request: HttpRequest, extra_context=None):
        # Lazy expiry: staff see stale suggestions as expired without a background job.
        suggestions_expire()
        return super().changelist_view(request, extra_context)


@admin.register(Execution)
class ExecutionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    actions = [export_jsonl]
    list_display = [
        "suggestion",
        "action",
        "status",
        "success",
        "message",
        "duplicate_confirms",
        "claimed_at",
        "executed_at",
        "timeline",
    ]
    list_filter = ["status", "success", "suggestion__action", "claimed_at"]
    date_hierarchy = "claimed_at"
    search_fields = ["=suggestion__suggestion_id", "suggestion__payload__phone", "message"]
    list_select_related = ["suggestion"]
    fields = ["suggestion", *EXECUTION_FIELDS, "timeline"]
    readonly_fields = fields

    @admin.display(description="timeline")
    def timeline(self, obj: Execution) -> str:
        return timeline_link(obj.suggestion.conversation_id)

    @admin.display(description="action", ordering="suggestion__action")
    def action(self, obj: Execution) -> str:
        return obj.suggestion.get_action_display()


class ArtifactAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Common shape of callbacks, SMS and tickets: found by suggestion id or phone."""

    actions = [export_jsonl]

    list_select_related = ["suggestion", "conversation"]
    search_fields = ["=suggestion__suggestion_id"]

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> list[str]:
        return [*(f.name for f in self.model._meta.fields), "timeline"]

    @admin.display(description="timeline")
    def timeline(self, obj) -> str:
        return timeline_link(obj.conversation_id)


@admin.register(CallbackRequest)
class CallbackRequestAdmin(ArtifactAdmin):
    list_display = ["__str__", "phone_e164", "suggestion", "conversation", "created_at"]
    list_filter = ["created_at"]
    date_hierarchy = "created_at"
    search_fields = [*ArtifactAdmin.search_fields, "phone", "phone_e164"]


@admin.register(SmsMessage)
class SmsMessageAdmin(ArtifactAdmin):
    list_display = ["to", "body", "backend", "suggestion", "sent_at"]
    list_filter = ["backend", "sent_at"]
    date_hierarchy = "sent_at"
    search_fields = [*ArtifactAdmin.search_fields, "to", "body"]


@admin.register(SupportTicket)
class SupportTicketAdmin(ArtifactAdmin):
    list_display = ["reference", "subject", "email", "phone", "timeline", "created_at"]
    list_filter = ["created_at"]
    date_hierarchy = "created_at"
    search_fields = [*ArtifactAdmin.search_fields, "email", "phone", "phone_e164", "subject"]

    @admin.display(description="reference", ordering="pk")
    def reference(self, obj: SupportTicket) -> str:
        return obj.reference

    def get_readonly_fields(self, request: HttpRequest, obj=None) -> list[str]:
        return ["reference", *super().get_readonly_fields(request, obj)]

    def get_search_results(self, request: HttpRequest, queryset, search_term: str):
        # Staff quote the reference the customer was given ("T-000042").
        match = TICKET_REFERENCE_RE.match(search_term.strip())
        if match:
            return queryset.filter(pk=int(match.group(1))), False
        return super().get_search_results(request, queryset, search_term)
