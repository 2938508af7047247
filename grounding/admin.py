"""The KB index in the admin: read-only, since the KB is edited as files; import sources.

Change the markdown under ``kb/`` and run ``manage.py reindex_kb``; rows
edited here would be overwritten by the next reindex, or worse, silently
differ from the files that citations point to.
"""

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import formats, timezone

from grounding.kbimport.confine import RefusedAddress, check_url
from grounding.kbimport.runs import ImportAlreadyRunning, start_import_run
from grounding.models import ImportRun, ImportSource, KBChunk, KBDocument, KBFact, KBIndexState


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
        "source_url",
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


NO_SUBJECT = "no subject"
NEEDS_KEY = "needs a key (no row, label, heading or column says what it is about)"
SHARED_LINE = "another value on its line with the same kind, unit, period and subject"


def _twin_on_line():
    """Another value on the same line that nothing but the number tells apart.

    Same kind, unit, period and subject: "från 2026-05-04 till 2026-09-25" or
    "a 30-day right of return ... longer than the 14 days" under one subject.
    One value in two notations, or SEK beside EUR, is no ambiguity.
    """
    return KBFact.objects.filter(
        document=OuterRef("document"),
        line=OuterRef("line"),
        kind=OuterRef("kind"),
        unit=OuterRef("unit"),
        period=OuterRef("period"),
        subject_text=OuterRef("subject_text"),
    ).exclude(value=OuterRef("value"))


class AmbiguityFilter(admin.SimpleListFilter):
    """Facts a KB editor should look at: a number whose subject the KB leaves unclear."""

    title = "ambiguity"
    parameter_name = "ambiguous"

    def lookups(self, request, model_admin):
        return [
            ("any", "any ambiguity"),
            ("no_subject", NO_SUBJECT),
            ("needs_key", NEEDS_KEY),
            ("shared_line", SHARED_LINE),
        ]

    def queryset(self, request, queryset):
        needs_key = Q(entity=[], attribute=[])
        conditions = {
            "any": Q(subject_text="") | needs_key | Q(_shares_line=True),
            "no_subject": Q(subject_text=""),
            "needs_key": needs_key,
            "shared_line": Q(_shares_line=True),
        }
        condition = conditions.get(self.value())
        return queryset if condition is None else queryset.filter(condition)


@admin.register(KBFact)
class KBFactAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """What the KB states about what: every number with its kind, unit and subject."""

    list_display = (
        "value",
        "kind",
        "unit",
        "period",
        "subject_text",
        "location",
        "cell",
        "fact_id",
        "ambiguity",
    )
    list_filter = ("document", "kind", AmbiguityFilter, "language")
    list_select_related = ("document",)
    search_fields = ("value", "subject_text", "text", "fact_id", "document__path")
    readonly_fields = (
        "document",
        "ordinal",
        "value",
        "kind",
        "unit",
        "period",
        "subject_text",
        "subject",
        "qualifiers",
        "context",
        "line",
        "cell_row",
        "cell_column",
        "text",
        "language",
        "fact_id",
        "entity",
        "attribute",
        "group",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_shares_line=Exists(_twin_on_line()))

    @admin.display(description="file:line", ordering="line")
    def location(self, obj):
        return f"{obj.document.path}:{obj.line}"

    @admin.display(description="table cell")
    def cell(self, obj):
        return "" if obj.cell_row is None else f"row {obj.cell_row}, column {obj.cell_column}"

    @admin.display(description="ambiguity")
    def ambiguity(self, obj):
        reasons = [NO_SUBJECT] if not obj.subject_text else []
        if obj.needs_key:
            reasons.append(NEEDS_KEY)
        if obj._shares_line:
            reasons.append(SHARED_LINE)
        return "; ".join(reasons)


class ImportSourceForm(forms.ModelForm):
    """A source's URL must be a site the importer may reach (``grounding.kbimport.confine``)."""

    class Meta:
        model = ImportSource
        fields = ["name", "url", "max_pages", "max_depth"]

    def clean_url(self):
        url = self.cleaned_data["url"]
        try:
            check_url(url, internal_hosts=settings.KB_IMPORT_INTERNAL_HOSTS)
        except RefusedAddress as error:
            raise forms.ValidationError(
                f"The importer may not connect to {url}: {error}. An internal site must be "
                "named in KB_IMPORT_INTERNAL_HOSTS."
            ) from error
        return url


@admin.register(ImportSource)
class ImportSourceAdmin(admin.ModelAdmin):
    """Sites the KB is imported from; a re-import needs ``grounding.run_import``."""

    form = ImportSourceForm

    list_display = ("name", "url", "max_pages", "max_depth", "last_run")
    search_fields = ("name", "url")
    actions = ["start_import"]

    @admin.display(description="last run")
    def last_run(self, obj):
        run = obj.runs.first()
        if run is None:
            return "never"
        # As the admin shows a datetime field (Import runs' "started at"): in the current time
        # zone, in the active locale's format. A bare strftime would show the stored UTC.
        started = formats.localize(timezone.template_localtime(run.started_at))
        return (
            f"{run.get_status_display()} {started}: {run.added} added, "
            f"{run.updated} updated, {run.unchanged} unchanged, {run.removed} removed, "
            f"{len(run.failures)} failed"
        )

    def has_run_import_permission(self, request):
        return request.user.has_perm("grounding.run_import")

    @admin.action(description="Re-import the selected sources now", permissions=["run_import"])
    def start_import(self, request, queryset):
        for source in queryset:
            try:
                start_import_run(source=source, started_by=request.user.get_username())
            except ImportAlreadyRunning as error:
                self.message_user(request, str(error), messages.WARNING)
            else:
                self.message_user(request, f"Import of {source} started; see Import runs.")


@admin.register(ImportRun)
class ImportRunAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Every import run, from the admin or the command line, as it happened: read-only."""

    list_display = (
        "imported",
        "origin",
        "status",
        "started_at",
        "finished_at",
        "started_by",
        "added",
        "updated",
        "unchanged",
        "removed",
        "failure_count",
    )
    list_filter = ("status", "origin", "source")
    readonly_fields = [field.name for field in ImportRun._meta.fields]

    @admin.display(description="imported")
    def imported(self, obj):
        return str(obj.source) if obj.source else ", ".join(obj.sources)[:120]

    @admin.display(description="failed")
    def failure_count(self, obj):
        return len(obj.failures)
