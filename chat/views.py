from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from chat.selectors import conversation_for_session, conversation_transcript


@require_GET
def chat_page(request: HttpRequest) -> HttpResponse:
    """The chat page; makes sure the browser has a session to bind its conversation to."""
    if not request.session.session_key:
        request.session.save()
    return render(request, "chat/index.html")


@require_GET
def chat_history(request: HttpRequest) -> JsonResponse:
    """This browser session's conversation so far (and only this session's)."""
    conversation = conversation_for_session(session_key=request.session.session_key or "")
    if conversation is None:
        return JsonResponse({"conversationId": None, "messages": [], "suggestions": []})
    from actions.selectors import suggestions_pending_for_conversation

    suggestions = suggestions_pending_for_conversation(conversation_id=conversation.pk)
    return JsonResponse(
        {
            "conversationId": str(conversation.pk),
            "messages": conversation_transcript(conversation=conversation),
            "suggestions": [s.as_frame() for s in suggestions],
        }
    )


@staff_member_required
def staff_console(request: HttpRequest) -> HttpResponse:
    """The staff console: the live handoff queue; after the admin login, with the permission."""
    if not request.user.has_perm("chat.handle_handoff"):
        raise PermissionDenied
    return render(request, "staff/console.html", {"staff_name": request.user.get_username()})
