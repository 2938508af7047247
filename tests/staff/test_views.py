"""The staff console page: after the admin login, for staff with the handoff permission."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from tests.chat.handoff_helpers import staff_user

pytestmark = pytest.mark.django_db


def test_anonymous_visitors_are_sent_to_the_admin_login(client):
    response = client.get(reverse("staff-console"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_staff_without_the_permission_are_refused(client, django_user_model):
    client.force_login(staff_user(django_user_model, "bo", permitted=False))
    assert client.get(reverse("staff-console")).status_code == 403


def test_staff_with_the_permission_get_the_console(client, django_user_model):
    client.force_login(staff_user(django_user_model, "eva"))
    body = client.get(reverse("staff-console")).content.decode()
    assert 'aria-label="Handoff queue"' in body and "/static/staff/console.js" in body
    script = Path(finders.find("staff/console.js")).read_text()
    assert "/ws/staff/" in script
