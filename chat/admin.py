"""Where support staff review what the agent was asked, drafted, showed and why."""

import json

from django.contrib import admin
from django.utils.html import format_html, format_html_join

from chat.admin_tools import ReadOnlyAdminMixin, ReadOnlyInline, export_jsonl
from chat.models import Conversation, Feedback, Message, RejectedAnswer


def _pretty(data) -> str:
    return format_html("<pre>{}</pre>", json.dumps(data, ensure_ascii=False, indent=2))


class MessageInline(ReadOnlyInline):
    model = Message
    fields = ("created_at", "role", "message_id", "status", "grounded", "text")
    readonly_fields = fields
    ordering = ("created_at", "id")


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "language", "started_at", "last_active_at", "message_count")
    list_filter = ("language", "started_at")
    search_fields = ("id", "messages__text")
    # The session's hash is a lookup key, not something staff read or export.
    exclude = ("session_hash",)
    export_exclude = ("session_hash",)
    date_hierarchy = "started_at"
    inlines = [MessageInline]
    actions = [export_jsonl]

    @admin.display(description="messages")
    def message_count(self, obj) -> int:
        return obj.messages.count()


class BaseMessageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_select_related = ("conversation", "reply_to")
    date_hierarchy = "created_at"
    search_fields = ("text", "draft", "message_id", "reply_to__text")
    actions = [export_jsonl]
    fieldsets = (
        (None, {"fields": ("conversation", "role", "message_id", "status", "language")}),
        ("Question and answer", {"fields": ("question", "draft", "text")}),
        ("Grounding", {"fields": ("grounded", "block_reason", "unsupported_view")}),
        ("Evidence", {"fields": ("citations_view", "retrieved_view")}),
        (
            "Timing and model",
            {"fields": ("ttft_ms", "total_ms", "token_count", "backend", "model")},
        ),
        ("Failure", {"fields": ("error",)}),
    )
    readonly_fields = (
        "conversation",
        "role",
        "message_id",
        "status",
        "language",
        "question",
        "draft",
        "text",
        "grounded",
        "block_reason",
        "unsupported_view",
        "citations_view",
        "retrieved_view",
        "ttft_ms",
        "total_ms",
        "token_count",
        "backend",
        "model",
        "error",
    )

    @admin.display(description="question")
    def question(self, obj) -> str:
        return obj.reply_to.text if obj.reply_to else ""

    @admin.display(description="unsupported numbers")
    def unsupported_view(self, obj):
        if not obj.unsupported:
            return "-"
        rows = []
        for item in obj.unsupported:
            where = ", ".join(
                f"{loc['file']}:{loc['line']}" for loc in item.get("kb_locations", [])
            )
            rows.append((item.get("text"), item.get("reason"), where or "nowhere in the KB"))
        return format_html(
            "<ul>{}</ul>",
            format_html_join("", "<li><b>{}</b>: {} (occurs in: {})</li>", rows),
        )

    @admin.display(description="citations")
    def citations_view(self, obj):
        return _pretty(obj.citations)

    @admin.display(description="retrieved snippets")
    def retrieved_view(self, obj):
        return _pretty(obj.retrieved)


@admin.register(Message)
class MessageAdmin(BaseMessageAdmin):
    list_display = ("created_at", "role", "status", "grounded", "language", "short_text")
    list_filter = ("role", "status", "grounded", "language", "backend", "created_at")

    @admin.display(description="text")
    def short_text(self, obj) -> str:
        return obj.text[:80]


@admin.register(RejectedAnswer)
class RejectedAnswerAdmin(BaseMessageAdmin):
    """Answers the number guard withheld: question, draft, unsupported numbers, citations."""

    list_display = ("created_at", "question", "short_draft", "unsupported_numbers", "block_reason")
    list_filter = ("language", "created_at")

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .filter(role=Message.Role.ASSISTANT, status=Message.Status.WITHHELD)
        )

    @admin.display(description="draft")
    def short_draft(self, obj) -> str:
        return obj.draft[:120]

    @admin.display(description="unsupported")
    def unsupported_numbers(self, obj) -> str:
        return ", ".join(item.get("text", "") for item in obj.unsupported)


@admin.register(Feedback)
class FeedbackAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "rating", "comment", "answer")
    list_filter = ("rating", "created_at")
    search_fields = ("comment", "message__text", "message__message_id")
    date_hierarchy = "created_at"
    list_select_related = ("message",)
    actions = [export_jsonl]
    readonly_fields = ("message", "rating", "comment", "created_at", "answer")

    @admin.display(description="answer")
    def answer(self, obj) -> str:
        return obj.message.text[:120]
