from django.apps import AppConfig


class StaffConfig(AppConfig):
    """The staff side: the console, its consumer, handoff's staff services, the inbox."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "staff"
