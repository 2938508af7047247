from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from grounding.models import KBDocument, KBIndexState

PRICING = "# Priser\n\n- Premium: 399 kr/månad\n"


def _run(*args, **options) -> str:
    out = StringIO()
    call_command("reindex_kb", *args, stdout=out, **options)
    return out.getvalue()


@pytest.mark.django_db
def test_command_indexes_and_prints_the_summary(write_kb):
    """The command indexes the directory and prints added/changed/unchanged/removed/chunks/facts
    and time."""
    kb = write_kb({"pricing.md": PRICING, "a/contact.md": "# Kontakt\n\nTelefon: 08-123 45 67\n"})
    output = _run("--kb-dir", str(kb))
    assert "added:     2" in output
    assert "changed:   0" in output
    assert "unchanged: 0" in output
    assert "removed:   0" in output
    assert "chunks:    2" in output
    assert "facts:     2" in output  # 399 kr/månad and the phone number
    assert "time:" in output
    assert KBDocument.objects.count() == 2

    output = _run("--kb-dir", str(kb))
    assert "unchanged: 2" in output and "added:     0" in output


@pytest.mark.django_db
def test_command_defaults_to_settings_kb_dir(write_kb, settings):
    """Without --kb-dir the command indexes settings.KB_DIR."""
    settings.KB_DIR = write_kb({"pricing.md": PRICING})
    _run()
    assert list(KBDocument.objects.values_list("path", flat=True)) == ["kb/pricing.md"]


@pytest.mark.django_db
def test_if_empty_indexes_only_an_empty_index(write_kb):
    """--if-empty indexes the first time and leaves an existing index alone."""
    kb = write_kb({"pricing.md": PRICING})
    assert "added:     1" in _run("--kb-dir", str(kb), "--if-empty")
    (kb / "new.md").write_text("# Ny\n\ntext\n", encoding="utf-8")
    output = _run("--kb-dir", str(kb), "--if-empty")
    assert "not empty" in output
    assert KBDocument.objects.count() == 1
    assert KBIndexState.objects.get().version == 1


@pytest.mark.django_db
def test_missing_directory_is_a_command_error(tmp_path):
    """A KB directory that does not exist ends the command with an error."""
    with pytest.raises(CommandError, match="not found"):
        _run("--kb-dir", str(tmp_path / "missing"))


@pytest.mark.django_db
def test_verbose_run_lists_each_file(write_kb):
    """With -v 2 every indexed file is named."""
    kb = write_kb({"pricing.md": PRICING})
    assert "Indexed kb/pricing.md" in _run("--kb-dir", str(kb), verbosity=2)
