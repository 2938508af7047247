"""What starting the ASGI app (config/asgi.py) loads: a chat turn's needs, not the importer's."""

import json

from tests.live import run_python

# The importer's libraries (grounding/kbimport/extract.py and what they pull in).
IMPORTER_LIBRARIES = ("magika", "mammoth", "markitdown", "onnxruntime", "pdfminer", "trafilatura")


def importer_libraries_loaded_by(statements: str) -> list[str]:
    """Which of them are in ``sys.modules`` of a fresh interpreter after ``statements``."""
    out = run_python(
        f"""
        import json, os, sys
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        {statements}
        print(json.dumps([name for name in {IMPORTER_LIBRARIES!r} if name in sys.modules]))
        """
    )
    return json.loads(out.splitlines()[-1])


def test_starting_the_asgi_application_loads_none_of_the_importers_libraries():
    """``import config.asgi`` (every chat server's start, admin included) leaves them out."""
    assert importer_libraries_loaded_by("import config.asgi") == []


def test_the_import_service_loads_them():
    """The import command's entry point loads them: the names checked above are the real ones."""
    loaded = importer_libraries_loaded_by(
        "import django; django.setup(); import grounding.kbimport.service"
    )
    assert loaded == list(IMPORTER_LIBRARIES)
