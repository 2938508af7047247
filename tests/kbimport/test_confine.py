"""The importer connects only to public addresses (grounding/kbimport/confine.py).

A KB editor's import source on loopback, a private network, link-local (the cloud metadata
address) or the unspecified address is refused: the site is never connected to, and the
failure names the URL without the per-URL connection errors a port scanner would read.
"""

import socket

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from grounding.kbimport.confine import RefusedAddress, allowed_addresses, check_url, refusal
from grounding.kbimport.service import ImportOptions, import_sources
from grounding.models import ImportSource

INTERNAL = ["{url}/", "http://localhost:{port}/", "http://[::1]:{port}/", "http://0.0.0.0:{port}/",
            "http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]:{port}/",
            "http://10.0.0.1/", "http://192.168.1.1/", "http://[fe80::1]/", "http://224.0.0.1/",
            "http://2130706433:{port}/", "http://0x7f.1:{port}/"]  # fmt: skip


def _spelled(template: str, url: str) -> str:
    return template.format(url=url, port=url.rsplit(":", 1)[1])


@pytest.mark.parametrize("template", INTERNAL)
def test_an_import_of_an_internal_address_is_refused_without_connecting(
    site, import_settings, tmp_path, template
):
    """127.0.0.1:<port> (the fixture site itself), localhost, [::1], 0.0.0.0, 169.254.169.254
    and other spellings: the report's failure names the URL, the site saw no request."""
    state, url = site
    import_settings.KB_IMPORT_INTERNAL_HOSTS = []
    target = _spelled(template, url)
    report = import_sources([target], kb_dir=tmp_path, options=ImportOptions.from_settings())
    assert report.imported == 0
    reasons = [reason for _, reason in report.failed]
    assert reasons and all(r.startswith("refused ") and "internal host" in r for r in reasons)
    assert reasons[0].startswith(f"refused {target}")
    assert state.requests == []


def test_a_host_named_internal_is_imported(site, import_settings, tmp_path):
    """The fixture site on 127.0.0.1 is imported once ``KB_IMPORT_INTERNAL_HOSTS`` names it."""
    state, url = site
    import_settings.KB_IMPORT_INTERNAL_HOSTS = ["127.0.0.1"]
    options = ImportOptions.from_settings(max_depth=0)
    report = import_sources([url + "/priser"], kb_dir=tmp_path, options=options)
    assert report.added == [url + "/priser"] and state.requests


def test_the_address_is_checked_when_the_socket_connects(
    site, import_settings, tmp_path, monkeypatch
):
    """DNS rebinding: a name that resolved to a public address when it was checked and to
    loopback when it is fetched is refused at the fetch; the site sees nothing."""
    state, url = site
    port = int(url.rsplit(":", 1)[1])
    import_settings.KB_IMPORT_INTERNAL_HOSTS = []
    real = socket.getaddrinfo
    answers = iter(["93.184.215.14", "127.0.0.1"])

    def rebinding(host, *args, **kwargs):
        if host == "rebind.example":
            address = next(answers, "127.0.0.1")
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    target = f"http://rebind.example:{port}/priser"
    check_url(target, internal_hosts=[])  # the first answer: public
    options = ImportOptions.from_settings(max_depth=0)
    report = import_sources([target], kb_dir=tmp_path, options=options)
    assert report.failed and report.failed[0][1].startswith(f"refused {target}")
    assert state.requests == []


def test_a_name_with_any_internal_address_is_refused(monkeypatch):
    """A name resolving to a public and a private address cannot be used to reach the latter."""
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda host, port, **kw: [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", port)),
        ],
    )
    with pytest.raises(RefusedAddress, match=r"private address 10\.1\.2\.3"):
        allowed_addresses("mixed.example", 80, internal_hosts=[])
    assert allowed_addresses("mixed.example", 80, internal_hosts=["MIXED.example"]) == [
        "93.184.215.14",
        "10.1.2.3",
    ]


@pytest.mark.parametrize(
    ("address", "kind"),
    [("127.0.0.1", "loopback"), ("::1", "loopback"), ("0.0.0.0", "unspecified"),
     ("::", "unspecified"), ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
     ("10.0.0.1", "private"), ("172.16.0.1", "private"), ("192.168.0.1", "private"),
     ("fd00::1", "private"), ("224.0.0.1", "multicast"), ("ff02::1", "multicast"),
     ("::ffff:127.0.0.1", "loopback"), ("100.64.0.1", "non-public"), ("240.0.0.1", "reserved")],
)  # fmt: skip
def test_internal_addresses_are_refused_and_named(address, kind):
    assert refusal(address).startswith(kind)


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700::6810:84e5", "8.8.8.8"])
def test_public_addresses_are_allowed(address):
    assert refusal(address) is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/", "http://localhost/", "http://[::1]/", "http://0.0.0.0/",
     "http://169.254.169.254/latest/meta-data/"],
)  # fmt: skip
def test_a_kb_editor_cannot_save_an_internal_import_source_in_the_admin(
    client, django_user_model, settings, url
):
    """The admin's form (a staff member with the add permission, not a superuser) refuses it."""
    settings.KB_IMPORT_INTERNAL_HOSTS = []
    editor = django_user_model.objects.create_user("editor", password="pw", is_staff=True)
    editor.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_importsource", "view_importsource"])
    )
    client.force_login(editor)
    response = client.post(
        reverse("admin:grounding_importsource_add"),
        {"name": "Intern", "url": url, "max_pages": 10, "max_depth": 1},
    )
    assert response.status_code == 200
    assert "The importer may not connect to" in response.content.decode()
    assert not ImportSource.objects.exists()
