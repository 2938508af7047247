"""The staff side's own rows: saved replies (the handoff's rows are the chat's)."""

from django.db import models


class SavedReply(models.Model):
    """A reply staff insert in the console with one click; managed in the admin by staff with
    the model's add/change/delete permissions."""

    class Language(models.TextChoices):
        ANY = "", "Any language"
        SWEDISH = "sv", "Swedish"
        ENGLISH = "en", "English"

    title = models.CharField(max_length=80, unique=True)
    text = models.TextField(max_length=4000)
    language = models.CharField(max_length=2, choices=Language.choices, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]
        verbose_name_plural = "saved replies"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(language__in=["", "sv", "en"]),
                name="staff_savedreply_language_valid",
            ),
            models.CheckConstraint(
                condition=~models.Q(text=""), name="staff_savedreply_text_not_empty"
            ),
        ]

    def __str__(self) -> str:
        return self.title
