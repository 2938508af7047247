"""The staff console's page (``/staff/``); everything live goes over ``/ws/staff/``."""

from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from staff.permissions import PERMISSION


@staff_member_required
def staff_console(request: HttpRequest) -> HttpResponse:
    """The staff console: the live handoff queue; after the admin login, with the permission."""
    if not request.user.has_perm(PERMISSION):
        raise PermissionDenied
    return render(request, "staff/console.html", {"staff_name": request.user.get_username()})
