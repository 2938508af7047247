"""English: general words for amounts, units, periods and clauses."""

LANGUAGE = "en"

CURRENCIES = {"sek": "SEK", "kr": "SEK", "kronor": "SEK", "crowns": "SEK", "öre": "öre",
              "eur": "EUR", "euro": "EUR", "euros": "EUR", "€": "EUR", "usd": "USD",
              "dollar": "USD", "dollars": "USD", "$": "USD", "gbp": "GBP", "£": "GBP"}  # fmt: skip

UNITS = {
    "second": "second", "seconds": "second", "sec": "second", "minute": "minute",
    "minutes": "minute", "min": "minute", "mins": "minute", "hour": "hour", "hours": "hour",
    "hr": "hour", "hrs": "hour", "h": "hour", "day": "day", "days": "day",
    "working day": "workday", "working days": "workday", "business day": "workday",
    "business days": "workday", "workday": "workday", "workdays": "workday",
    "weekday": "workday", "weekdays": "workday",
    "week": "week", "weeks": "week", "month": "month", "months": "month", "year": "year",
    "years": "year", "kg": "kg", "kilo": "kg", "kilos": "kg", "kilogram": "kg",
    "kilograms": "kg", "g": "g", "gram": "g", "grams": "g", "km": "km", "kilometre": "km",
    "kilometres": "km", "kilometer": "km", "kilometers": "km", "mile": "mile", "miles": "mile",
    "m": "m", "metre": "m", "metres": "m", "meter": "m", "meters": "m", "cm": "cm",
    "mm": "mm", "inch": "inch", "inches": "inch", "foot": "ft", "feet": "ft", "ft": "ft",
    "yard": "yd", "yards": "yd", "pound": "lb", "pounds": "lb", "lb": "lb", "lbs": "lb",
    "ounce": "oz", "ounces": "oz", "oz": "oz", "tonne": "t", "tonnes": "t", "ton": "t",
    "tons": "t", "gallon": "gal", "gallons": "gal",
    "l": "l", "litre": "l",
    "litres": "l", "liter": "l", "liters": "l", "ml": "ml", "kwh": "kWh", "wh": "Wh",
    "mwh": "MWh", "gwh": "GWh", "twh": "TWh", "kw": "kW", "mw": "MW", "kwp": "kWp", "mwp": "MWp",
    "w": "W", "watt": "W", "watts": "W", "v": "V", "volt": "V", "a": "A",
    "amp": "A", "amps": "A", "mah": "mAh", "gb": "GB", "tb": "TB", "mb": "MB",
    "mbit/s": "Mbit/s", "mbps": "Mbit/s", "gbps": "Gbit/s", "sq m": "m2", "m2": "m2",
    "square metre": "m2", "square metres": "m2", "square meter": "m2", "square meters": "m2",
    "sqm": "m2",
    "m²": "m2", "degrees": "degree", "°c": "degC", "degrees celsius": "degC",
    "degree celsius": "degC", "celsius": "degC", "°": "degree", "percentage point": "pp",
    "percentage points": "pp", "points": "pp",
}  # fmt: skip

PERIODS = {
    "second": "second", "minute": "minute", "hour": "hour", "day": "day", "week": "week",
    "month": "month", "year": "year", "quarter": "quarter", "term": "term",
    "annum": "year", "occasion": "occasion", "time": "occasion", "visit": "occasion",
}  # fmt: skip

THING_PERIODS = ("visit", "occasion")  # "the site visit", "service visits"

PERIOD_ADVERBS = {"yearly": "year", "annually": "year", "annual": "year", "monthly": "month",
                  "weekly": "week",
                  "daily": "day", "hourly": "hour", "quarterly": "quarter"}  # fmt: skip

PER_MARKERS = ("per", "a", "an", "each", "every", "/")
PERCENT_WORDS = ("per cent", "percent", "pct", "%")
CLOCK_MARKERS = ("at", "o'clock")
RANGE_WORDS = ("to", "until", "till", "through", "–", "-")
CONJUNCTIONS = ("and", "or", "but", "while", "whereas")
ORDINAL_SUFFIXES = ("st", "nd", "rd", "th")
WEEKDAY_PLURAL_ENDINGS = ("s",)
COMPOUND_LINKING = ""
COMPOUNDS = False
TIME_SUFFIXES = ("am", "pm", "a.m", "p.m", "o'clock")
ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                 "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}  # fmt: skip
ANSWER_WORDS = ("yes", "no", "ok", "okay", "sure")  # "Ja, ...": say nothing of a subject
RANGE_OPENERS = ("between", "from")
# After these, "en", "ett" or "one" counts: "högst ett lån", "at most one loan".
COUNT_BOUNDS = ("at most", "at least", "more than", "less than", "fewer than", "no more than",
                "no less than", "maximum", "minimum")  # fmt: skip
LIST_JOINERS = ("and",)  # before the last item of a list of days
RANGE_JOINERS = ("and", "to", "through")
DEFINITE_ENDINGS = ()

# A noun made from a verb names what the verb does ("Arrival from: 13:00" is when you may
# arrive). Only endings that turned out safe: "-ment" and "-ation" made "pay" and "reserve"
# match every payment and reservation line, and cost correct answers.
VERB_NOUNS = (("ival", "ive"), ("ure", ""))

LOWER_BOUNDS = ("over", "at least", "more than", "from", "after", "minimum", "min", "above",
                "no less than", "greater than",
                "older than", "longer than", "higher than")  # fmt: skip
UPPER_BOUNDS = ("under", "up to", "less than", "before", "until", "maximum", "max", "at most",
                "no more than", "below", "within", "fewer than",
                "younger than", "shorter than", "lower than")  # fmt: skip
# A negation right before a bound turns it round: "inte över 25 m", "inte längre än 25 m",
# "not more than", "no longer than" are upper bounds.
NEGATIONS = ("not", "no", "never")
# A deadline before a number: "senast 30 dagar före" is not "tidigast 30 dagar före".
DEADLINE_LATEST = ("no later than", "at the latest", "by the latest")
DEADLINE_EARLIEST = ("no earlier than", "at the earliest", "earliest")
INCLUDED = ("incl", "including", "inclusive of")
EXCLUDED = ("excl", "excluding", "exclusive of", "without")

# The tail of a compound that makes its head a period (English writes few as one word).
RATE_WORDS = ("fee", "price", "cost", "rate", "rent", "charge")

# Abbreviations of what a price counts by ("SEK 5/pc" is "per piece").
COUNTED_BY = {"pc": "piece", "pcs": "piece", "pce": "piece", "ea": "each"}

# Words of a question that ask for a kind of number (fact cards, grounding.cards).
KIND_WORDS = {
    "call": "phone", "phone": "phone", "number": "phone", "dial": "phone", "reach": "phone",
    "open": "time_range", "hours": "time_range", "opens": "time", "closes": "time",
}  # fmt: skip
