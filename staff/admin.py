"""The handoff's audit rows in the admin (read-only): who asked, who took them, each step."""

from django.contrib import admin
from django.http import HttpRequest

from actions.admin_tools import ReadOnlyAdminMixin, ReadOnlyInline, export_jsonl, timeline_link
from chat.models import Handoff, HandoffEvent
from staff.handoff import handoff_release
from staff.models import SavedReply
from staff.permissions import PERMISSION


class HandoffEventInline(ReadOnlyInline):
    model = HandoffEvent
    fields = ("created_at", "kind", "staff", "text", "message_id")
    readonly_fields = fields
    ordering = ("created_at", "id")


@admin.register(Handoff)
class HandoffAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Customers who asked for a person: who took them, when, and every step (audit rows)."""

    list_display = ("requested_at", "status", "source", "taken_by", "taken_at", "timeline")
    list_filter = (
        "status",
        "source",
        "requested_at",
        ("taken_by", admin.RelatedOnlyFieldListFilter),
    )
    list_select_related = ("taken_by",)
    ordering = ("-requested_at", "-id")
    readonly_fields = (
        "conversation",
        "timeline",
        "status",
        "source",
        "requested_at",
        "taken_by",
        "taken_at",
        "closed_at",
    )
    inlines = [HandoffEventInline]
    actions = [export_jsonl, "release"]

    @admin.display(description="timeline")
    def timeline(self, obj) -> str:
        return timeline_link(obj.conversation_id)

    @admin.action(
        description="Release to the queue (the person is gone; the agent answers meanwhile)",
        permissions=["release"],
    )
    def release(self, request: HttpRequest, queryset) -> None:
        released = sum(
            handoff_release(conversation_id=conversation_id, by=request.user)
            for conversation_id in queryset.filter(status=Handoff.Status.ACTIVE).values_list(
                "conversation_id", flat=True
            )
        )
        self.message_user(request, f"{released} conversation(s) back in the queue.")

    def has_release_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(PERMISSION)


@admin.register(HandoffEvent)
class HandoffEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "kind", "staff", "text", "timeline")
    list_filter = ("kind", "created_at")
    list_select_related = ("staff",)
    search_fields = ("text",)
    readonly_fields = (
        "handoff",
        "conversation",
        "kind",
        "staff",
        "text",
        "message_id",
        "created_at",
    )
    actions = [export_jsonl]

    @admin.display(description="timeline")
    def timeline(self, obj) -> str:
        return timeline_link(obj.conversation_id)


@admin.register(SavedReply)
class SavedReplyAdmin(admin.ModelAdmin):
    """Replies staff insert in the console; who may add, change or delete them is the model's
    permissions (``staff.add_savedreply``, ``change_``, ``delete_``), given per user or group."""

    list_display = ("title", "language", "text", "updated_at")
    list_filter = ("language",)
    search_fields = ("title", "text")
