"""System checks of the chat's settings (``manage.py check``, and every server start)."""

from django.conf import settings
from django.core.checks import Error, register

from chat.edge import normalized_origin


@register()
def widget_allowed_origins_check(app_configs, **kwargs) -> list[Error]:
    """Each ``WIDGET_ALLOWED_ORIGINS`` entry must be an origin, or it would be ignored silently."""
    return [
        Error(
            f"WIDGET_ALLOWED_ORIGINS: {value!r} is not an origin "
            "(scheme://host[:port], e.g. https://www.example.com, no path).",
            id="chat.E001",
        )
        for value in settings.WIDGET_ALLOWED_ORIGINS
        if normalized_origin(value) is None
    ]
