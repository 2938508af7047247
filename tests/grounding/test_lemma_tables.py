"""The lemma tables (grounding/lemma_tables.py) answer as simplemma's own dictionaries do.

The comparisons load simplemma's whole Swedish and English dictionaries beside the tables
(about 300 MB for some seconds): marked ``dictionaries``.
"""

import json
import re

import pytest
import simplemma
from simplemma.strategies.dictionaries import DefaultDictionaryFactory

from grounding.lemma_tables import LEMMAS, Lemmas, MappedTrieDictionaryFactory
from tests.live import ROOT

LANGUAGES = ("sv", "en")
# Every KB and every case file of the grounding suites (questions and answers).
CORPORA = (ROOT / "kb", ROOT / "tests/grounding/kbs", ROOT / "tests/grounding/dev")
CASES = (ROOT / "tests/grounding/cases", ROOT / "tests/kbimport/cases.jsonl")
_WORD = re.compile(r"[^\W\d_]+")
_MIN_PART = 3  # grounding.terms splits compounds into parts of at least three letters


def strings_of(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings_of(item)]
    if isinstance(value, list):
        return [text for item in value for text in strings_of(item)]
    return []


def suite_texts() -> list[str]:
    """Every line of every KB file, and every string of every case (question, answer, ...)."""
    texts = []
    for root in (*CORPORA, *CASES):
        paths = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in paths:
            if path.suffix == ".md":
                texts += path.read_text().splitlines()
            elif path.suffix == ".jsonl":
                for line in path.read_text().splitlines():
                    if line.strip():
                        texts += strings_of(json.loads(line))
    return [text for text in texts if text.strip()]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    found = suite_texts()
    assert len(found) > 10_000  # the corpora are all there
    return found


@pytest.fixture(scope="module")
def words(texts) -> set[str]:
    """Each word as written and in lower case, and each compound split's head and tail."""
    found = set()
    for text in texts:
        for word in _WORD.findall(text):
            lower = word.lower()
            found |= {word, lower}
            for cut in range(_MIN_PART, len(lower) - _MIN_PART + 1):
                found |= {lower[:cut], lower[cut:]}
    return found


@pytest.mark.dictionaries
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_table_holds_simplemmas_dictionary_entry_for_entry(language):
    """Every key of simplemma's dictionary has the same lemma in the table, and no other key."""
    dictionary = DefaultDictionaryFactory(cache_max_size=0).get_dictionary(language)
    table = LEMMAS.dictionaries.get_dictionary(language)
    assert len(table) == len(dictionary) > 100_000
    differing = [key for key, lemma in dictionary.items() if table.get(key) != lemma]
    assert differing == []


@pytest.mark.dictionaries
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_of_the_suites_lemmatises_as_with_simplemma(words, language):
    """lemmatize and is_known of every word of every KB and case, and of the parts a compound
    split tries, equal simplemma's."""
    assert len(words) > 30_000
    lemmas = [
        w
        for w in sorted(words)
        if LEMMAS.lemmatize(w, language) != simplemma.lemmatize(w, lang=language)
    ]
    known = [
        w
        for w in sorted(words)
        if LEMMAS.is_known(w, language) != simplemma.is_known(w, lang=language)
    ]
    assert (lemmas, known) == ([], [])


@pytest.mark.dictionaries
def test_every_line_of_the_suites_gets_simplemmas_language_guess(texts):
    both = ("sv", "en")
    differing = [
        text
        for text in dict.fromkeys(texts)
        if LEMMAS.langdetect(text, both) != simplemma.langdetect(text, lang=both)
    ]
    assert differing == []


def test_a_table_is_built_once_then_mapped_from_its_file(tmp_path, monkeypatch):
    """The first use writes ``<dir>/<lang>.marisa``; a new process's factory maps that file."""
    import grounding.lemma_tables as module

    first = Lemmas(MappedTrieDictionaryFactory(tmp_path))
    assert first.lemmatize("costs", "en") == "cost"
    table = tmp_path / "en.marisa"
    assert table.stat().st_size > 100_000
    assert [p.name for p in tmp_path.iterdir()] == ["en.marisa"]  # no temporary file left
    written = table.stat().st_mtime_ns

    monkeypatch.setattr(module, "build_trie", lambda language: pytest.fail("built again"))
    second = Lemmas(MappedTrieDictionaryFactory(tmp_path))
    assert second.lemmatize("prices", "en") == "price"
    assert second.is_known("arrive", "en") and not second.is_known("arrivez", "en")
    assert table.stat().st_mtime_ns == written


def test_a_table_that_cannot_be_written_is_kept_in_memory(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    lemmas = Lemmas(MappedTrieDictionaryFactory(blocked / "lemmas"))
    assert lemmas.lemmatize("costs", "en") == "cost"


def test_a_damaged_table_is_built_again(tmp_path):
    (tmp_path / "en.marisa").write_bytes(b"half a trie")
    assert Lemmas(MappedTrieDictionaryFactory(tmp_path)).lemmatize("costs", "en") == "cost"
    assert (tmp_path / "en.marisa").stat().st_size > 100_000
