"""The KB index in the admin: read-only, since the KB is edited as files.

Change the markdown under ``kb/`` and run ``manage.py reindex_kb``; rows
edited here would be overwritten by the next reindex, or worse, silently
differ from the files that citations point to.
"""

from django.contrib import admin
from django.db.models import Count

from grounding.models import KBChunk, KBDocument, KBIndexState


class ReadOnlyAdminMixin:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class KBChunkInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = KBChunk
    fields = ("ordinal", "heading", "start_line", "end_line", "text")
    readonly_fields = fields
    extra = 0
    show_change_link = True


@admin.register(KBDocument)
class KBDocumentAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("path", "title", "category", "language", "chunk_count", "indexed_at")
    list_filter = ("category", "language", "indexed_at")
    search_fields = ("path", "title", "category")
    date_hierarchy = "indexed_at"
    readonly_fields = (
        "path",
        "title",
        "category",
        "keywords",
        "language",
        "content_hash",
        "indexed_at",
    )
    inlines = [KBChunkInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_chunk_count=Count("chunks"))

    @admin.display(description="chunks", ordering="_chunk_count")
    def chunk_count(self, obj):
        return obj._chunk_count


@admin.register(KBChunk)
class KBChunkAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("__str__", "heading", "ordinal", "excerpt")
    list_filter = ("document__category", "document__language")
    list_select_related = ("document",)
    search_fields = ("text", "heading", "document__path")
    readonly_fields = ("document", "ordinal", "heading", "start_line", "end_line", "text")

    @admin.display(description="text")
    def excerpt(self, obj):
        return obj.text[:120] + ("…" if len(obj.text) > 120 else "")


@admin.register(KBIndexState)
class KBIndexStateAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("__str__", "version", "updated_at")
    readonly_fields = ("version", "updated_at")
