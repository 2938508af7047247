import json
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, JsonResponse
from django.shortcuts import render
from django.utils import timezone, translation
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET

from actions.selectors import suggestions_for_conversation
from chat import metrics, sessionkeys, texts
from chat.action_cards import suggestion_frame
from chat.edge import allowed_widget_origins, normalized_origin
from chat.protocol import WIDGET_TOKEN
from chat.selectors import conversation_for_session, conversation_for_token, conversation_transcript

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

    A browser without a session cookie, or with a key this server did not issue
    (``chat.sessionkeys``), gets a fresh signed key in the session cookie, and
    no row in the session table: the chat uses the key only as
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
    if not sessionkeys.is_issued(request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")):
        # No cookie, or one this server never issued (a planted key): a fresh issued key.
        response.set_cookie(
            settings.SESSION_COOKIE_NAME,
            sessionkeys.issue(),
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
    key = request.session.session_key or ""
    conversation = conversation_for_session(session_key=key) if sessionkeys.is_issued(key) else None
    return _history(conversation)


def _history(conversation) -> JsonResponse:
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


# -- the website widget (docs/widget.md) ------------------------------------------


def _widget_language(value: str) -> str:
    """``sv`` or ``en`` from a page's language tag (``en-GB`` is English); else the default."""
    language = (value or "").split("-")[0].lower()
    return language if language in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def _embedder(request: HttpRequest) -> str | None:
    """The origin of the page that asked (its Referer), "" when unknown, None when refused.

    Browsers send the embedding page's origin as the Referer of a script or
    frame request (unless that page's referrer policy says no-referrer): this
    server's own pages and ``WIDGET_ALLOWED_ORIGINS`` pass.
    """
    if not request.headers.get("Referer"):
        return ""
    origin = _referer_origin(request)
    own = normalized_origin(request.build_absolute_uri("/"))
    if origin is not None and (origin == own or origin in allowed_widget_origins()):
        return origin
    return None


def _referer_origin(request: HttpRequest) -> str | None:
    parts = urlsplit(request.headers.get("Referer", ""))
    return normalized_origin(f"{parts.scheme}://{parts.netloc}") if parts.netloc else None


@require_GET
@never_cache
def widget_loader(request: HttpRequest) -> HttpResponse:
    """``/widget.js``: the loader a site includes; on a site not allowed, one console error."""
    own = normalized_origin(request.build_absolute_uri("/"))
    embedder = _embedder(request)
    if embedder is None:
        metrics.widget_embed_refused()
        page = _referer_origin(request) or "this site"
        message = json.dumps(
            f"Support widget: {page} may not embed the chat of {own}; "
            "its operator lists the sites that may in WIDGET_ALLOWED_ORIGINS."
        )
        body = f"console.error({message});\n"
        return HttpResponse(body, content_type="text/javascript; charset=utf-8")
    titles = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            titles[language] = texts.page_strings()["frameTitle"]
    config = {
        "origin": own,
        "frame": request.build_absolute_uri("/widget/"),
        "allowed": sorted(allowed_widget_origins() | {own}),
        "titles": titles,
        "defaultLanguage": settings.LANGUAGE_CODE,
    }
    return render(
        request,
        "chat/widget.js",
        {"config": json.dumps(config)},
        content_type="text/javascript; charset=utf-8",
    )


@require_GET
@xframe_options_exempt
def widget_frame(request: HttpRequest) -> HttpResponse:
    """``/widget/``: the chat in the widget's frame; only the allowed sites may frame it.

    The browser enforces ``frame-ancestors``; a Referer from a site not allowed
    is refused here too (403), and counted.
    """
    ancestors = " ".join(["'self'", *sorted(allowed_widget_origins())])
    if _embedder(request) is None:
        metrics.widget_embed_refused()
        response = HttpResponse(
            "This site may not embed the chat (WIDGET_ALLOWED_ORIGINS).", status=403
        )
    else:
        language = _widget_language(request.GET.get("lang", ""))
        with translation.override(language):
            context = {
                "strings": texts.page_strings(),
                "chips": suggestion_chips(language),
                "page_config": {
                    "language": language,
                    "debug": settings.DEBUG,
                    "widget": True,
                    "historyUrl": "/widget/history/",
                    "embedders": sorted(allowed_widget_origins()),
                },
            }
            response = render(request, "chat/widget.html", context)
    response["Content-Security-Policy"] = f"frame-ancestors {ancestors}"
    response["Referrer-Policy"] = "no-referrer"
    return response


@require_GET
@never_cache
def widget_history(request: HttpRequest) -> JsonResponse:
    """The widget conversation so far, for the token in ``Authorization: Bearer``.

    Never a URL parameter (URLs are logged). A token that is revoked,
    expired or unknown gets the empty history, like a new conversation.
    """
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme != "Bearer" or not WIDGET_TOKEN.fullmatch(token):
        return JsonResponse({"error": "Authorization: Bearer <widget token> required."}, status=401)
    return _history(conversation_for_token(token=token, now=timezone.now()))


@require_GET
def widget_demo(request: HttpRequest) -> HttpResponse:
    """``/widget-demo/`` (``WIDGET_DEMO``, on with DJANGO_DEBUG=1): a page that embeds the
    widget as a site would. Off, its 404 says how to turn it on."""
    if not settings.WIDGET_DEMO:
        return HttpResponseNotFound(
            "The widget demo is off. Set WIDGET_DEMO=1 (or DJANGO_DEBUG=1) in the environment "
            "and restart the server to serve it here (docs/widget.md).\n",
            content_type="text/plain; charset=utf-8",
        )
    return render(request, "chat/widget_demo.html", {"lang": request.GET.get("lang", "sv")})
