"""The indexed knowledge base: documents, their chunks and the index version.

The markdown files under ``kb/`` are the source of truth; these rows are the
index built from them by ``manage.py reindex_kb`` and are never edited by hand.
"""

from django.db import models
from django.db.models import F, Q


class Language(models.TextChoices):
    SWEDISH = "sv", "Svenska"
    ENGLISH = "en", "English"


class KBDocument(models.Model):
    path = models.CharField(max_length=500, help_text='As the user knows it, e.g. "kb/pricing.md".')
    title = models.CharField(max_length=300, blank=True)
    source_url = models.URLField(
        max_length=2000,
        blank=True,
        help_text="The page an imported document came from (its front matter's source).",
    )
    category = models.CharField(max_length=100, blank=True, db_index=True)
    keywords = models.JSONField(default=list, blank=True)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.SWEDISH)
    content_hash = models.CharField(
        max_length=64,
        help_text="SHA-256 of the file's bytes and of the code that reads facts from them.",
    )
    indexed_at = models.DateTimeField()

    class Meta:
        ordering = ["path"]
        verbose_name = "KB document"
        verbose_name_plural = "KB documents"
        constraints = [
            models.UniqueConstraint(fields=["path"], name="kbdocument_unique_path"),
            models.CheckConstraint(
                condition=Q(language__in=Language.values), name="kbdocument_language_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.path


class KBChunk(models.Model):
    document = models.ForeignKey(KBDocument, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField(help_text="0-based position in the document.")
    heading = models.CharField(max_length=500, blank=True, help_text='e.g. "Priser > Premium"')
    text = models.TextField()
    start_line = models.PositiveIntegerField()
    end_line = models.PositiveIntegerField()

    class Meta:
        ordering = ["document", "ordinal"]
        verbose_name = "KB chunk"
        verbose_name_plural = "KB chunks"
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="kbchunk_unique_ordinal"),
            models.CheckConstraint(condition=Q(start_line__gte=1), name="kbchunk_start_line_gte_1"),
            models.CheckConstraint(
                condition=Q(end_line__gte=F("start_line")), name="kbchunk_line_range_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document.path}:{self.start_line}-{self.end_line}"


class FactKind(models.TextChoices):
    """What a number of the KB is; the values of ``grounding.facts.Kind``."""

    AMOUNT = "amount", "amount"
    PERCENTAGE = "percentage", "percentage"
    PHONE = "phone", "phone number"
    DATE = "date", "date"
    TIME = "time", "time"
    TIME_RANGE = "time_range", "time range"
    DURATION = "duration", "duration"
    QUANTITY = "quantity", "quantity with a unit"
    COUNT = "count", "count"
    CODE = "code", "code"
    ORDINAL = "ordinal", "ordinal"


class KBFact(models.Model):
    """A number the KB states, with what it is about: extracted by ``reindex_kb``.

    One row per number of a document (``grounding.facts.extract_facts``),
    replaced with the document's chunks whenever the file changes.
    """

    document = models.ForeignKey(KBDocument, on_delete=models.CASCADE, related_name="facts")
    ordinal = models.PositiveIntegerField(help_text="0-based position in the document.")
    value = models.CharField(
        max_length=200,
        db_index=True,
        help_text='Canonical, e.g. "1240", "2026-06-19", "+4681234567".',
    )
    kind = models.CharField(max_length=20, choices=FactKind.choices, db_index=True)
    unit = models.CharField(max_length=40, blank=True, help_text='e.g. "SEK", "EUR", "kg", "day".')
    period = models.CharField(max_length=40, blank=True, help_text='e.g. "month", "year".')
    subject_text = models.CharField(
        "subject",
        max_length=500,
        blank=True,
        help_text='What the number is about, e.g. "Avgifter > 190 liter > Årsavgift".',
    )
    subject = models.JSONField(default=list, blank=True, help_text="Normalised subject terms.")
    qualifiers = models.JSONField(
        default=list, blank=True, help_text="The terms that tell it apart from sibling facts."
    )
    context = models.JSONField(
        default=list, blank=True, help_text="Terms of its line and headings."
    )
    line = models.PositiveIntegerField(help_text="1-based line in the file.")
    cell_row = models.PositiveIntegerField(
        null=True, blank=True, help_text="Row in its table (the header row is 0)."
    )
    cell_column = models.PositiveIntegerField(
        null=True, blank=True, help_text="Column in its table."
    )
    text = models.TextField(help_text="The line the number is on.")
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.SWEDISH)
    fact_id = models.CharField(
        "id",
        max_length=12,
        db_index=True,
        default="",
        help_text='Stable while its line and value are: what a generator cites ("F:3f513e88").',
    )
    entity = models.JSONField(
        default=list, blank=True, help_text="What it is about: the row key, label or heading."
    )
    attribute = models.JSONField(
        default=list, blank=True, help_text="Which of its entity's values: the column or label."
    )
    group = models.CharField(
        max_length=500,
        blank=True,
        help_text="The parallel facts it must be told apart from (its table, its section).",
    )

    class Meta:
        ordering = ["document", "ordinal"]
        verbose_name = "KB fact"
        verbose_name_plural = "KB facts"
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="kbfact_unique_ordinal"),
            models.CheckConstraint(condition=Q(line__gte=1), name="kbfact_line_gte_1"),
            models.CheckConstraint(condition=Q(kind__in=FactKind.values), name="kbfact_kind_valid"),
            models.CheckConstraint(
                condition=Q(cell_row__isnull=True, cell_column__isnull=True)
                | Q(cell_row__isnull=False, cell_column__isnull=False),
                name="kbfact_cell_complete",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.value} ({self.kind}) at {self.document.path}:{self.line}"

    @property
    def needs_key(self) -> bool:
        """No row key, label, heading or column says what it is about: an editor should."""
        return not (self.entity or self.attribute)


class KBIndexState(models.Model):
    """The one row whose ``version`` moves with every reindex that changed anything.

    Server processes compare it with the version of their in-memory index and
    reload when it differs, so a reindex reaches them without a restart.
    """

    SINGLETON_ID = 1

    id = models.PositiveSmallIntegerField(primary_key=True, default=SINGLETON_ID, editable=False)
    version = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "KB index state"
        verbose_name_plural = "KB index state"
        # The admin's retrieval preview shows KB text and runs the checker: a
        # permission of its own, not merely staff status.
        permissions = [("preview_retrieval", "Can use the retrieval preview")]
        constraints = [
            models.CheckConstraint(condition=Q(id=1), name="kbindexstate_singleton"),
        ]

    def __str__(self) -> str:
        return f"KB index version {self.version}"


class ImportSource(models.Model):
    """A site the KB is imported from (``manage.py import_kb``), re-imported from the admin."""

    name = models.CharField(max_length=200)
    url = models.URLField(max_length=2000, help_text="The site's start page or sitemap.")
    max_pages = models.PositiveIntegerField(default=200)
    max_depth = models.PositiveSmallIntegerField(default=3, help_text="0: the page alone.")

    class Meta:
        ordering = ["name"]
        permissions = [("run_import", "Can start a re-import of a KB import source")]
        constraints = [
            models.UniqueConstraint(fields=["url"], name="importsource_unique_url"),
            models.CheckConstraint(condition=Q(max_pages__gte=1), name="importsource_pages_gte_1"),
        ]

    def __str__(self) -> str:
        return self.name


class ImportRun(models.Model):
    """One import, from the admin (a source) or the command line: when, by whom, where it ran,
    what changed and what failed."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running"  # queued for the worker, or running
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"

    class Origin(models.TextChoices):
        ADMIN = "admin", "Admin"
        COMMAND = "command", "Command line"

    source = models.ForeignKey(
        ImportSource, on_delete=models.CASCADE, related_name="runs", null=True, blank=True
    )
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.ADMIN)
    sources = models.JSONField(default=list, blank=True, help_text="The URLs and files imported.")
    worker = models.CharField(
        max_length=300, blank=True, help_text="host:pid of the process that runs it."
    )
    started_by = models.CharField(max_length=150, blank=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    added = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    removed = models.PositiveIntegerField(default=0)
    failures = models.JSONField(default=list, blank=True, help_text="[{source, reason}]")
    error = models.TextField(blank=True, help_text="Why the run failed as a whole.")
    skipped = models.JSONField(default=list, blank=True, help_text="[{url, reason}]")
    log = models.TextField(blank=True, help_text="The run's report, as import_kb prints it.")

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["running", "finished", "failed"]),
                name="importrun_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(origin__in=["admin", "command"]), name="importrun_origin_valid"
            ),
            models.CheckConstraint(
                condition=Q(origin="command") | Q(source__isnull=False),
                name="importrun_admin_run_has_source",
            ),
            models.CheckConstraint(
                condition=Q(finished_at__isnull=True) | Q(finished_at__gte=F("started_at")),
                name="importrun_finished_after_start",
            ),
            models.UniqueConstraint(
                fields=["source"],
                condition=Q(status="running"),
                name="importrun_one_running_per_source",
            ),
        ]

    def __str__(self) -> str:
        what = self.source or ", ".join(self.sources)[:80] or "import"
        return f"{what} at {self.started_at:%Y-%m-%d %H:%M} ({self.status})"
