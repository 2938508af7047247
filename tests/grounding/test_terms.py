"""Terms: lemmas and compound parts from simplemma, weekdays, letters, ordinal words."""

import pytest

from grounding.terms import sentence_language, terms, text_language


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Bygglovsavgiften", "sv", {"bygglovsavgift", "bygglov", "avgift"}),
        ("ljudböcker", "sv", {"ljudbok"}),
        ("växeln", "sv", {"växel"}),
        ("Växel", "sv", {"växel"}),
        ("frames", "en", {"frame"}),
        ("i zon B", "sv", {"zon", "#b"}),
        ("måndag–torsdag", "sv", {"weekday:1", "weekday:2", "weekday:3", "weekday:4"}),
        ("Monday to Friday", "en", {f"weekday:{d}" for d in range(1, 6)}),
        ("på fredagar", "sv", {"weekday:5"}),
        ("andra barnet", "sv", {"n:2", "barn"}),
    ],
)
def test_terms_of_general_language(text, language, expected):
    assert expected <= terms(text, language)


def test_units_periods_and_stopwords_are_not_terms():
    assert terms("kostar 99 kr per månad och år", "sv") == {"kosta"}


def test_a_visit_or_an_occasion_is_a_thing_as_well_as_a_period():
    """ "per visit" is a period (notation reads it); "the site visit" names a subject."""
    assert {"site", "visit"} <= terms("After the site visit", "en")
    assert "visit" in terms("two service visits a year", "en")
    assert "tillfälle" in terms("det första tillfället", "sv")


def test_every_form_of_a_dictionary_word_gives_the_same_terms():
    assert terms("villkoren", "sv") == terms("villkor", "sv")


def test_a_capital_letter_opening_a_sentence_is_no_term():
    assert "#a" not in terms("A parcel costs", "en")


def test_language_of_an_answer():
    assert text_language("Payment terms: 30 days net") == "en"
    assert text_language("Ring växeln") == "sv"


def test_marker_words_that_decide_the_language_spare_the_dictionaries(monkeypatch):
    """A question's own markers ("vad", "the") decide; the dictionaries only break a tie."""
    from grounding.lemma_tables import LEMMAS

    asked = []
    real = LEMMAS.langdetect
    monkeypatch.setattr(LEMMAS, "langdetect", lambda *a, **k: asked.append(a) or real(*a, **k))
    assert text_language("Vad kostar premium?") == "sv"
    assert text_language("What does the premium plan cost?") == "en"
    assert asked == []
    assert text_language("Payment terms: 30 days net") == "en"
    assert len(asked) == 1


def test_a_capitalised_stopword_inside_a_sentence_is_part_of_a_name():
    assert {"hem", "mellan"} <= terms("Hem Mellan kostar 139 kr", "sv")
    assert "mellan" not in terms("för dig mellan 18 och 29 år", "sv")


def test_an_english_possessive_is_its_name():
    assert terms("Kungsholmen's number", "en") == terms("Kungsholmen number", "en")
    assert "kungsholmen" in terms("Kungsholmen’s phone", "en")


def test_an_address_names_no_subject():
    assert terms("Email hello@pulseworks.se or see https://pulseworks.se/help", "en") == {
        "email",
        "see",
    }


def test_an_abbreviated_weekday_after_a_slash_is_a_period():
    assert "weekday:1" not in terms("139 kr/mån", "sv")
    assert "weekday:1" in terms("mån–fre 8–17", "sv")


def test_months_and_month_ranges_are_markers():
    assert {f"month:{m}" for m in (11, 12, 1, 2, 3)} <= terms("November–March", "en")
    assert "month:5" not in terms("you may cancel", "en")
    assert "hourly" in terms("the hourly price", "en")


@pytest.mark.parametrize(
    ("text", "language"),
    [("Uppsägningstiden är två månader.", "sv"), ("Notice is twenty days.", "en")],
)
def test_a_number_in_words_is_no_term(text, language):
    assert not terms(text, language) & {"två", "twenty"}


@pytest.mark.parametrize(
    ("text", "hint", "language"),
    [
        # A short question may read as English; its Swedish answer is read as Swedish.
        ("Högsta ersättning är 20 000 kr och självrisken är 1 500 kr.", "en", "sv"),
        # "öre" is an English currency word too: the question decides how "85.40" reads.
        ("The fixed price in SE3 is 85.40 öre/kWh.", "en", "en"),
        # Its own marker words decide before the question ("Workshop service" reads as Swedish).
        ("The price is 1,500 kr.", "sv", "en"),
        ("Priset är 1,500 kr.", "en", "sv"),
        ("1,500 kr.", "sv", "sv"),
        ("The price is 1,500 kr.", None, "en"),
        # A Swedish name in an English sentence: the question decides.
        ("You can call our Malmö office on +46 40 700 00 00.", "en", "en"),
        ("Resan till Storskär tar 45 minuter.", "en", "sv"),
    ],
)
def test_a_sentences_own_letters_decide_its_language_before_the_questions(text, hint, language):
    assert sentence_language(text, hint) == language


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        ("Den lilla stugan", "Liten stuga", "liten"),  # a lemma of another stem
        ("Växeln svarar", "Växel", "växel"),  # not "växla": the same stem, as long
        ("Avgiften betalas", "Avgift", "avgift"),  # not "avgifta": longer
    ],
)
def test_every_form_of_a_word_reaches_the_same_term(first, second, shared):
    assert shared in terms(first, "sv") & terms(second, "sv")


