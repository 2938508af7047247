"""Swedish: general words for amounts, units, periods and clauses."""

LANGUAGE = "sv"

CURRENCIES = {"kr": "SEK", "kronor": "SEK", "krona": "SEK", "sek": "SEK", ":-": "SEK", "öre": "öre",
              "euro": "EUR", "eur": "EUR", "€": "EUR",
              "dollar": "USD", "usd": "USD", "$": "USD"}  # fmt: skip

# Lemmas (simplemma's) and common inflections that simplemma leaves alone.
UNITS = {
    "sekund": "second", "sekunder": "second", "sekunders": "second", "minut": "minute",
    "minuter": "minute", "minuters": "minute", "min": "minute", "timme": "hour",
    "timmar": "hour", "timmars": "hour", "timmes": "hour", "tim": "hour", "h": "hour",
    "dygn": "day", "dygns": "day", "dag": "day", "dagar": "day", "dagars": "day",
    "arbetsdag": "workday", "arbetsdagar": "workday", "vardag": "workday", "vardagar": "workday",
    "vecka": "week", "veckas": "week", "veckor": "week", "veckors": "week", "månad": "month",
    "månads": "month", "månader": "month", "månaders": "month", "år": "year", "års": "year",
    "åra": "year",
    # Definite plurals: "de första 3 veckorna", "de senaste 12 månaderna".
    "sekunderna": "second", "minuterna": "minute", "timmarna": "hour", "dygnen": "day",
    "dagarna": "day", "veckorna": "week", "månaderna": "month", "åren": "year",
    "kg": "kg", "kilo": "kg", "kilogram": "kg", "g": "g", "gram": "g", "ton": "t",
    "km": "km", "kilometer": "km", "mil": "mil", "m": "m", "meter": "m", "cm": "cm",
    "mm": "mm", "centimeter": "cm", "millimeter": "mm", "tum": "inch",
    "l": "l", "liter": "l", "dl": "dl", "cl": "cl", "ml": "ml",
    "kwh": "kWh", "wh": "Wh", "mwh": "MWh", "gwh": "GWh", "twh": "TWh", "kw": "kW",
    "kwp": "kWp", "mwp": "MWp",
    "mw": "MW", "w": "W", "watt": "W", "v": "V", "volt": "V", "a": "A", "ampere": "A", "mah": "mAh",
    "gb": "GB", "tb": "TB", "mb": "MB", "kb": "kB", "mbit/s": "Mbit/s", "gbit/s": "Gbit/s",
    "procentenhet": "pp", "procentenheter": "pp",
    "öre": "öre", "kvm": "m2", "m2": "m2", "m²": "m2", "kvadratmeter": "m2",
    "grader": "degree", "°c": "degC",
    "grader celsius": "degC", "grad celsius": "degC", "celsius": "degC",
}  # fmt: skip

PERIODS = {
    "sekund": "second", "minut": "minute", "timme": "hour", "timmen": "hour", "tim": "hour",
    "dygn": "day", "dygnet": "day", "dag": "day", "dagen": "day", "vecka": "week",
    "veckan": "week", "månad": "month", "månaden": "month", "mån": "month", "år": "year",
    "året": "year", "kvartal": "quarter", "kvartalet": "quarter", "termin": "term",
    "terminen": "term", "tillfälle": "occasion", "gång": "occasion", "gången": "occasion",
}  # fmt: skip

THING_PERIODS = ("tillfälle",)  # "tio tillfällen à 90 minuter", "första tillfället"

PERIOD_ADVERBS = {"årligen": "year", "årlig": "year", "årliga": "year", "årligt": "year",
                  "månatligen": "month", "dagligen": "day",
                  "veckovis": "week", "månadsvis": "month", "timvis": "hour"}  # fmt: skip

