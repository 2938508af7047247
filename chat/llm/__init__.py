"""LLM backends behind one interface; ``get_backend()`` picks one from settings."""

from functools import cache

from django.conf import settings

from chat.llm.base import Exchange, LLMBackend, LLMError, LLMRequest
from chat.llm.mock import MockBackend
from chat.llm.openai import OpenAIBackend

__all__ = ["Exchange", "LLMBackend", "LLMError", "LLMRequest", "get_backend"]


def get_backend() -> LLMBackend:
    """The configured backend (``LLM_BACKEND``: ``mock`` or ``openai``)."""
    return _backend(settings.LLM_BACKEND, settings.LLM_BASE_URL, settings.LLM_MODEL)


@cache
def _backend(name: str, base_url: str, model: str) -> LLMBackend:
    # Keyed by the settings that shape it, so tests that override them get a fresh one.
    if name == "mock":
        return MockBackend()
    if name == "openai":
        return OpenAIBackend.from_settings()
    raise ValueError(f"Unknown LLM_BACKEND {name!r}: use 'mock' or 'openai'.")