def test_after_the_warm_up_no_question_loads_a_dictionary(monkeypatch):
    """The warm-up maps what the first question would (0.5 s on the event loop otherwise).

    Observes the lemma tables' loader and simplemma's dictionary loader (a private name of
    the library: if it moves, this test fails and the warm-up must be checked again).
    """
    from simplemma.strategies.dictionaries import dictionary_factory

    from grounding.lemma_tables import LEMMAS
    from grounding.terms import warm_up

    warm_up()
    loads = []
    real = dictionary_factory._load_dictionary_from_disk
    monkeypatch.setattr(
        dictionary_factory,
        "_load_dictionary_from_disk",
        lambda *args, **kwargs: loads.append(args) or real(*args, **kwargs),
    )
    real_trie = LEMMAS.dictionaries._trie
    monkeypatch.setattr(
        LEMMAS.dictionaries,
        "_trie",
        lambda *args, **kwargs: loads.append(args) or real_trie(*args, **kwargs),
    )
    text_language("Vad kostar produkten i butiken?")
    terms("Hur många kilo väger cykeln?", "sv")
    terms("How much does the bicycle weigh?", "en")
    assert loads == []


def test_the_other_languages_weekday_is_a_word_unless_capitalised():
    assert "weekday:5" not in terms("Du har 15 minuters fri tid", "sv")  # "fri": free
    assert "weekday:5" in terms("Öppet Fri 9–17", "sv")
    assert "weekday:5" in terms("open Mon–Fri", "en")


@pytest.mark.parametrize(
    ("word", "head"),
    [
        ("kennelhostevaccinet", "kennelhosta"),  # an "a" turned into the linking "e"
        ("medlemsavgiften", "medlem"),  # a linking "s"
        ("lånetid", "lån"),  # a linking "e" after a known word
    ],
)
def test_a_compounds_head_is_the_word_it_stands_for(word, head):
    assert head in terms(word, "sv")


def test_a_short_head_is_no_word_with_an_a_restored():
    assert "roa" not in terms("Routern kostar 1 295 kr", "sv")


def test_a_capitalised_compound_of_a_name_and_a_known_word_gives_both():
    """ "Enköpingskontoret" is the Enköping office: the name is in no dictionary."""
    assert {"enköping", "kontor"} <= terms("Enköpingskontoret når du på 0171-39 12 20.", "sv")
    assert "enköping" not in terms("enköpingskontoret", "sv")  # only a capitalised name


def test_a_deadline_and_what_completes_a_bound_are_no_terms_what_is_compared_is():
    assert "less" not in terms("booked for at least 4 hours", "en")
    assert "late" not in terms("ordered no later than 4 weeks before", "en")
    assert "sen" not in terms("senast 30 dagar före", "sv")
    assert "stor" in terms('Fälg 21" och större', "sv")  # "21 tum och större" names a column


@pytest.mark.parametrize(
    ("text", "language", "verb", "has_verb"),
    [
        ("Arrival from", "en", "arrive", True),
        ("Departure by", "en", "depart", True),
        # "-ment", "-ation" and Swedish "-ning" made common verbs match every such noun.
        ("Payment", "en", "pay", False),
        ("Betalning", "sv", "betala", False),
    ],
)
def test_a_noun_made_from_a_verb_also_names_the_verb(text, language, verb, has_verb):
    assert (verb in terms(text, language)) is has_verb
    assert verb in terms(verb, language)


@pytest.mark.parametrize(
    ("text", "language", "other"),
    [
        ("Lektioner på engelska", "sv", "english"),
        ("en engelsk lektion", "sv", "english"),
        ("Lessons in English", "en", "engelsk"),
        ("Vi skickar till Norge", "sv", "norway"),
        ("Calling from Germany", "en", "tyskland"),
        ("Finska bastun", "sv", "finnish"),
    ],
)
def test_a_language_or_country_is_named_in_both_languages(text, language, other):
    assert other in terms(text, language)


def test_a_name_written_alike_in_both_languages_is_itself_only():
    assert terms("Leverans till Finland", "sv") >= {"finland"}
    assert not terms("Vi har öppet", "sv") & {"open", "opened"}
