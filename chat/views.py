from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
def chat_page(request: HttpRequest) -> HttpResponse:
    """The chat page; makes sure the browser has a session to bind its conversation to."""
    if not request.session.session_key:
        request.session.save()
    return render(request, "chat/index.html")
