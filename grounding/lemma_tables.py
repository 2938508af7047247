"""simplemma's dictionaries as memory-mapped MARISA tries: the same lemmas at the cost of their use.

simplemma unpickles a language's whole dictionary into a ``dict`` (Swedish 111 MB, English
26 MB in every process). Its own ``marisa-trie`` extra holds the same entries in a trie of
3.4 MB and 0.9 MB; mapped from a file (``BytesTrie.mmap``), a process pays only for the pages
its look-ups touch, and every server process of a machine shares them.

- First use of a language on a machine (``make install`` runs ``prepare``): simplemma's
  dictionary is read once (seconds) and written as a trie to
  ``<cache>/<simplemma version>/<lang>.marisa`` (a temporary file, then renamed:
  concurrent processes never read half a file).
- Every later use maps that file; nothing is unpickled.
- A cache directory that cannot be written: the trie is kept in memory (still a few MB).
- A damaged file is built again.

``<cache>`` is ``$LEMMA_TABLE_DIR``, else the user's cache directory (``platformdirs``:
``~/.cache/grounded-support/lemmas``). The look-ups are simplemma's own strategies
(``DefaultStrategy``, ``DictionaryLookupStrategy``) over these tables, so every lemma, every
``is_known`` and every language guess is simplemma's (tests/grounding/test_lemma_tables.py
compares them on every entry and every word of the KBs).
"""

import logging
import os
import tempfile
import threading
from collections.abc import Iterator, Mapping
from operator import itemgetter
from pathlib import Path

from marisa_trie import BytesTrie
from platformdirs import user_cache_dir
from simplemma import LanguageDetector, Lemmatizer
from simplemma.__metadata__ import __version__ as SIMPLEMMA_VERSION
from simplemma.strategies import DefaultStrategy, DictionaryLookupStrategy
from simplemma.strategies.dictionaries import DefaultDictionaryFactory, DictionaryFactory
from simplemma.token_sampler import MostCommonTokenSampler, RelaxedMostCommonTokenSampler

from grounding.lexicon import LEXICONS

logger = logging.getLogger(__name__)


def default_table_dir() -> Path:
    configured = os.environ.get("LEMMA_TABLE_DIR")
    base = Path(configured) if configured else Path(user_cache_dir("grounded-support")) / "lemmas"
    return base / SIMPLEMMA_VERSION


def build_trie(language: str) -> BytesTrie:
    """simplemma's dictionary of ``language`` as a trie (reads the whole dictionary once)."""
    dictionary = DefaultDictionaryFactory(cache_max_size=0).get_dictionary(language)
    return BytesTrie(
        zip(dictionary.keys(), [value.encode() for value in dictionary.values()], strict=True)
    )


class TrieTable(Mapping[str, str]):
    """A trie as simplemma's ``Mapping`` of word to lemma; ``get`` without a ``KeyError`` raised
    and caught for each word it lacks (half the time of simplemma's ``TrieWrapDict.get``)."""

    __slots__ = ("_trie",)

    def __init__(self, trie: BytesTrie) -> None:
        self._trie = trie

    def get(self, key: str, default: str | None = None) -> str | None:
        found = self._trie.get(key)
        return found[0].decode() if found else default

    def __getitem__(self, key: str) -> str:
        found = self._trie.get(key)
        if not found:
            raise KeyError(key)
        return found[0].decode()

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._trie

    def __iter__(self) -> Iterator[str]:
        return self._trie.iterkeys()

    def __len__(self) -> int:
        return len(self._trie)


class MappedTrieDictionaryFactory(DictionaryFactory):
    """simplemma's ``DictionaryFactory`` over tries mapped from ``table_dir`` (see the table)."""

    def __init__(self, table_dir: Path | None = None) -> None:
        self.table_dir = table_dir or default_table_dir()
        self._tables: dict[str, Mapping[str, str]] = {}
        self._lock = threading.Lock()

    def get_dictionary(self, lang: str) -> Mapping[str, str]:
        table = self._tables.get(lang)
        if table is None:
            with self._lock:
                table = self._tables.get(lang)
                if table is None:
                    table = self._tables[lang] = TrieTable(self._trie(lang))
        return table

    def _trie(self, language: str) -> BytesTrie:
        path = self.table_dir / f"{language}.marisa"
        if path.exists():
            try:
                return BytesTrie().mmap(str(path))
            except (OSError, RuntimeError, ValueError):
                logger.warning("lemma table %s unreadable: built again", path)
        trie = build_trie(language)
        try:
            self.table_dir.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.table_dir, suffix=".tmp")
            os.close(handle)
            try:
                trie.save(temporary)
                os.chmod(temporary, 0o644)  # mkstemp's 0600: any user's process may map it
                os.replace(temporary, path)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
        except OSError as error:
            logger.warning("lemma table %s not written (%s): kept in memory", path, error)
            return trie
        return BytesTrie().mmap(str(path))


class Lemmas:
    """``lemmatize``, ``is_known`` and ``langdetect`` as simplemma's functions of the same
    names compute them, over ``dictionaries``."""

    def __init__(self, dictionaries: DictionaryFactory) -> None:
        self.dictionaries = dictionaries
        self._strategy = DefaultStrategy(dictionary_factory=dictionaries)
        self._lookup = DictionaryLookupStrategy(dictionaries)
        self._lemmatizer = Lemmatizer(lemmatization_strategy=self._strategy)

    def lemmatize(self, token: str, lang: str) -> str:
        return self._lemmatizer.lemmatize(token, lang)

    def is_known(self, token: str, lang: str) -> bool:
        if not token:
            raise ValueError("Wrong input type: empty string")
        return self._lookup.get_lemma(token, lang) is not None

    def langdetect(self, text: str, lang: tuple[str, ...]) -> list[tuple[str, float]]:
        """simplemma.langdetect (not greedy, its two token samplers, ``unk`` last)."""
        for sampler in (MostCommonTokenSampler(), RelaxedMostCommonTokenSampler()):
            detector = LanguageDetector(lang, sampler, self._strategy)
            ranked = sorted(
                detector.proportion_in_each_language(text).items(), key=itemgetter(1), reverse=True
            )
            ranked.sort(key=lambda item: item[0] == "unk")  # stable: unk last, the rest kept
            if len(ranked) == 1 or ranked[0][1] != ranked[1][1]:
                return ranked
        return ranked


LEMMAS = Lemmas(MappedTrieDictionaryFactory())


def prepare() -> None:
    """Build (or map) every language's table now: ``make install`` runs this, so a server's
    start (``warm_up``) or a test's never spends the seconds of a first build."""
    for language in LEXICONS:
        LEMMAS.dictionaries.get_dictionary(language)


if __name__ == "__main__":
    prepare()