PER_MARKERS = ("per", "i", "om", "à", "/", "varje", "åt")  # "åt gången"
PERCENT_WORDS = ("procent", "procents", "%")
CLOCK_MARKERS = ("kl", "klockan", "kl.")
RANGE_WORDS = ("till", "–", "-")
CONJUNCTIONS = ("och", "eller", "samt", "men", "medan")
ORDINAL_SUFFIXES = (":e", ":a", "e", "a")
WEEKDAY_PLURAL_ENDINGS = ("ar", "arna", "en", "s")
COMPOUND_LINKING = "seaou"
COMPOUNDS = True
TIME_SUFFIXES = ()
ORDINAL_WORDS = {"första": 1, "andra": 2, "tredje": 3, "fjärde": 4, "femte": 5, "sjätte": 6,
                 "sjunde": 7, "åttonde": 8, "nionde": 9, "tionde": 10}  # fmt: skip
ANSWER_WORDS = ("ja", "nej", "jo", "okej", "ok")  # "Ja, ...": say nothing of a subject
RANGE_OPENERS = ("mellan", "från")
# After these, "en", "ett" or "one" counts: "högst ett lån", "at most one loan".
COUNT_BOUNDS = ("högst", "minst", "lägst", "max", "maximalt", "som mest", "som minst", "mer än",
                "fler än", "mindre än", "färre än")  # fmt: skip
LIST_JOINERS = ("och", "samt")  # before the last item of a list of days
RANGE_JOINERS = ("och", "till och med", "till", "t.o.m.")
# Definite and plural endings: a word the dictionary lacks ("Routern", a loanword) also
# stands for its stem ("router").
DEFINITE_ENDINGS = ("erna", "arna", "orna", "en", "et", "n")

# Nouns made from verbs: none. "-ning" -> "-a" ("anmälning" -> "anmäla") made every "betala"
# and "mäta" match the KB's "betalning" and "mätning" lines, and correct answers fell.
VERB_NOUNS = ()

# Comparison words: a bound before a number belongs to its value ("över 24 år" is not "under
# 24 år"); inclusion words after it too ("inkl. moms" is not "exkl. moms"). Not "senast":
# "senast 30 dagar innan" is "minst 30 dagar innan".
LOWER_BOUNDS = ("över", "minst", "från", "efter", "mer än", "fler än", "lägst", "fr.o.m.",
                "ovanför", "större än",
                "äldre än", "längre än", "högre än")  # fmt: skip
UPPER_BOUNDS = ("under", "högst", "upp till", "till", "före", "mindre än", "färre än", "max",
                "maximalt", "inom", "t.o.m.", "innan", "som mest",
                "yngre än", "kortare än", "lägre än")  # fmt: skip
# A negation right before a bound turns it round: "inte över 25 m", "inte längre än 25 m",
# "not more than", "no longer than" are upper bounds.
NEGATIONS = ("inte", "ej", "icke", "aldrig")
# A deadline before a number: "senast 30 dagar före" is not "tidigast 30 dagar före".
DEADLINE_LATEST = ("senast", "inte senare än")
DEADLINE_EARLIEST = ("tidigast", "inte tidigare än")
INCLUDED = ("inkl", "inklusive")
EXCLUDED = ("exkl", "exklusive", "utan")

# The tail of a compound that makes its head a period ("årsavgift", "timpris", "dygnshyra").
RATE_WORDS = ("avgift", "pris", "kostnad", "hyra", "taxa", "premie", "lön", "ersättning")

# Abbreviations of what a price counts by ("49,50 kr/st" is "per styck").
COUNTED_BY = {"st": "styck", "stk": "styck", "pers": "person"}

# Words of a question that ask for a kind of number (fact cards, grounding.cards).
KIND_WORDS = {
    "ring": "phone", "ringa": "phone", "ringer": "phone", "telefon": "phone",
    "telefonnummer": "phone", "nummer": "phone", "numret": "phone", "nå": "phone",
    "öppet": "time_range", "öppettider": "time_range", "öppnar": "time", "stänger": "time",
}  # fmt: skip
