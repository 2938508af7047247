"""Admin building blocks for audit rows: read-only, exportable."""

import json

from django.contrib import admin
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse
from django.urls import reverse
from django.utils.html import format_html


class ReadOnlyAdminMixin:
    """Audit rows are displayed, never added, changed or deleted (bulk actions included)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(ReadOnlyAdminMixin, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True


@admin.action(description="Export selected as JSON Lines", permissions=["view"])
def export_jsonl(modeladmin, request, queryset):
    """Each row's fields as its admin page shows them to this user (``get_fields``), except
    the admin's ``export_exclude``: an export never holds what the page hides (an execution's
    client address)."""
    excluded = set(getattr(modeladmin, "export_exclude", ()))
    shown = set(modeladmin.get_fields(request))
    lines = []
    for obj in queryset:
        row = {"pk": obj.pk}
        for field in obj._meta.concrete_fields:
            if (field.primary_key or field.name in shown) and field.name not in excluded:
                row[field.name] = field.value_from_object(obj)
        lines.append(json.dumps(row, cls=DjangoJSONEncoder, ensure_ascii=False))
    name = queryset.model._meta.model_name
    response = HttpResponse("\n".join(lines) + "\n", content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="{name}s.jsonl"'
    return response


def timeline_link(conversation_id) -> str:
    """A link to the conversation's timeline: every audit row shows one."""
    url = reverse("admin:chat_timeline", args=[conversation_id])
    return format_html('<a href="{}">timeline</a>', url)
