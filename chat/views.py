from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.crypto import get_random_string
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from actions.selectors import suggestions_for_conversation
from chat import texts
from chat.action_cards import suggestion_frame
from chat.selectors import conversation_for_session, conversation_transcript

DEBUG_CHIP = "hallucinate: Vad kostar premium?"


def suggestion_chips(language: str) -> list[str]:
    """The empty page's suggestions: ``CHAT_SUGGESTIONS`` for the page's language.

    The ``hallucinate`` chip (the mock LLM's invented price, to show the guard)
    only with ``DJANGO_DEBUG=1``.
    """
    chips = list(settings.CHAT_SUGGESTIONS.get(language) or settings.CHAT_SUGGESTIONS["sv"])
    if settings.DEBUG:
        chips.append(DEBUG_CHIP)
    return chips


@require_GET
def chat_page(request: HttpRequest) -> HttpResponse:
    """The chat page; makes sure the browser has a session key to bind its conversation to.

    A browser without a session cookie gets a fresh random key in the session
    cookie, and no row in the session table: the chat uses the key only as
    the bearer token of its conversation (stored as a keyed hash,
    ``chat.models.session_hash``), so a page view that never chats leaves
    nothing in the database. A later login (staff) replaces it as usual.
    """
    language = get_language() or settings.LANGUAGE_CODE
    context = {
        "strings": texts.page_strings(),
        "chips": suggestion_chips(language),
        "page_config": {"language": language, "debug": settings.DEBUG},
    }
    response = render(request, "chat/index.html", context)
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        response.set_cookie(
            settings.SESSION_COOKIE_NAME,
            get_random_string(32, VALID_KEY_CHARS),
            max_age=settings.SESSION_COOKIE_AGE,
            path=settings.SESSION_COOKIE_PATH,
            domain=settings.SESSION_COOKIE_DOMAIN,
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=settings.SESSION_COOKIE_HTTPONLY,
            samesite=settings.SESSION_COOKIE_SAMESITE,
        )
    return response


@require_GET
def chat_history(request: HttpRequest) -> JsonResponse:
    """This browser session's conversation so far (and only this session's).

    ``suggestions`` are the cards still waiting for an answer (as before);
    ``actions`` are every card of the conversation with its state now.
    """
    conversation = conversation_for_session(session_key=request.session.session_key or "")
    if conversation is None:
        return JsonResponse(
            {"conversationId": None, "messages": [], "suggestions": [], "actions": []}
        )
    now = timezone.now()
    language = get_language() or conversation.language
    cards = [
        suggestion_frame(s, language=language, now=now)
        for s in suggestions_for_conversation(conversation_id=conversation.pk)
    ]
    return JsonResponse(
        {
            "conversationId": str(conversation.pk),
            "messages": conversation_transcript(conversation=conversation),
            "suggestions": [c for c in cards if c["card"]["state"] == "pending"],
            "actions": cards,
        }
    )


@staff_member_required
def staff_console(request: HttpRequest) -> HttpResponse:
    """The staff console: the live handoff queue; after the admin login, with the permission."""
    if not request.user.has_perm("chat.handle_handoff"):
        raise PermissionDenied
    return render(request, "staff/console.html", {"staff_name": request.user.get_username()})
