from django.apps import AppConfig

from chat import checks  # noqa: F401  (registers the chat's system checks; no models imported)


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "Chat audit trail"
