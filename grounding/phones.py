"""Phone numbers in free text, through the ``phonenumbers`` library.

Pure: no ORM, no I/O. Swedish numbers are the default region, so
``+46 8 123 45 67``, ``+46-8-123-45-67`` and ``08-123 45 67`` are one number.
Only candidates written with a leading ``+`` or trunk ``0`` count, so an
organisation number such as ``556677-8899`` is never taken for a phone.
"""

from dataclasses import dataclass

import phonenumbers

DEFAULT_REGION = "SE"


@dataclass(frozen=True, slots=True)
class PhoneMatch:
    text: str  # as written
    start: int
    end: int
    e164: str  # canonical, e.g. "+4681234567"


def find_phones(text: str, *, region: str = DEFAULT_REGION) -> list[PhoneMatch]:
    """Every valid phone number in ``text``, in order of appearance."""
    found = []
    matcher = phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID)
    for match in matcher:
        raw = match.raw_string
        if not raw or raw[0] not in "+0":
            continue
        e164 = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
        found.append(PhoneMatch(text=raw, start=match.start, end=match.end, e164=e164))
    return found


def first_phone(text: str, *, region: str = DEFAULT_REGION) -> PhoneMatch | None:
    """The first valid phone number in ``text``, or None."""
    phones = find_phones(text, region=region)
    return phones[0] if phones else None
