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
    category = models.CharField(max_length=100, blank=True, db_index=True)
    keywords = models.JSONField(default=list, blank=True)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.SWEDISH)
    content_hash = models.CharField(max_length=64, help_text="SHA-256 of the file's bytes.")
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
