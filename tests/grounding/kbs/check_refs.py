#!/usr/bin/env python3
"""Check the referenced answers (cases_ref.jsonl) of every KB folder beside this script.

(Adapted copy of ../shared/grounding-dev/check_refs.py for the product's own KBs in
tests/grounding/kbs/: it walks the KB folders beside it; NAMES and HAND hold this set's
entries; NUMBER_WORDS also knows the compound numerals and the ordinals these KBs' `number_word`
cases write, "fyrtiofem", "tjugofyra", "twenty-one", "var tredje år".)

The format is described in REFERENCED.md. For every folder that holds a cases.jsonl this
script checks its cases_ref.jsonl:

- every line is JSON with exactly the fields question, answer, expect, kind, source;
- every case of cases.jsonl appears: once, or twice for a swap kind (a kind with "swapped"
  in its name), as <kind>_cited_source and <kind>_cited_true; question and expect are the
  case's, and the answer with its references removed is byte-identical to the case's answer;
- every reference [PATH:LINE] names an existing KB file (a *.md of the folder) and a
  non-empty line of it; [Q] is the question;
- every number of an answer (digits, or a number word) carries a reference: it is followed by
  one before the next reference, and the reference sits right after it (its unit, period or
  bound words), before the punctuation that ends the clause; numbers that are part of a name
  or code (NAMES below, and digits glued to letters such as SE4 or 5G) take no reference;
- in a grounded answer, every number's digits occur on the referenced line (on the question
  for [Q]): spaces and digit grouping removed, decimal comma = decimal point, trailing
  decimal zeros and leading zeros dropped, clock times H:MM = H.MM, phone numbers compared
  as digits without the +46 / 0 prefix, a 12-hour time ("8 pm") matched only by the same
  12-hour form; or the number is listed in HAND below, with its reference: a number in
  words or a notation variant (12/24-hour clock, month names, scale words) checked by hand.
  A [Q] is checked the same way against the question, in withheld answers too.

It prints per folder the counts by expect and kind and exits 1 on any problem.
Usage: python3 check_refs.py [-v] [KB ...]   (-v also lists every reference; KBs: only those folders)
"""
import json
import os
import re
import sys
from collections import Counter
from decimal import Decimal, InvalidOperation

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ["question", "answer", "expect", "kind", "source"]
REF_RE = re.compile(r" \[(Q|[^\[\]\s]+:[0-9]+)\]")
TOKEN_RE = re.compile(r"(?<![0-9])[0-9]+(?:[ \u00a0][0-9]{3}(?![0-9])|[.,:][0-9]+)*")
PHONE_RE = re.compile(r"\+?[0-9][0-9 \-]{4,}[0-9]")
ORDINAL_SUFFIX = re.compile(r"(st|nd|rd|th)(?![A-Za-z])")
_SV_NUM = (r"(?:två|tre|fyra|fem|sex|sju|åtta|nio|tio|elva|tolv|tretton|fjorton|femton|sexton|"
           r"sjutton|arton|nitton|tjugo|trettio|fyrtio|femtio|sextio|sjuttio|åttio|nittio|hundra|"
           r"tusen|en|ett)")
_EN_UNIT = r"(?:one|two|three|four|five|six|seven|eight|nine)"
NUMBER_WORDS = re.compile(
    r"\b(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-" + _EN_UNIT + r")?|"
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|hundred|thousand|millions?|"
    r"third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"tredje|fjärde|femte|sjätte|sjunde|åttonde|nionde|tionde|miljon|miljoner|"
    r"(?!(?:en|ett)\b)" + _SV_NUM + r"+(?<!\ben)(?<!\bett))\b",
    re.IGNORECASE,
)
AMPM_RE = re.compile(r"\s?([ap])\.?m\.?(?![A-Za-z])", re.IGNORECASE)
SENTENCE_END = re.compile(r"[,;!?]|\.(\s|$)")
MAX_GAP = 16        # characters allowed between two numbers that share one reference
MAX_TRAIL = 40      # characters allowed between a number and its reference

# Numbers that are part of a name or code: no reference.
NAMES = {
    "*": [r"\b[Zz]one? [0-9]+\b", r"\b[Zz]on [0-9]+\b"],
    # NAMES BEGIN
    "bageri": [r"\bspår [0-9]+\b"],                # the station's platform
    "bio": [r"\bSalon [0-9]+\b", r"\bLittle Reindeer [0-9]+\b", r"\bNight for Two\b",
            r"\bDolby Digital 7\.1\b"],
    "djurpark": [r"\b[Bb]us(?: line)? [0-9]+\b", r"\b[Ll]ine [0-9]+\b", r"\b[Bb]uss(?:linje)? [0-9]+\b",
                 r"\b[Ll]injen? [0-9]+\b"],
    "farja": [r"\b[Ll]injen? [0-9]+\b", r"\b[Ll]ines? [0-9]+\b"],
    "frisor": [r"\b[Bb]uss(?:linje)? [0-9]+\b", r"\b[Ll]injen? [0-9]+\b", r"\b[Bb]us(?: line)? [0-9]+\b"],
    "fysioterapi": [r"\bBalansträning(?:en)?(?: för)? 65\+"],  # the course "Balansträning 65+"
    "kurir": [r"\bExpress 09\b"],                  # the product "Express 09"
    "marina": [r"\b(?:[Pp]etrol|[Bb]ensin) 95(?: E10)?\b", r"\b[24]-(?:stroke|takt)\b"],  # fuel and oil names
    "parkering": [r"\biOS [0-9]+\b"],             # a software version
    "simhall": [r"\b[Bb]uss(?:linje)? [0-9]+(?: (?:eller|och) [0-9]+)?\b", r"\b[Ll]injen? [0-9]+\b", r"\b[Bb]us(?: line)? [0-9]+\b"],
    "skidort": [r"\b[Ll]injen? [0-9]+\b", r"\b[Bb]uss(?:linje)? [0-9]+\b"],
    "solenergi": [r"\bVolta Home [0-9]+\b"],       # battery models
    "tandvard": [r"\b[Rr]iskgrupp(?:en)? [0-9]+\b"],  # the subscription's risk groups 1-4
    "teater": [r"\b[Rr]ows? [0-9]+(?:[–-][0-9]+)?\b", r"\b[Rr]ad(?:erna)? [0-9]+(?:[–-][0-9]+)?\b"],  # seat rows
    "trafikskola": [r"\b[Rr]isk [12]\b", r"\bPaket [A-ZÅÄÖ][a-zåäö]+ [0-9]+\b"],  # course and package names
    # NAMES END
}

# Numbers checked by hand: (source line in cases.jsonl, number as written in the answer)
# -> (the reference it must carry, what was checked on that line). Only grounded answers and [Q] references need these (the lines cited by
# withheld answers are not digit-checked). An entry that no answer needs is reported.
HAND = {
    # HAND BEGIN
    "apotek": {
        (21, "2026-10-13"): ("halsotjanster.md:28", "month as a name vs digits: 'Säsongens influensavaccinering startar den 13 oktober 2026 och pågår s'"),
        (23, "2026-10-05 till 2026-10-11"): ("kundklubb.md:28", "month as a name vs digits: '| Dubbel bonus, höst | 5–11 oktober 2026 | 5 % | 9 % |'"),
        (43, "16–19"): ("english/information-in-english.md:3", "number word + 12-hour vs 24-hour clock: 'Vallmo Apotek is an independent pharmacy with three shops in Skåne (Lu'"),
        (44, "fjorton"): ("recept-och-hogkostnadsskydd.md:7", "number word: 'Om ett läkemedel inte finns i lager beställer vi hem det. Det kommer o'"),
        (45, "fem"): ("halsotjanster.md:20", "number word: 'Mätningen tar cirka en kvart. Du får sitta still och vila i fem minute'"),
        (45, "tre"): ("halsotjanster.md:20", "number word: 'Mätningen tar cirka en kvart. Du får sitta still och vila i fem minute'"),
        (46, "tredje"): ("halsotjanster.md:32", "number word: 'Grundvaccinationen består av tre doser. Dos 2 ges 1–3 månader efter do'"),
        (47, "tjugofyra"): ("vanliga-fragor.md:22", "number word: 'Presentkort gäller i 24 månader från inköpsdagen och kan användas i al'"),
        (48, "fyrtiofem"): ("halsotjanster.md:14", "number word: '| Resevaccinationsrådgivning | 350 | 350 | 45 | Lund |'"),
    },
    "bageri": {
        (21, "2026-07-13"): ("butiker-och-oppettider.md:44", "month as a name vs digits: 'Sommarstängt: Resecentrum håller stängt vecka 29–30, alltså 13–26 juli'"),
        (21, "2026-07-26"): ("butiker-och-oppettider.md:44", "month as a name vs digits: 'Sommarstängt: Resecentrum håller stängt vecka 29–30, alltså 13–26 juli'"),
        (22, "15/12 2026"): ("tartor/bestall-tarta.md:25", "month as a name vs digits: '- Jul och nyår: beställningar till 23–31 december ska vara inne senast'"),
        (23, "2026-11-14"): ("sortiment-och-priser.md:31", "month as a name vs digits: 'Lussekatter bakar vi från den 14 november 2026, 28 kr styck eller 5 fö'"),
        (41, "10"): ("kurser.md:15", "12-hour vs 24-hour clock: 'Alla kurser hålls på lördagar. Vuxenkurserna börjar kl. 10.00 och barn'"),
        (44, "tre"): ("tartor/bestall-tarta.md:37", "number word: 'Förvara tårtan i kylskåp och ät den inom ett dygn. Chokladtårtan hålle'"),
        (45, "tre"): ("kurser.md:10", "number word + month as a name vs digits: '| Bullar och kanelknutar | 3 timmar | 895 kr | 28 februari, 21 mars |'"),
        (46, "fyra"): ("tartor/bestall-tarta.md:24", "number word: '- Bröllopstårtor: boka gärna fyra veckor i förväg, så hinner vi göra e'"),
        (47, "trettio"): ("butiker-och-oppettider.md:31", "number word: 'Lunchmackor serveras 11.00–14.00 alla dagar. Butiken ligger i stations'"),
        (48, "fyra"): ("kundservice.md:39", "number word: 'Ja, båda butikerna har skötbord, och Storgatan har 4 barnstolar.'"),
    },
    "bilpool": {
        (4, "tre"): ("index.md:3", "number word: 'Delabil Norrland är en bilpool för dig som vill ha tillgång till bil u'"),
        (21, "2026-09-01"): ("kampanj.md:5", "month as a name vs digits: 'Bli medlem mellan 1 september och 31 oktober 2026 med kampanjkoden HOS'"),
        (21, "2026-10-31"): ("kampanj.md:5", "month as a name vs digits: 'Bli medlem mellan 1 september och 31 oktober 2026 med kampanjkoden HOS'"),
        (22, "31/12 2026"): ("kampanj.md:9", "month as a name vs digits: '- 200 kr i körkredit som ska användas senast 31 december 2026'"),
        (23, "2026-03-16"): ("index.md:17", "number word + month as a name vs digits: 'Den 16 mars 2026 öppnar vi tre nya stationer i Sundsvall: Birsta, Haga'"),
        (23, "tre"): ("index.md:17", "number word + month as a name vs digits: 'Den 16 mars 2026 öppnar vi tre nya stationer i Sundsvall: Birsta, Haga'"),
        (44, "femton"): ("avgifter.md:9", "number word: 'Förseningsavgift: 125 kr per påbörjad 15-minutersperiod'"),
        (45, "tre"): ("priser/medlemskap.md:11", "number word: '| Plus | 299 kr | 3 månader | mer än 20 timmar per månad |'"),
        (46, "tjugofyra"): ("forsakring-och-krav.md:30", "number word: 'Ring vår jour på 0771-42 33 99, som är öppen dygnet runt. Fotografera '"),
        (47, "två"): ("avgifter.md:34", "number word: '- Gratis avbokning fram till 2 timmar före start.'"),
        (48, "twenty-three"): ("english/faq.md:11", "number word: 'You must be at least 19 years old to drive our cars, and at least 23 t'"),
    },
    "bio": {
        (17, "two"): ("index.md:28", "number word: 'Northern Lights Cinemas AB is owned by the Lindqvist family and employ'"),
        (21, "2026-04-10"): ("premieres.md:10", "month as a name vs digits: '| The Last Ferry | 10 April 2026 | 98 min | 15 | 2D |'"),
        (23, "2026-02-03 to 2026-03-31"): ("prices.md:33", "month as a name vs digits: 'From 3 February to 31 March 2026, every standard ticket for a Tuesday '"),
        (24, "11 am to 11"): ("cinemas/umea.md:28", "12-hour vs 24-hour clock: '- Saturday: 11.00–23.00'"),
        (25, "3 pm to 10.30"): ("cinemas/lulea.md:26", "12-hour vs 24-hour clock: '- Friday: 15:00–22:30'"),
        (26, "09:00–17:00"): ("index.md:22", "12-hour vs 24-hour clock: 'Customer service answers the phone Monday–Friday 9 am–5 pm and Saturda'"),
        (26, "10:00–14:00"): ("index.md:22", "12-hour vs 24-hour clock: 'Customer service answers the phone Monday–Friday 9 am–5 pm and Saturda'"),
        (27, "10:30"): ("premieres.md:29", "12-hour vs 24-hour clock: 'Baby cinema for parents with babies under one year is held on Wednesda'"),
        (40, "2"): ("svenska/kundservice.md:28", "12-hour vs 24-hour clock: 'Rullstolsplatser bokas via kundservice senast kl. 16 dagen före visnin'"),
        (41, "4"): ("svenska/kundservice.md:28", "12-hour vs 24-hour clock: 'Rullstolsplatser bokas via kundservice senast kl. 16 dagen före visnin'"),
        (44, "two"): ("help.md:5", "number word: 'Tickets bought online or in our app can be refunded up to 2 hours befo'"),
        (45, "twenty-four"): ("groups-and-gifts.md:33", "number word: 'Validity: 24 months from the date of purchase'"),
        (46, "fourteen"): ("membership.md:31", "number word: 'You must be at least 15 years old to become a member; younger children'"),
        (47, "eleven"): ("index.md:3", "number word + month as a name vs digits: 'Welcome to Northern Lights Cinemas, the independent cinema chain of no'"),
        (47, "five"): ("index.md:10", "number word: '- **Northern Lights Luleå**, Smedjegatan 17, 972 31 Luleå – 5 screens,'"),
        (47, "six"): ("index.md:9", "number word: '- **Northern Lights Umeå**, Storgatan 48, 903 26 Umeå – 6 screens, 886'"),
        (48, "fifteen"): ("premieres.md:12", "number word: 'Running times are for the film only. Every screening starts with about'"),
        (48, "ten"): ("premieres.md:12", "number word: 'Running times are for the film only. Every screening starts with about'"),
    },
    "bokhandel": {
        (19, "0184702310"): ("returns-and-special-orders.md:32", "phone number without separators: ['018-470 23 10']"),
        (20, "2026-03-12"): ("events.md:11", "month as a name vs digits: 'Date: Thursday 12 March 2026'"),
        (22, "19/6 2026"): ("opening-hours.md:36", "month as a name vs digits: '| Midsummer Eve, 19 June 2026 | closed | closed |'"),
        (23, "10 am to 7"): ("opening-hours.md:7", "12-hour vs 24-hour clock: '| Monday–Friday | 10.00–19.00 |'"),
        (25, "2"): ("online-orders.md:7", "12-hour vs 24-hour clock: 'Orders placed on weekdays before 14.00 are dispatched the same day, pr'"),
        (26, "09.00–16.00"): ("online-orders.md:35", "12-hour vs 24-hour clock: 'Web shop customer service: 0771-44 28 60, weekdays 9 am–4 pm'"),
        (27, "11"): ("events.md:47", "12-hour vs 24-hour clock: \"**Children's story time** – Saturdays at 11.00, 30 minutes, for ages 3\""),
        (42, "9 to 11"): ("svenska/kundtjanst.md:31", "number word + 12-hour vs 24-hour clock: 'Vi tar emot skolklasser för bokprat tisdagar och torsdagar kl. 9–11, h'"),
        (44, "thirty"): ("returns-and-special-orders.md:5", "number word + month as a name vs digits: '**Bought in the shop.** You may exchange or return a book within 30 da'"),
        (45, "2 months"): ("book-club.md:26", "number word: '- Pause: up to two months per 12-month subscription'"),
        (46, "12"): ("events.md:43", "number word: 'Twelve authors sign books throughout the day in the shop and the court'"),
        (47, "fjorton"): ("svenska/kundtjanst.md:23", "number word: 'I butiken har du 30 dagars öppet köp mot kvitto. Vid köp på nätet gäll'"),
        (48, "femhundra"): ("svenska/kundtjanst.md:27", "number word: 'Som Gläntanvän betalar du 150 kr om året (studenter 75 kr) och får 10 '"),
        (48, "tusen"): ("svenska/kundtjanst.md:27", "number word: 'Som Gläntanvän betalar du 150 kr om året (studenter 75 kr) och får 10 '"),
    },
    "camping": {
        (10, "trehundra"): ("priser.md:33", "number word: '- Kanothyra: 300 kr per dag'"),
        (41, "tolv"): ("index.md:11", "number word: 'Fjällby Camping ligger vid sjön Storvattnet, 12 km från Fjällby centru'"),
        (49, "tjugo"): ("dokument-villkor.md:10", "number word: 'Vid bokning betalas en handpenning på 20 % av priset.'"),
        (52, "femtio"): ("kulturochfritid-aktiviteter.md:13", "number word: 'Bastun vid sjön är öppen 17.00–21.00 och kostar 50 kr per person.'"),
    },
    "catering": {
        (12, "two"): ("catering/delivery-and-staff.md:37", "number word: '- Place setting (plates, cutlery and two glasses): 32.50 kr per guest'"),
        (16, "four"): ("catering/packages.md:43", "number word: '- Four-tier cake for up to 100 guests: 6 950 kr'"),
        (21, "2026-11-13"): ("catering/ordering-terms.md:10", "month as a name vs digits: '- Christmas parties in December 2026: orders must reach us by 13 Novem'"),
        (22, "2026-07-06 to 2026-08-02"): ("restaurant/opening-hours.md:35", "month as a name vs digits: 'The catering kitchen closes for the summer from 6 July to 2 August 202'"),
        (23, "9"): ("restaurant/opening-hours.md:7", "12-hour vs 24-hour clock: '| Monday–Thursday | 11.00–22.00 | 21.00 |'"),
        (25, "10 am and 2"): ("catering/delivery-and-staff.md:19", "12-hour vs 24-hour clock: 'Self-pickup at Varvsgatan 17 is free of charge: Monday–Friday 09.00–17'"),
        (26, "11 am to 2:30"): ("restaurant/opening-hours.md:12", "12-hour vs 24-hour clock: 'Lunch is served Monday to Friday from 11.00 to 14.30.'"),
        (44, "two"): ("restaurant/opening-hours.md:21", "number word: 'Dinner tables are reserved for 2.5 hours; on Fridays and Saturdays for'"),
        (45, "hundred"): ("catering/ordering-terms.md:9", "number word: '- Events with more than 100 guests: order at least 21 days before.'"),
        (45, "twenty-one"): ("catering/ordering-terms.md:9", "number word: '- Events with more than 100 guests: order at least 21 days before.'"),
        (46, "fourteen"): ("faq.md:5", "number word: 'All our dishes are labelled with the 14 allergens that EU rules requir'"),
        (47, "four"): ("catering/delivery-and-staff.md:30", "number word: 'Minimum booking: 4 hours per staff member.'"),
        (48, "tjugo"): ("svenska/kundservice.md:35", "number word: 'Hämtar du själv på Varvsgatan 17 får du parkera gratis i 20 minuter på'"),
    },
    "coworking": {
        (21, "2026-03-12"): ("events.md:15", "month as a name vs digits: '| 12 March 2026 | Pitch Night | Gothenburg | 18.00–21.00 | 150 kr |'"),
        (22, "5 pm to 8"): ("events.md:17", "12-hour vs 24-hour clock + month as a name vs digits: '| 11 June 2026 | Summer Mingle | Malmö | 17.00–20.00 | free |'"),
        (23, "31/3 2026"): ("events.md:25", "month as a name vs digits: '**Spring Start** – sign up for a hot desk or fixed desk between 1 Febr'"),
        (24, "8 am to 4"): ("hours-and-contact.md:8", "12-hour vs 24-hour clock: '- Friday: 08.00–16.00'"),
        (25, "08:30–17:00"): ("hours-and-contact.md:13", "12-hour vs 24-hour clock: '- Mon–Thu: 8:30 am–5 pm'"),
        (26, "6 am to 10"): ("hours-and-contact.md:20", "12-hour vs 24-hour clock: '- Hot desk members: 06.00–22.00 every day of the week.'"),
        (27, "2:30"): ("events.md:8", "12-hour vs 24-hour clock: '- Friday Fika: every Friday at 15.00 in Gothenburg and at 14.30 in Mal'"),
        (45, "2"): ("memberships.md:33", "number word: \"- Private office: a deposit equal to two months' rent, paid before mov\""),
        (46, "two"): ("faq.md:19", "number word: 'Hot desk memberships can be paused for up to 2 months per calendar yea'"),
        (47, "four"): ("index.md:16", "number word: \"- Getting here: 4 minutes' walk from the Lindholmsplatsen tram and bus\""),
        (48, "3"): ("svenska/vanliga-fragor.md:12", "number word: 'En månad för flexplats och fast plats, tre månader för privata kontor.'"),
    },
    "djurpark": {
        (20, "2026-06-20 to 2026-08-16"): ("tickets-and-passes.md:7", "month as a name vs digits: 'High season is 20 June – 16 August 2026. All other open days are low s'"),
        (22, "2026-10-26 to 2026-11-01"): ("opening-hours.md:23", "month as a name vs digits: 'During the autumn half-term, 26 October – 1 November 2026, the park is'"),
        (23, "10 am to 6"): ("opening-hours.md:9", "12-hour vs 24-hour clock: '| Monday–Friday | 10.00–18.00 | 10.00–17.30 | 11.30–16.00 |'"),
        (25, "11:00–15:00"): ("opening-hours.md:27", "12-hour vs 24-hour clock: '- Wednesday–Friday: 11 am – 3 pm'"),
        (26, "2.45"): ("daily-programme.md:17", "12-hour vs 24-hour clock: 'The lynx are fed on Tuesdays, Thursdays and Saturdays at 14.45 at the '"),
        (44, "three"): ("encounters.md:11", "number word: '| Junior Keeper (half day) | 3 hours | 1 450 kr | 8–14 years | 8 |'"),
        (45, "three"): ("groups-and-schools.md:21", "number word + month as a name vs digits: 'Our educators run programmes linked to the Swedish curriculum. Program'"),
        (46, "twelve"): ("tickets-and-passes.md:22", "number word: 'An annual pass is valid for 12 months from the day of your first visit'"),
        (47, "twenty"): ("daily-programme.md:3", "number word: 'Our keepers share what they know at the daily feedings and talks. Each'"),
        (48, "fyra"): ("svenska/besok.md:25", "number word: 'Parkering kostar 60 kr per dag för bil. Hundar får inte följa med in i'"),
    },
    "farja": {
        (20, "2026-06-15 till 2026-08-16"): ("tidtabell.md:5", "month as a name vs digits: '- **Högsäsong:** 15 juni–16 augusti 2026'"),
        (21, "28/9 2026"): ("tidtabell.md:7", "month as a name vs digits: '- **Lågsäsong:** 28 september 2026–30 april 2027'"),
        (22, "19/6"): ("tidtabell.md:9", "month as a name vs digits: 'Båtbuss B4 går endast under högsäsong. På midsommarafton den 19 juni k'"),
        (43, "8–19"): ("english/visitor-faq.md:43", "12-hour vs 24-hour clock: 'Yes, free Wi-Fi is available on lines 32 and 35. The car ferry has a c'"),
        (45, "trettiofem"): ("biljetter-och-priser.md:9", "number word: '| 31 Hamnudden – Granö | 65 kr | 35 kr | 45 kr | 40 kr |'"),
        (46, "fyrtiofem"): ("om-oss.md:8", "number word: '- **Linje 32 Hamnudden – Storskär** trafikeras med snabbåt. Restiden ä'"),
        (47, "tjugofem"): ("biljetter-och-priser.md:44", "number word: '- Studenter med giltigt studentkort får 25 procent rabatt på enkelbilj'"),
        (48, "twenty"): ("english/visitor-faq.md:25", "number word + month as a name vs digits: 'Luggage up to 20 kg per person is free. No single item may weigh more '"),
        (49, "sextio"): ("resevillkor.md:39", "number word: '- Kajak eller kanot kostar 60 kr och får vara högst 5,5 meter lång. Ka'"),
        (50, "tvåhundrafemtio"): ("biljetter-och-priser.md:21", "number word: '- Personbil, lågsäsong och mellansäsong: 250 kr'"),
        (51, "hundraåttiofem"): ("gruppresor.md:27", "number word: '- Catering kan beställas från 185 kr per person.'"),
    },
    "farjelinje": {
        (18, "0176224000"): ("kundservice.md:7", "phone number without separators: ['0176-22 40 00']"),
        (21, "2026-06-15 till 2026-08-16"): ("tidtabell.md:6", "month as a name vs digits: '- Högsäsong: 15 juni–16 augusti 2026'"),
        (22, "19/6 2026"): ("tidtabell.md:43", "month as a name vs digits: '- Midsommarafton 19 juni 2026: extra nattur från Vindö kl. 01.30.'"),
        (23, "2024-09-01"): ("faq.md:4", "month as a name vs digits: 'Nej. Sedan 1 september 2024 tar vi bara emot kort och Swish ombord.'"),
        (41, "5:45 am to 10:45"): ("kundservice.md:16", "12-hour vs 24-hour clock: 'Måndag–fredag: 05.45–22.45'"),
        (45, "trettiofem"): ("tidtabell.md:14", "number word: '| Strandhamn–Vindö | M/S Vindö | 35 min |'"),
        (46, "tjugofyra"): ("priser.md:55", "number word: '**Presentkort:** Valfritt belopp från 100 kr. Presentkortet gäller i 2'"),
        (47, "arton"): ("om-oss.md:10", "number word: '- **M/S Lillskär** – byggd 1991 och renoverad 2019. Tar 120 passagerar'"),
        (48, "två"): ("kundservice.md:24", "number word: 'Chatten på vindofarjor.se är bemannad vardagar 08.00–20.00 och helger '"),
        (49, "fem"): ("bokning-och-avbokning.md:18", "number word: '- Gående: var på plats senast 5 minuter före avgång.'"),
    },
    "flytt": {
        (21, "2026-06-19"): ("contact.md:37", "month as a name vs digits: 'Both offices and customer service are closed on Midsummer Eve, 19 June'"),
        (23, "30/6 2026"): ("storage.md:34", "month as a name vs digits: 'Customers who book a move with Brisk get the first month of storage at'"),
        (25, "09:00 and 15:00"): ("contact.md:7", "12-hour vs 24-hour clock: 'Phone hours: Monday–Friday 7 am–7 pm, Saturday 9 am–3 pm, Sunday close'"),
        (26, "8 am to 3"): ("contact.md:32", "12-hour vs 24-hour clock: '- Friday: 08.00–15.00'"),
        (44, "five"): ("index.md:17", "number word: 'Every mover completes our 5-day training course before the first job, '"),
        (45, "twenty-three"): ("index.md:25", "number word: 'Trucks: 23'"),
        (46, "six"): ("terms.md:7", "number word + month as a name vs digits: 'We recommend booking at least 3 weeks ahead, and 6 weeks ahead for mov'"),
        (47, "three"): ("packing-materials.md:32", "number word: 'We buy back undamaged standard moving boxes for 20 kr each within 3 mo'"),
        (48, "sju"): ("prices/fixed-price-packages.md:9", "number word: '| 3 rooms | 61–85 m² | 3 movers | 13 490 kr | 8 790 kr | 7 hours |'"),
        (48, "tre"): ("prices/fixed-price-packages.md:9", "number word: '| 3 rooms | 61–85 m² | 3 movers | 13 490 kr | 8 790 kr | 7 hours |'"),
    },
    "frisor": {
        (20, "0704128830"): ("bokning-och-avbokning.md:30", "phone number without separators: ['070-412 88 30']"),
        (21, "2026-09-01 till 2026-10-11"): ("produkter.md:25", "month as a name vs digits: 'Mellan 1 september och 11 oktober 2026 får du 20 % rabatt på färgning '"),
        (22, "19/6 2026"): ("salonger.md:39", "month as a name vs digits: '- Midsommarafton, 19 juni 2026, har båda salongerna stängt.'"),
        (44, "fyrtiofem"): ("priser/klippning.md:7", "number word: '| Klippning, kort hår | 495 kr | 595 kr | 695 kr | 45 |'"),
        (45, "tjugofyra"): ("bokning-och-avbokning.md:15", "number word: '| Klippning och barbering | 24 timmar före | 50 % av priset | 100 % av'"),
        (46, "tionde"): ("rabatter-och-stamkund.md:19", "number word: '- Vid det 10:e besöket bjuder vi på klippningen, upp till ett värde av'"),
        (47, "twelve"): ("english/welcome.md:22", "number word: '- Gift cards are valid for 12 months from the date of purchase and can'"),
        (48, "fyra"): ("priser/klippning.md:28", "number word: 'Luggklippning mellan två klippningar är kostnadsfri inom 4 veckor efte'"),
    },
    "fysioterapi": {
        (19, "0703184426"): ("kontakt-och-oppettider.md:9", "phone number without separators: ['070-318 44 26']"),
        (21, "2026-08-14"): ("traning/grupptraning.md:9", "month as a name vs digits: '- Anmälan till höstterminen öppnar 1 juni 2026. Sista anmälningsdag är'"),
        (22, "19/6 2026"): ("kontakt-och-oppettider.md:33", "month as a name vs digits: 'Trettondagsafton den 5 januari 2026 stänger båda mottagningarna kl. 13'"),
        (23, "24/8 2026 till 11/12 2026"): ("traning/grupptraning.md:8", "month as a name vs digits: '- Höstterminen: 24 augusti–11 december 2026 (uppehåll vecka 44)'"),
        (40, "5:30 to 6:30"): ("traning/grupptraning.md:15", "12-hour vs 24-hour clock: '| Ryggskola | Centrum | Måndag 17.30–18.30 | 12 | 1 680 kr | 10 |'"),
        (44, "tolv"): ("traning/grupptraning.md:15", "number word: '| Ryggskola | Centrum | Måndag 17.30–18.30 | 12 | 1 680 kr | 10 |'"),
        (45, "fyrtioåtta"): ("villkor/avbokning-och-betalning.md:8", "number word: '- Massage och akupunktur ska avbokas senast 48 timmar före.'"),
        (46, "tre"): ("priser/behandlingar-och-paket.md:11", "number word: '| Start | 3 | 2 250 kr | 750 kr | 3 månader |'"),
        (47, "tio"): ("priser/behandlingar-och-paket.md:13", "number word: '| Plus | 10 | 5 950 kr | 595 kr | 12 månader |'"),
        (48, "twenty-four"): ("english/in-english.md:27", "number word: 'Please cancel physiotherapy appointments at least 24 hours in advance,'"),
    },
    "golfklubb": {
        (21, "11/4 2026"): ("banan.md:5", "month as a name vs digits: 'Banan öppnar: lördag 11 april 2026'"),
        (22, "2026-05-31"): ("tavlingar.md:20", "month as a name vs digits: 'Sista anmälningsdag: 31 maj 2026'"),
        (23, "2026-11-01"): ("banan.md:6", "month as a name vs digits: 'Banan stänger: söndag 1 november 2026'"),
        (44, "tre"): ("index.md:24", "number word + month as a name vs digits: 'Telefontid kansliet: måndag–fredag kl. 10–12. Under juli har kansliet '"),
        (45, "trettio"): ("traning.md:10", "number word: '| Privatlektion kort | 30 minuter | 450 kr | 1 |'"),
        (46, "fyra"): ("banan.md:30", "number word: '- Högst 4 spelare per boll.'"),
        (47, "femton"): ("tidsbokning.md:23", "number word: 'Incheckning i shoppen eller i appen senast 15 minuter före starttid. H'"),
        (48, "tolv"): ("greenfee.md:40", "number word: 'Golfbil ska bokas senast 24 timmar i förväg via shoppen. Föraren måste'"),
        (48, "två"): ("greenfee.md:40", "number word: 'Golfbil ska bokas senast 24 timmar i förväg via shoppen. Föraren måste'"),
    },
    "gym": {
        (6, "two"): ("gyms.md:20", "number word: 'Our largest gym, with 1,800 m² over two floors, two group training stu'"),
        (19, "2026-01-07"): ("memberships.md:39", "month as a name vs digits: 'Join between January 7 and January 31, 2026 and pay no joining fee on '"),
        (22, "5 am to 11"): ("gyms.md:12", "12-hour vs 24-hour clock: '| Kungsholmen, Stockholm | 07:00–19:00 | 05:00–23:00 | 08:00–20:00 |'"),
        (23, "18:30"): ("classes.md:10", "12-hour vs 24-hour clock: '| Yoga Flow | Monday | 6.30 pm | 60 min | 20 |'"),
        (24, "10:00–14:00"): ("contact.md:6", "12-hour vs 24-hour clock: '- Opening hours: Monday–Friday 9 am–5 pm, Saturday 10 am–2 pm. Closed '"),
        (25, "5.30 am to 10.30"): ("gyms.md:13", "12-hour vs 24-hour clock: '| Linné, Göteborg | 08:00–20:00 | 05:30–22:30 | 07:00–21:00 |'"),
        (26, "8 am–8"): ("contact.md:26", "12-hour vs 24-hour clock + month as a name vs digits: '| January 6, 2026 (Epiphany) | 08:00–20:00 |'"),
        (37, "two"): ("personal-training.md:12", "number word: '| Duo session (2 people) | 1 | SEK 1,090 | SEK 545 per person | 3 mont'"),
        (45, "twenty"): ("memberships.md:31", "number word: '- **Students** get 20% off the monthly price. You must be between 18 a'"),
        (46, "forty-five"): ("classes.md:9", "number word + 12-hour vs 24-hour clock: '| Spin | Monday | 6.30 am | 45 min | 24 |'"),
        (47, "sexton"): ("svenska/vanliga-fragor.md:19", "number word: 'Du kan bli medlem från 16 år. Är du under 18 år behöver en vårdnadshav'"),
        (48, "two"): ("memberships.md:16", "number word: '- **Premium** includes everything in Flex, plus sauna access, 2 guest '"),
        (49, "thirty"): ("memberships.md:51", "number word: \"- A membership without commitment can be cancelled with 30 days' notic\""),
    },
    "hotell": {
        (20, "2026-06-15 to 2026-08-15"): ("rooms/rooms-and-rates.md:9", "month as a name vs digits: '- High season: 15 June – 15 August 2026'"),
        (23, "6 pm"): ("practical-info.md:11", "12-hour vs 24-hour clock: '- Late check-out until 18:00: SEK 650'"),
        (25, "4 pm until 1"): ("dining.md:25", "12-hour vs 24-hour clock: '| Friday–Saturday | 17.00–22.30 | 16.00–01.00 |'"),
        (26, "8 am to 8"): ("spa.md:8", "12-hour vs 24-hour clock: '- Saturday: 08.00–20.00'"),
        (44, "seven"): ("index.md:5", "number word: 'The ferry terminal is a 7-minute walk from the hotel, and Visby Airpor'"),
        (45, "three"): ("practical-info.md:45", "number word: '- Lost property is kept for 3 months.'"),
        (46, "twenty-four"): ("practical-info.md:34", "number word: '- From Visby Airport: the hotel shuttle runs on request, SEK 180 per p'"),
        (47, "fyra"): ("svenska/om-hotellet.md:3", "number word: 'Harbourside Hotel Visby ligger vid hamnen i Visby, strax utanför ringm'"),
        (47, "åttiosex"): ("svenska/om-hotellet.md:3", "number word: 'Harbourside Hotel Visby ligger vid hamnen i Visby, strax utanför ringm'"),
        (48, "three"): ("rooms/rooms-and-rates.md:38", "number word + month as a name vs digits: 'During Medieval Week (9–16 August 2026) and Almedalen Week (21–26 June'"),
    },
    "hunddagis": {
        (19, "0706148293"): ("oppettider.md:28", "phone number without separators: ['070-614 82 93']"),
        (21, "10/3 2026"): ("kurser.md:13", "month as a name vs digits: '- Grupp A: tisdagar kl. 18.00–19.00, start 10 mars 2026'"),
        (22, "2026-02-01"): ("hundpensionat.md:26", "month as a name vs digits: 'Under högsäsong är minsta vistelse 3 nätter. Bokningen för sommaren öp'"),
        (23, "2026-06-15 till 2026-08-16"): ("hundpensionat.md:23", "month as a name vs digits: '- Sommaren: 15 juni–16 augusti 2026'"),
        (28, "två"): ("hunddagis.md:18", "number word: 'Syskonrabatt: 15 % på hund nummer två från samma hushåll (dras på den '"),
        (41, "6:30 to 7:30"): ("kurser.md:14", "12-hour vs 24-hour clock + month as a name vs digits: '- Grupp B: onsdagar kl. 18.30–19.30, start 6 maj 2026'"),
        (44, "sex"): ("kurser.md:7", "number word: 'För valpar från 10 veckor till 6 månaders ålder. Vi går igenom kontakt'"),
        (45, "tre"): ("villkor.md:28", "number word: '- Tikar i löp får inte gå på dagiset under löpet; räkna med cirka 3 ve'"),
        (46, "tre"): ("hundpensionat.md:26", "number word + month as a name vs digits: 'Under högsäsong är minsta vistelse 3 nätter. Bokningen för sommaren öp'"),
        (47, "tredje"): ("villkor.md:17", "number word: '- Därefter ska vaccinationen förnyas vart 3:e år.'"),
        (48, "fourteen"): ("english/information-in-english.md:29", "number word: '- Dogs must be vaccinated against distemper, hepatitis and parvovirus '"),
    },
    "hyrbil": {
        (17, "0771 454 500"): ("offices.md:15", "phone number without separators: ['46 771 45 45 00']"),
        (20, "2026-04-03"): ("offices.md:25", "month as a name vs digits: '- Good Friday (April 3, 2026) and Easter Monday (April 6, 2026): all o'"),
        (22, "7 am to 8"): ("offices.md:8", "12-hour vs 24-hour clock: '| Stockholm | Hälsingegatan 43, 113 31 Stockholm | +46 8 550 12 34 | 0'"),
        (23, "10:00–14:00"): ("offices.md:17", "12-hour vs 24-hour clock: '- Hours: Monday–Friday 8 am–6 pm, Saturday 10 am–2 pm, closed on Sunda'"),
        (24, "9 am to 3"): ("offices.md:9", "12-hour vs 24-hour clock: '| Malmö | Carlsgatan 14, 211 20 Malmö | +46 40 700 43 21 | 07:30–18:30'"),
        (41, "twenty-five"): ("vans-and-moving.md:24", "number word: '- Minimum age: 21 years for the small van and 25 years for the large v'"),
        (42, "twenty-five"): ("prices.md:3", "number word: 'All prices are in SEK and include 25% VAT. The daily price applies per'"),
        (43, "tre hundra"): ("svenska/kundtjanst.md:21", "number word: 'För personbilar ingår 300 km per dygn och för skåpbilar 150 km per dyg'"),
        (44, "fyrtioåtta"): ("svenska/kundtjanst.md:24", "number word: 'Ja, avbokning är kostnadsfri fram till 48 timmar före hämtning. Vid se'"),
        (45, "nine"): ("prices.md:14", "number word: '| Minibus (M) | Volkswagen Caravelle or similar | 9 | SEK 1,490 | SEK '"),
        (46, "tjugofyra"): ("svenska/kundtjanst.md:8", "number word: '- E-post: kundservice@nordvikrental.se. Vi svarar inom 24 timmar på va'"),
    },
    "kurir": {
        (21, "18/12 2026"): ("customer-service.md:39", "month as a name vs digits: '- Domestic Standard: Friday 18 December 2026'"),
        (23, "2026-04-30"): ("index.md:25", "month as a name vs digits: 'Book a parcel to Denmark, Finland or Norway online between 1 March and'"),
        (24, "11 am to 3"): ("locations-and-opening-hours.md:10", "12-hour vs 24-hour clock: '| Stockholm Västberga | Elektravägen 22 | 07.00–20.00 | 09.00–16.00 | '"),
        (25, "2"): ("express-and-same-day.md:9", "12-hour vs 24-hour clock: 'Delivered before 09:00 the next working day to business addresses in 2'"),
        (26, "10:00–18:00"): ("locations-and-opening-hours.md:23", "12-hour vs 24-hour clock: '- Saturday: 10 am–6 pm'"),
        (27, "10 am and 2"): ("customer-service.md:15", "12-hour vs 24-hour clock: '| Private customers | 08.00–18.00 | 10.00–14.00 | Closed |'"),
        (44, "thirty"): ("returns-and-claims.md:8", "number word: '- A printed return label is valid for 30 days.'"),
        (45, "two"): ("express-and-same-day.md:13", "number word: 'Delivered to Denmark, Finland and Norway in 2 working days. Book by 15'"),
        (46, "five"): ("returns-and-claims.md:26", "number word: '- Payment: approved compensation is paid within 5 working days.'"),
        (47, "six"): ("index.md:11", "number word: '- Service centres: 6'"),
        (48, "three"): ("index.md:12", "number word: '- Sorting terminals: 3 (Sundsvall, Jönköping and Borlänge)'"),
    },
    "laddning": {
        (18, "0771452099"): ("kundservice.md:9", "phone number without separators: ['0771-45 20 99']"),
        (21, "2026-03-15"): ("laddstationer.md:15", "month as a name vs digits: 'Lycksele E12 öppnar den 15 mars 2026.'"),
        (22, "28/1 2026"): ("fakturering.md:31", "month as a name vs digits: 'Decemberfakturan 2025 skickas ut den 8 januari 2026 och förfaller den '"),
        (23, "2025-10-01"): ("priser.md:30", "month as a name vs digits: 'Vi meddelar prisändringar minst 30 dagar i förväg via appen och e-post'"),
        (42, "10 pm and 6"): ("kampanjer.md:9", "12-hour vs 24-hour clock: 'Plus-kunder får 20 % rabatt på laddning i DC Snabb mellan kl. 22.00 oc'"),
        (44, "trettio"): ("abonnemang.md:25", "number word: 'Nya kunder kan prova Plus gratis i 30 dagar. Säger du inte upp provper'"),
        (45, "tolv"): ("abonnemang.md:8", "number word: '| Plus | 199 kr | 1 990 kr | 12 månader | 2 |'"),
        (46, "fyra"): ("priser.md:22", "number word: '- AC-laddare: 0,50 kr per minut, efter 4 timmar från laddstart'"),
        (47, "fifteen"): ("english/faq.md:13", "number word: 'Please move your car when charging is finished. On DC chargers an idle'"),
        (48, "tre"): ("kampanjer.md:21", "number word + month as a name vs digits: 'Nya Bas-kunder som tecknar abonnemang mellan 1 juni och 31 augusti 202'"),
    },
    "marina": {
        (22, "2026-08-31"): ("boatyard/winter-storage-and-crane.md:16", "month as a name vs digits: 'Crane lifts are not included, except in the heated hall, where lift-ou'"),
        (24, "8 am to 8"): ("index.md:23", "12-hour vs 24-hour clock: '- Monday–Friday: 08.00–20.00'"),
        (25, "09:00–19:00"): ("services/fuel-dock-and-chandlery.md:20", "12-hour vs 24-hour clock: '- Saturday–Sunday: 9 am – 7 pm'"),
        (26, "1"): ("guest-harbour/nightly-fees.md:29", "12-hour vs 24-hour clock: '- Arrival from: 13:00'"),
        (27, "6 am to 11"): ("services/electricity-showers-and-facilities.md:14", "12-hour vs 24-hour clock + month as a name vs digits: 'The service building next to the harbour office has 6 showers, 8 toile'"),
        (42, "8–19"): ("services/fuel-dock-and-chandlery.md:19", "12-hour vs 24-hour clock: '- Monday–Friday: 8 am – 7 pm'"),
        (44, "fourteen"): ("guest-harbour/nightly-fees.md:33", "number word: '- Maximum stay in high season: 14 nights'"),
        (45, "fyra"): ("svenska/gasthamn.md:19", "number word: 'Ankomst tidigast kl. 13, avresa senast kl. 11. El kostar 60 kr per nat'"),
        (45, "tio"): ("svenska/gasthamn.md:19", "number word: 'Ankomst tidigast kl. 13, avresa senast kl. 11. El kostar 60 kr per nat'"),
        (46, "seven"): ("guest-harbour/nightly-fees.md:37", "number word: 'Stay 7 nights and pay for 6: the seventh night is free in low and mid '"),
        (46, "six"): ("guest-harbour/nightly-fees.md:37", "number word: 'Stay 7 nights and pay for 6: the seventh night is free in low and mid '"),
        (47, "ten"): ("seasonal-berths.md:26", "number word + month as a name vs digits: 'The queue fee is SEK 250 per year. About 140 people are in the queue, '"),
        (48, "eight"): ("services/electricity-showers-and-facilities.md:14", "number word + month as a name vs digits: 'The service building next to the harbour office has 6 showers, 8 toile'"),
        (48, "six"): ("services/electricity-showers-and-facilities.md:14", "number word + month as a name vs digits: 'The service building next to the harbour office has 6 showers, 8 toile'"),
    },
    "museum": {
        (20, "2026-09-27"): ("exhibitions.md:22", "month as a name vs digits: '| Salt and Iron: The Shipyard in Photographs 1880–1950 | 28 March 2026'"),
        (22, "24/10 2026"): ("exhibitions.md:24", "month as a name vs digits: '| Wrecks of the Hanö Bight | 24 October 2026 | 5 April 2027 | 2 |'"),
        (23, "2026-03-02"): ("ship/ellinor.md:36", "month as a name vs digits: 'Booking opens on 2 March 2026 on our booking line, 0455-36 20 15.'"),
        (24, "12:30"): ("guided-tours.md:10", "12-hour vs 24-hour clock: '| Museum highlights | English | Daily | 12.30 | 45 min | 25 |'"),
        (25, "10 am to 6"): ("visit/opening-hours.md:7", "12-hour vs 24-hour clock: '- Monday–Sunday: 10.00–18.00'"),
        (26, "11:30 am–3:30"): ("visit/opening-hours.md:41", "12-hour vs 24-hour clock: 'Rest of the year: Tuesday–Sunday 11.30–15.30'"),
        (44, "thirty"): ("guided-tours.md:13", "number word: '| On board Ellinor | English | Saturday and Sunday | 15.00 | 30 min | '"),
        (45, "six"): ("ship/ellinor.md:3", "number word: '*Ellinor* is a three-masted topsail schooner, built in 1896 at a yard '"),
        (46, "twelve"): ("visit/tickets.md:18", "number word: 'Annual pass: unlimited visits for 12 months from the date of purchase,'"),
        (47, "two"): ("faq.md:13", "number word: 'Yes. The whole museum is step-free, and there are accessible toilets o'"),
        (48, "four"): ("groups-and-schools.md:17", "number word: 'Private tours are given in Swedish, English and German. Polish and Fre'"),
    },
    "optiker": {
        (20, "2026-03-09 till 2026-04-12"): ("erbjudanden.md:15", "month as a name vs digits: 'Kampanjperiod: 9 mars – 12 april 2026'"),
        (21, "2026-06-19"): ("butiker.md:38", "month as a name vs digits: 'Alla butiker har stängt på julafton, juldagen och nyårsdagen. På nyårs'"),
        (22, "4/12 2026"): ("erbjudanden.md:29", "month as a name vs digits: 'Beställ progressiva glasögon senast den 4 december 2026 och enkelslipa'"),
        (41, "10 am to 2"): ("butiker.md:34", "12-hour vs 24-hour clock: 'Vi har öppet måndag–torsdag 9.30–17.30 och fredag 9.30–16.00. På lörda'"),
        (44, "sextio"): ("garanti-och-kop.md:6", "number word: 'Tillvänjningsgaranti progressiva glas: 60 dagar'"),
        (45, "fyrtiofem"): ("synundersokning.md:13", "number word: '| Kontaktlinsundersökning | 695 kr | 45 min |'"),
        (46, "tre"): ("glasogon.md:27", "number word: 'Leveranstid glas med index 1,74 eller prisma: cirka 3 veckor'"),
        (47, "två"): ("synundersokning.md:22", "number word: 'Vi skickar intyget elektroniskt till Transportstyrelsen samma dag. Ett'"),
        (48, "thirty"): ("english/faq.md:23", "number word: 'Frames can be returned within 30 days if they are undamaged. Varifocal'"),
    },
    "padel": {
        (11, "tre"): ("bokning-och-avbokning.md:18", "number word: 'Uteblir du från en bokning tre gånger inom 90 dagar stängs du av från '"),
        (21, "2026-10-17"): ("kalas-och-event.md:26", "month as a name vs digits: 'Vår årliga padelturnering för amatörer spelas lördag–söndag 17–18 okto'"),
        (21, "2026-10-18"): ("kalas-och-event.md:26", "month as a name vs digits: 'Vår årliga padelturnering för amatörer spelas lördag–söndag 17–18 okto'"),
        (22, "2026-08-10"): ("kurser-och-junior.md:28", "month as a name vs digits: 'Sista anmälningsdag: 10 augusti 2026.'"),
        (23, "9/10 2026"): ("kalas-och-event.md:32", "month as a name vs digits: '- Lottningen publiceras: 9 oktober 2026'"),
        (40, "5 pm"): ("bowling.md:9", "12-hour vs 24-hour clock: '| Före kl. 17 | 345 kr | 445 kr |'"),
        (42, "11"): ("restaurang.md:8", "12-hour vs 24-hour clock: '- Fredag: 11.00–23.00 (köket stänger 21.30)'"),
        (42, "9.30"): ("restaurang.md:8", "12-hour vs 24-hour clock: '- Fredag: 11.00–23.00 (köket stänger 21.30)'"),
        (44, "fyra"): ("kurser-och-junior.md:9", "number word: '| Nybörjarkurs | 4 | 60 min | 1 490 kr | 4 |'"),
        (44, "sextio"): ("kurser-och-junior.md:9", "number word: '| Nybörjarkurs | 4 | 60 min | 1 490 kr | 4 |'"),
        (45, "sju"): ("padel/medlemskap.md:3", "number word: 'Som medlem bokar du banor längre i förväg och får rabatt på varje bokn'"),
        (46, "tolv"): ("bowling.md:3", "number word: 'Vi har 12 bowlingbanor med automatisk poängräkning och rännstopp (bump'"),
        (47, "trettiotvå"): ("kalas-och-event.md:30", "number word: '- Antal par: högst 32 par per klass'"),
        (48, "fyrtio"): ("kalas-och-event.md:35", "number word: 'Alla matcher spelas i bäst av tre set, och i gruppspelet spelas matche'"),
    },
    "parkering": {
        (5, "five"): ("car-parks.md:3", "number word: 'CityPark Nordic AB has run car parks in Skåne since 2009. Today we ope'"),
        (18, "0771 443 210"): ("contact.md:7", "phone number without separators: ['0771-44 32 10']"),
        (20, "2026-04-30"): ("campaigns/commuter-2026.md:7", "month as a name vs digits: 'Sign-up period: 2 March – 30 April 2026'"),
        (22, "2026-06-01"): ("campaigns/commuter-2026.md:8", "month as a name vs digits: 'Latest permit start: 1 June 2026'"),
        (23, "10:00 and 14:00"): ("contact.md:15", "12-hour vs 24-hour clock: '- Customer service: weekdays 7.30 am–6 pm, Saturday 10 am–2 pm'"),
        (24, "6"): ("car-parks.md:10", "12-hour vs 24-hour clock: '| CityPark Davidshall | Malmö | Fersens väg 7 | 185 | 12 | 1.95 m | 06'"),
        (25, "8 am to 6"): ("contact.md:24", "12-hour vs 24-hour clock: '- Thursday: 08.00–18.00'"),
        (26, "09:00–16:00"): ("contact.md:31", "12-hour vs 24-hour clock: '- Monday–Friday: 9 am–4 pm, closed for lunch 12–1 pm'"),
        (26, "12:00–13:00"): ("contact.md:31", "12-hour vs 24-hour clock: '- Monday–Friday: 9 am–4 pm, closed for lunch 12–1 pm'"),
        (36, "four"): ("car-parks.md:25", "number word + month as a name vs digits: 'Hyllie Syd has 610 spaces on four levels next to the arena and Hyllie '"),
        (44, "45"): ("ev-charging.md:25", "number word: 'A session on a DC fast charger is limited to forty-five minutes. After'"),
        (45, "3"): ("permits.md:29", "number word: '- Notice period, reserved and EV charging bays: three calendar months'"),
        (46, "six"): ("car-parks.md:33", "number word: 'Brunnshög is our newest car park, opened in 2023 next to the tram stop'"),
        (47, "two"): ("rates.md:35", "number word + month as a name vs digits: 'Christmas shopping at Davidshall: the first 2 hours are free on Saturd'"),
        (48, "five hundred"): ("fines-and-complaints.md:9", "number word: '| No valid payment or permit | 500 kr |'"),
    },
    "rormokare": {
        (21, "2026-09-01 till 2026-10-31"): ("kampanj.md:6", "month as a name vs digits: 'Kampanjperiod: 1 september–31 oktober 2026'"),
        (22, "13/7–2/8 2026"): ("kontakt.md:35", "month as a name vs digits: 'Sommarstängt: Enköpingskontoret håller stängt vecka 29–31, alltså 13 j'"),
        (23, "30/11 2026"): ("kampanj.md:7", "month as a name vs digits: 'Sista dag för utförande: 30 november 2026'"),
        (42, "2"): ("english/in-english.md:3", "number word: 'Rörkraft i Mälardalen is a plumbing and heating company with offices i'"),
        (42, "4"): ("english/in-english.md:3", "number word: 'Rörkraft i Mälardalen is a plumbing and heating company with offices i'"),
        (44, "tjugofyra"): ("priser/fastpriser.md:18", "number word: 'Bytet av golvbrunn tar två arbetsdagar eftersom tätskiktet måste torka'"),
        (44, "två"): ("priser/fastpriser.md:18", "number word: 'Bytet av golvbrunn tar två arbetsdagar eftersom tätskiktet måste torka'"),
        (45, "tjugofem"): ("garanti-och-betalning.md:14", "number word: '| Toalettstol – porslin | 25 år |'"),
        (46, "tre"): ("jour.md:19", "number word: '- Zon 3: inom 3 timmar'"),
        (47, "sex"): ("garanti-och-betalning.md:33", "number word: 'Via vår finanspartner kan du dela upp betalningen på 6, 12 eller 24 må'"),
        (47, "tjugofyra"): ("garanti-och-betalning.md:33", "number word: 'Via vår finanspartner kan du dela upp betalningen på 6, 12 eller 24 må'"),
        (47, "tolv"): ("garanti-och-betalning.md:33", "number word: 'Via vår finanspartner kan du dela upp betalningen på 6, 12 eller 24 må'"),
        (48, "ninety"): ("english/in-english.md:22", "number word: 'Our emergency service covers evenings, nights and weekends. In the Väs'"),
    },
    "saas": {
        (21, "2026-03-01"): ("billing.md:30", "month as a name vs digits: 'On 15 December 2025 we announced that the following list prices (SEK p'"),
        (23, "2, 2026 until 30/4 2026"): ("trial-and-onboarding.md:30", "month as a name vs digits: 'New customers who sign a yearly Business plan between 2 March and 30 A'"),
        (24, "8 am to 4"): ("contact-and-support-hours.md:12", "12-hour vs 24-hour clock: '- Friday: 08.00–16.00'"),
        (25, "2 am and 5"): ("sla-and-uptime.md:25", "12-hour vs 24-hour clock: 'Scheduled maintenance does not count as downtime. Maintenance takes pl'"),
        (26, "09:00–17:30"): ("contact-and-support-hours.md:21", "12-hour vs 24-hour clock: '- Monday to Friday: 9 am – 5.30 pm (UK time)'"),
        (44, "seven"): ("trial-and-onboarding.md:12", "number word: 'Need more time to evaluate? Our sales team can extend the trial once, '"),
        (45, "sixty"): ("data-retention.md:24", "number word: 'After your subscription ends, you keep read-only access and can export'"),
        (46, "six"): ("trial-and-onboarding.md:18", "number word: '- Enterprise: a dedicated onboarding project of up to 6 weeks, includi'"),
        (46, "three"): ("trial-and-onboarding.md:18", "number word: '- Enterprise: a dedicated onboarding project of up to 6 weeks, includi'"),
        (47, "fjorton"): ("svenska/kundtjanst.md:14", "number word: 'Prova Tellwise gratis i 14 dagar – inget kort behövs.'"),
        (48, "five"): ("faq.md:10", "number word: 'Starter and Team include 1 help centre, Business includes 5 and Enterp'"),
    },
    "simhall": {
        (19, "0703184490"): ("kontakt.md:9", "phone number without separators: ['070-318 44 90']"),
        (22, "15/11 2026"): ("banbokning.md:23", "month as a name vs digits: '- Säsongsbokning för våren 2027 ska vara inne senast 15 november 2026.'"),
        (23, "2026-08-24"): ("simskola.md:22", "month as a name vs digits: '- Höstterminen 2026 startar vecka 35, måndag 24 augusti 2026.'"),
        (44, "tjugofem"): ("index.md:9", "number word: '- **Stora bassängen** – 25 meter och 8 banor för motionssim och föreni'"),
        (44, "åtta"): ("index.md:9", "number word: '- **Stora bassängen** – 25 meter och 8 banor för motionssim och föreni'"),
        (45, "trettio"): ("simskola.md:9", "number word: '| Babysim | 3–12 månader | 8 | 30 min | 1 120 kr |'"),
        (45, "åtta"): ("simskola.md:9", "number word: '| Babysim | 3–12 månader | 8 | 30 min | 1 120 kr |'"),
        (46, "sju"): ("regler.md:7", "number word: '- Barn under 7 år ska ha en simkunnig vuxen (minst 18 år) med sig i va'"),
        (46, "tre"): ("regler.md:7", "number word: '- Barn under 7 år ska ha en simkunnig vuxen (minst 18 år) med sig i va'"),
        (47, "sju"): ("banbokning.md:24", "number word: '- Avbokning ska göras senast 7 dagar före bokad tid. Senare avbokninga'"),
        (48, "två"): ("kontakt.md:17", "number word: 'Vi svarar på e-post inom 2 arbetsdagar.'"),
    },
    "skidort": {
        (21, "2026-04-19"): ("index.md:8", "month as a name vs digits: '- Säsongen slutar: söndag 19 april 2026 (räcker snön kan vi förlänga)'"),
        (22, "2025-11-30"): ("liftkort.md:51", "month as a name vs digits: '**Tidig säsongskortsrabatt:** Köp ditt säsongskort senast 30 november '"),
        (23, "13/1 till 12/3 2026"): ("index.md:12", "month as a name vs digits: 'Under högsäsong gäller högsäsongspriser på liftkort, se [Liftkort och '"),
        (43, "10 am to 3:30"): ("restaurang.md:23", "12-hour vs 24-hour clock: '- Måndag–fredag: 10.00–15.30'"),
        (44, "fem"): ("skidskola.md:26", "number word: '- Heldag (5 timmar inklusive lunchpaus): 3 290 kr'"),
        (45, "sex"): ("backar-och-liftar.md:22", "number word: 'Åktiden med Toppexpressen är 6 minuter.'"),
        (46, "tolv"): ("index.md:40", "number word: 'Skibussen (linje 612) går mellan Torget i Fjällbacka centrum och Dalst'"),
        (47, "sex"): ("skidskola.md:18", "number word: 'I barn- och ungdomsgrupperna är det högst 8 deltagare per instruktör. '"),
        (48, "hundra"): ("liftkort.md:43", "number word: 'Ersättningskort vid förlorat kort: 100 kr (kvitto krävs).'"),
    },
    "solenergi": {
        (21, "2026-03-01 to 2026-04-30"): ("packages.md:35", "month as a name vs digits: 'Sign an order for Sol Plus or Sol Max between 1 March and 30 April 202'"),
        (23, "2026-10-15"): ("installation.md:28", "month as a name vs digits: '- Orders signed after 15 October 2026 are installed from 16 February 2'"),
        (23, "2027-02-16"): ("installation.md:28", "month as a name vs digits: '- Orders signed after 15 October 2026 are installed from 16 February 2'"),
        (25, "7 am to 4"): ("contact.md:22", "12-hour vs 24-hour clock: 'Phone hours: Monday–Friday 7.00–16.00'"),
        (27, "1"): ("contact.md:37", "12-hour vs 24-hour clock + month as a name vs digits: 'Customer service and the fault line are closed on Midsummer Eve, 19 Ju'"),
        (44, "five"): ("installation.md:10", "number word: '| 2. Quote | Fixed-price quote with 3D roof layout | Within 5 working '"),
        (45, "twenty-five"): ("warranty-and-service.md:7", "number word: '| Aurora NX panels | 25 years | 30 years, at least 87.4% of rated outp'"),
        (46, "ninety"): ("installation.md:9", "number word: '| 1. Site visit | An engineer checks roof, attic, fuse box and meter |'"),
        (47, "fjorton"): ("svenska/kundservice.md:28", "number word: 'Du har 14 dagars ångerrätt om du skrivit på avtalet hemma hos dig elle'"),
        (48, "three"): ("installation.md:14", "number word: '| 6. Meter change | Your grid operator installs a production meter | 1'"),
    },
    "sprakskola": {
        (20, "2026-08-28"): ("term-dates.md:22", "month as a name vs digits: '- Autumn evening and weekend courses: 28 August 2026'"),
        (22, "2026-06-19"): ("contact.md:29", "month as a name vs digits: 'From 29 June to 9 August 2026 reception is open Monday–Friday 10.00–15'"),
        (23, "9 am to 12:15"): ("courses/group-courses.md:11", "12-hour vs 24-hour clock: '| Intensive | 4 | 20 | 45 min | 60 | Mon–Fri 9.00–12.15 |'"),
        (24, "8:30 am to 4"): ("contact.md:17", "12-hour vs 24-hour clock: '| Friday | 08.30–16.00 |'"),
        (26, "9:30 am to 1:30"): ("contact.md:18", "12-hour vs 24-hour clock: '| Saturday | 09.30–13.30 |'"),
        (36, "19 January to 16 April 2026"): ("term-dates.md:17", "month names = '19 Jan – 16 Apr' in the column headed 'Spring 2026' (checked by hand)"),
        (44, "twelve"): ("courses/group-courses.md:12", "number word: '| Evening | 12 | 2 | 90 min | 36 | Mon & Wed or Tue & Thu, 18.00–19.30'"),
        (45, "eight"): ("courses/group-courses.md:42", "number word: '- Maximum: 10 students on intensive courses, 12 on evening courses and'"),
        (46, "ten-minute"): ("placement-and-exams.md:8", "number word: '- Placement test at the school: a written test plus a 10-minute oral i'"),
        (47, "sex"): ("svenska/kundtjanst.md:19", "number word: 'En privatlektion på 60 minuter kostar 850 kr. Ett paket med 10 lektion'"),
        (47, "tio lektioner"): ("svenska/kundtjanst.md:19", "number word: 'En privatlektion på 60 minuter kostar 850 kr. Ett paket med 10 lektion'"),
        (48, "three"): ("placement-and-exams.md:18", "number word: '| Northbridge Certificate | A2–C1 | 1 450 | 120 min | 15 min | 3 weeks'"),
    },
    "stadfirma": {
        (21, "2026-06-19"): ("kontakt.md:20", "month as a name vs digits: '**Sommartider 2026:** Från 22 juni till 14 augusti 2026 har kundtjänst'"),
        (22, "2026-03-31"): ("flyttstadning.md:41", "month as a name vs digits: '**Vårkampanj 2026:** Boka flyttstädning senast den 31 mars 2026 för st'"),
        (23, "2026-06-22 till 2026-08-14"): ("kontakt.md:20", "month as a name vs digits: '**Sommartider 2026:** Från 22 juni till 14 augusti 2026 har kundtjänst'"),
        (41, "9 am to 4"): ("kontakt.md:32", "12-hour vs 24-hour clock: 'Besökstider: måndag–fredag kl. 9–16'"),
        (44, "fyra"): ("fonsterputs.md:25", "number word + month as a name vs digits: 'Med vårt abonnemang kommer vi 4 gånger per år – i mars, maj, augusti o'"),
        (45, "fem"): ("flyttstadning.md:39", "number word + month as a name vs digits: 'Boka gärna minst 3 veckor i förväg. Under högsäsong, 25 maj–31 augusti'"),
        (45, "tre"): ("flyttstadning.md:39", "number word + month as a name vs digits: 'Boka gärna minst 3 veckor i förväg. Under högsäsong, 25 maj–31 augusti'"),
        (46, "tre"): ("flyttstadning.md:12", "number word: '| 81–100 m² | 6 580 kr | 3 290 kr | 3 |'"),
        (47, "five"): ("english/faq.md:12", "number word: 'Move-out cleaning has a fixed price based on floor area. A home of 41–'"),
        (47, "forty-eight"): ("english/faq.md:12", "number word: 'Move-out cleaning has a fixed price based on floor area. A home of 41–'"),
        (48, "tjugofyra"): ("avbokning-och-garanti.md:23", "number word: '| Hemstädning | 24 timmar | 3 arbetsdagar |'"),
        (48, "tre"): ("avbokning-och-garanti.md:23", "number word: '| Hemstädning | 24 timmar | 3 arbetsdagar |'"),
    },
    "tandvard": {
        (23, "2026-07-06 till 2026-08-02"): ("oppettider-och-kontakt.md:33", "month as a name vs digits: '- Alvesta har sommarstängt vecka 28–31, det vill säga 6 juli–2 augusti'"),
        (45, "femtio"): ("tandvardsstod.md:23", "number word: '- För den del som ligger mellan 3 000 och 15 000 kr betalar staten 50 '"),
        (46, "fyrtiofem"): ("priser.md:28", "number word: '- En basundersökning hos tandläkare tar ungefär 45 minuter.'"),
        (47, "tjugotre"): ("tandvardsstod.md:5", "number word: 'Barn och unga får fri tandvård till och med det år de fyller 23. Det ä'"),
        (48, "tjugofyra"): ("avbokning-och-betalning.md:5", "number word: 'Du kan av- eller omboka din tid kostnadsfritt fram till 24 timmar före'"),
        (49, "nio"): ("om-oss.md:17", "number word: '- 9 behandlingsrum, varav ett anpassat för rullstol'"),
    },
    "teater": {
        (21, "2025-12-11"): ("visiting/accessibility.md:30", "month as a name vs digits: '| Frost over Haga | Thursday 11 December 2025 | 19.30 |'"),
        (23, "2026-01-04"): ("visiting/accessibility.md:35", "month as a name vs digits: 'Frost over Haga on Sunday 4 January 2026 at 15.00 is a relaxed perform'"),
        (25, "10:00 to 16:00"): ("box-office.md:17", "12-hour vs 24-hour clock: '- Weekdays: 10 am–4 pm'"),
        (26, "11"): ("season/2025-2026.md:13", "12-hour vs 24-hour clock + month as a name vs digits: '| Little Lantern | Studio | Saturdays 4 Oct 2025 – 28 Mar 2026 | 11.00'"),
        (27, "3"): ("season/2025-2026.md:8", "12-hour vs 24-hour clock + month as a name vs digits: '| Frost over Haga | Main Stage | 28 Nov 2025 – 10 Jan 2026 | Tue–Sat 1'"),
        (35, "Three"): ("visiting/cloakroom-and-bar.md:32", "number word: '- Three courses: SEK 465'"),
        (43, "two"): ("svenska/biljetter-och-besok.md:37", "number word: 'Vår vänförening Lyktans Vänner ger dig förköp en vecka innan det allmä'"),
        (44, "forty-five"): ("season/2025-2026.md:13", "number word + month as a name vs digits: '| Little Lantern | Studio | Saturdays 4 Oct 2025 – 28 Mar 2026 | 11.00'"),
        (45, "nine"): ("season/2025-2026.md:23", "number word + month as a name vs digits: 'Our Christmas musical returns, with a cast of 24 and a live band of 9 '"),
        (45, "twenty-four"): ("season/2025-2026.md:23", "number word + month as a name vs digits: 'Our Christmas musical returns, with a cast of 24 and a live band of 9 '"),
        (47, "tjugofyra"): ("svenska/biljetter-och-besok.md:29", "number word: 'Presentkort säljs i valfri valör från 200 kr och gäller i 24 månader f'"),
        (48, "ninety"): ("visiting/accessibility.md:25", "number word: 'Each audio-described performance starts with a touch tour of the stage'"),
    },
    "trafikskola": {
        (7, "tjugo"): ("priser.md:20", "number word: '- Paket Trygg: 20 lektioner à 40 minuter för 13 200 kr.'"),
        (8, "tre"): ("priser.md:21", "number word: '- Paket Intensiv: 3 veckors intensivkurs för 24 900 kr.'"),
        (20, "två"): ("kontakt.md:12", "number word: 'Vi svarar på e-post inom 2 arbetsdagar.'"),
        (24, "tolv"): ("villkor.md:17", "number word: 'Ett paket gäller i 12 månader från köpdatum. Oanvända lektioner återbe'"),
        (31, "three"): ("english/faq.md:12", "number word: 'The Intensive package runs for 3 weeks and costs SEK 24,900.'"),
        (32, "09:00 to 15:00"): ("english/faq.md:16", "12-hour vs 24-hour clock: 'On Fridays the office is open from 9 am to 3 pm.'"),
    },
    "tvatteri": {
        (10, "två"): ("hamtning-leverans.md:20", "number word: '2. Lägg tvätten i våra tvättpåsar. De två första påsarna är gratis, dä'"),
        (21, "2026-03-16 till 2026-04-30"): ("faq.md:5", "month as a name vs digits: 'Mellan den 16 mars och den 30 april 2026 får du 20 % rabatt på all mat'"),
        (22, "2026-06-19"): ("butiker.md:34", "month as a name vs digits: 'Båda butikerna har stängt på midsommarafton den 19 juni 2026 och på ju'"),
        (23, "6/7–2/8 2026"): ("butiker.md:38", "month as a name vs digits: 'Butik Flygstaden har sommarstängt vecka 28–31, det vill säga 6 juli–2 '"),
        (45, "två"): ("priser/tvatt-och-mattor.md:5", "number word: 'Vi väger din tvätt vid inlämning. Tvätten är klar inom 2 arbetsdagar.'"),
        (46, "tre"): ("priser/tvatt-och-mattor.md:30", "number word: '| Handknuten matta | 320 kr | 795 kr | 3 veckor |'"),
        (47, "tre"): ("foretag.md:20", "number word: 'Uppsägningstid: 3 månader'"),
        (48, "nittio"): ("villkor.md:30", "number word: 'Vi skickar en påminnelse med sms när plagget har legat klart i 30 daga'"),
        (49, "femton"): ("butiker.md:16", "number word: 'Utanför butiken finns korttidsparkering i 15 minuter. Vid Butik Centru'"),
    },
    "verkstad": {
        (21, "2026-06-19"): ("oppettider-och-kontakt.md:42", "month as a name vs digits: '- Midsommarafton, 19 juni 2026: stängt'"),
        (22, "2025-09-15"): ("priser/dack.md:10", "month as a name vs digits: '**Tidigbokning:** Boka höstskiftet senast 15 september 2025 och få 15 '"),
        (43, "9 och 16"): ("english/in-english.md:7", "12-hour vs 24-hour clock: '- English-speaking service line: +46 8 629 41 35, weekdays 9 am–4 pm'"),
        (44, "fyrtiofem"): ("besiktning-och-lanebil.md:8", "number word: 'Tid: cirka 45 minuter'"),
        (45, "fyra"): ("besiktning-och-lanebil.md:19", "number word: 'Vi har 6 lånebilar i Sundbyberg och 4 i Solna. En av bilarna på varje '"),
        (46, "fem"): ("garanti.md:12", "number word: '| Plåt- och lackarbete | 5 år | – |'"),
        (47, "thirty"): ("priser/dack.md:24", "number word: 'Ett hjulskifte tar cirka 30 minuter och du kan vänta i vår kundlounge.'"),
        (48, "tre"): ("bokning-och-villkor.md:36", "number word: 'Mellan en och en halv och tre timmar beroende på bilens storlek. Se ta'"),
    },
    "veterinar": {
        (20, "2026-09-14 till 2026-09-25"): ("vaccinationer.md:33", "month as a name vs digits: '- Höst: 14–25 september 2026'"),
        (21, "30/4 2026"): ("djurpensionat.md:25", "month as a name vs digits: '- Bokning för sommaren ska göras senast 30 april 2026; därefter i mån '"),
        (22, "2026-12-18"): ("djurpensionat.md:20", "month as a name vs digits: 'Högsäsong 2026: 15 juni–16 augusti samt 18 december 2026–6 januari 202'"),
        (22, "2027-01-06"): ("djurpensionat.md:20", "month as a name vs digits: 'Högsäsong 2026: 15 juni–16 augusti samt 18 december 2026–6 januari 202'"),
        (44, "tredje"): ("vaccinationer.md:7", "number word: 'Valpar grundvaccineras vid 8, 12 och 16 veckors ålder och får en påfyl'"),
        (45, "twenty-one"): ("english/information-in-english.md:30", "number word: 'Dogs, cats and ferrets travelling within the EU need a pet passport (S'"),
        (46, "fem"): ("vanliga-fragor.md:22", "number word: 'Enligt lag sparar vi journalen i minst 5 år efter det senaste besöket.'"),
        (47, "två"): ("forsakring.md:37", "number word: 'E-post: forsakring@djurklinikentallbacken.se (svar inom 2 arbetsdagar)'"),
        (48, "tre"): ("djurpensionat.md:3", "number word: 'Vårt djurpensionat ligger i en egen byggnad på Tallbacken, med veterin'"),
    },
    "yogastudio": {
        (21, "2026-09-04"): ("teacher-training.md:9", "month as a name vs digits: '- Start: September 4, 2026'"),
        (21, "2027-02-28"): ("teacher-training.md:10", "month as a name vs digits: '- End: February 28, 2027'"),
        (23, "30/09/2026"): ("teacher-training.md:33", "month as a name vs digits: '- Application deadline: September 30, 2026'"),
        (24, "09:00–16:00"): ("index.md:36", "12-hour vs 24-hour clock: '- Saturday: 9 am – 4 pm'"),
        (25, "6.30"): ("timetable.md:21", "12-hour vs 24-hour clock: '- 18:30 Ashtanga Led Class, 90 min (Sol)'"),
        (26, "6:30 pm to 8:30"): ("workshops.md:8", "12-hour vs 24-hour clock + month as a name vs digits: '| Yin & Sound Bath | Friday, March 27, 2026 | 18.30–20.30 | Vasastan |'"),
        (27, "5–9"): ("teacher-training.md:12", "12-hour vs 24-hour clock: '- Weekend hours: Friday 17.00–21.00, Saturday and Sunday 9.00–17.00'"),
        (27, "9 am–5"): ("teacher-training.md:12", "12-hour vs 24-hour clock: '- Weekend hours: Friday 17.00–21.00, Saturday and Sunday 9.00–17.00'"),
        (44, "forty-five"): ("timetable.md:5", "number word: 'Classes are 60 minutes unless stated otherwise. Lunch classes are 45 m'"),
        (45, "twelve"): ("terms/booking-freezing-and-cancellation.md:8", "number word: '- Cancel a yoga or mat pilates class at least 3 hours before it starts'"),
        (46, "six"): ("terms/booking-freezing-and-cancellation.md:17", "number word: 'If you are pregnant, on parental leave or on long-term sick leave, you'"),
        (47, "fifteen"): ("terms/booking-freezing-and-cancellation.md:11", "number word: '- Doors open 15 minutes before class. Latecomers are not let in more t'"),
        (48, "five"): ("teacher-training.md:13", "number word + 12-hour vs 24-hour clock + month as a name vs digits: '- Intensive: October 26–30, 2026, Monday to Friday 8 am – 5 pm'"),
    },
    # HAND END
}


def values(tok):
    """Canonical numeric readings of a token such as '14 490', '3,50', '1,269', '08:00'."""
    t = tok.replace("\u00a0", " ").replace(" ", "").replace(":", ".")
    out = set()
    seps = [i for i, c in enumerate(t) if c in ".,"]
    cands = []
    if not seps:
        cands.append(t)
    else:
        digits = re.sub(r"[.,]", "", t)
        groups = re.split(r"[.,]", t)
        if all(len(g) == 3 for g in groups[1:]):
            cands.append(digits)                        # all separators are grouping
        last = seps[-1]
        cands.append(re.sub(r"[.,]", "", t[:last]) + "." + t[last + 1:])  # last one is decimal
    for c in cands:
        try:
            d = Decimal(c)
        except InvalidOperation:
            continue
        out.add(format(d.normalize(), "f") if d != 0 else "0")
    return out


def phone_key(run):
    digits = re.sub(r"[^0-9]", "", run)
    if run.startswith("+") and digits.startswith("46"):
        return digits[2:]
    if digits.startswith("0"):
        return digits[1:]
    return digits


def phone_runs(text):
    """(start, end, key) of phone-like runs: at least 7 digits, written with + or - or spaced groups."""
    runs = []
    for m in PHONE_RE.finditer(text):
        s = m.group(0).rstrip(" -")
        nd = len(re.sub(r"[^0-9]", "", s))
        if nd >= 7 and ("+" in s or "-" in s or re.search(r"[0-9] [0-9]{2}(?![0-9])", s)):
            runs.append((m.start(), m.start() + len(s), phone_key(s)))
    return runs


def name_spans(text, folder):
    spans = []
    for pat in NAMES["*"] + NAMES.get(folder, []):
        for m in re.finditer(pat, text):
            spans.append((m.start(), m.end()))
    return spans


def number_tokens(text, folder):
    """(start, end, token) of the numbers of a text, names and codes left out."""
    names = name_spans(text, folder)
    toks = []
    for m in TOKEN_RE.finditer(text):
        s, e = m.start(), m.end()
        if s > 0 and text[s - 1].isalpha():
            continue                                   # SE4, E5 ...: a code
        if e < len(text) and text[e].isalpha() and not ORDINAL_SUFFIX.match(text, e):
            continue                                   # 5G ...: a code
        if any(a <= s and e <= b for a, b in names):
            continue
        toks.append((s, e, m.group(0)))
    return toks


def word_numbers(text, folder):
    names = name_spans(text, folder)
    return [(m.start(), m.end(), m.group(0)) for m in NUMBER_WORDS.finditer(text)
            if not any(a <= m.start() and m.end() <= b for a, b in names)]


def clock_tag(text, end):
    """'am' or 'pm' when a 12-hour clock word follows the number ending at end."""
    m = AMPM_RE.match(text, end)
    return m.group(1)[0].lower() + "m" if m else ""


def token_values(text, s, e, tok):
    """Readings of an answer's number; '8 pm' reads as '8pm' only, never as 8."""
    tag = clock_tag(text, e)
    return {v + tag for v in values(tok)} if tag else values(tok)


def line_values(text):
    vals = set()
    for m in TOKEN_RE.finditer(text):
        vals |= values(m.group(0))
        tag = clock_tag(text, m.end())
        if tag:
            vals |= {v + tag for v in values(m.group(0))}
    for m in re.finditer(r"[0-9]+(?:[.,][0-9]+)?", text):
        vals |= values(m.group(0))
    return vals, {k for _, _, k in phone_runs(text)}


def load_kb(folder_path):
    kb = {}
    for root, dirs, files in os.walk(folder_path):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".md"):
                p = os.path.join(root, f)
                rel = os.path.relpath(p, folder_path).replace(os.sep, "/")
                with open(p, encoding="utf-8") as fh:
                    kb[rel] = fh.read().split("\n")
                if kb[rel] and kb[rel][-1] == "":
                    kb[rel].pop()
    return kb


def check_folder(folder, verbose=False):
    path = os.path.join(HERE, folder)
    problems = []
    kb = load_kb(path)
    with open(os.path.join(path, "cases.jsonl"), encoding="utf-8") as fh:
        cases = [json.loads(l) for l in fh if l.strip()]
    ref_path = os.path.join(path, "cases_ref.jsonl")
    if not os.path.exists(ref_path):
        return [f"{folder}: cases_ref.jsonl missing"], Counter(), Counter()
    with open(ref_path, encoding="utf-8") as fh:
        rows = [l for l in fh if l.strip()]
    hand = HAND.get(folder, {})
    used_hand = set()
    seen = Counter()
    counts = Counter()
    refcount = Counter()
    for n, raw in enumerate(rows, 1):
        where = f"{folder}/cases_ref.jsonl:{n}"
        try:
            r = json.loads(raw)
        except ValueError as e:
            problems.append(f"{where}: not JSON ({e})")
            continue
        if list(r) != FIELDS:
            problems.append(f"{where}: fields {list(r)} != {FIELDS}")
            continue
        src = r["source"]
        if not isinstance(src, int) or not 1 <= src <= len(cases):
            problems.append(f"{where}: source {src!r} is not a line of cases.jsonl")
            continue
        case = cases[src - 1]
        base = case["kind"]
        swap = "swapped" in base
        if swap:
            if r["kind"] not in (base + "_cited_source", base + "_cited_true"):
                problems.append(f"{where}: kind {r['kind']} for swap kind {base}")
        elif r["kind"] != base:
            problems.append(f"{where}: kind {r['kind']} != {base}")
        seen[(src, r["kind"])] += 1
        if r["question"] != case["question"]:
            problems.append(f"{where}: question differs from cases.jsonl:{src}")
        if r["expect"] != case["expect"]:
            problems.append(f"{where}: expect differs from cases.jsonl:{src}")
        ans = r["answer"]
        stripped = REF_RE.sub("", ans)
        if stripped != case["answer"]:
            problems.append(f"{where}: answer without references differs from cases.jsonl:{src}:\n"
                            f"    {stripped!r}\n    {case['answer']!r}")
        if re.search(r"\[(?!Q\])", REF_RE.sub("", ans)) or "[Q]" in REF_RE.sub("", ans):
            problems.append(f"{where}: malformed reference in {ans!r}")
        counts[(r["expect"], r["kind"])] += 1
        grounded = r["expect"] == "grounded"
        # segments: text since the previous reference, and the reference
        pos = 0
        segs = []
        for m in REF_RE.finditer(ans):
            segs.append((ans[pos:m.start()], m.group(1)))
            pos = m.end()
        segs.append((ans[pos:], None))
        for text, ref in segs:
            toks = number_tokens(text, folder)
            words = word_numbers(text, folder)
            if ref is None:
                for s, e, t in toks + words:
                    problems.append(f"{where}: number {t!r} has no reference: {ans!r}")
                continue
            refcount[ref] += 1
            if verbose:
                print(f"  {where} [{ref}] <- {text.strip()[-40:]!r}")
            if ref == "Q":
                target = case["question"]
            else:
                fname, _, ln = ref.rpartition(":")
                ln = int(ln)
                if fname not in kb:
                    problems.append(f"{where}: [{ref}] no such KB file")
                    continue
                if not 1 <= ln <= len(kb[fname]):
                    problems.append(f"{where}: [{ref}] no such line ({len(kb[fname])} lines)")
                    continue
                target = kb[fname][ln - 1]
                if not target.strip():
                    problems.append(f"{where}: [{ref}] is an empty line")
            if not toks and not words:
                problems.append(f"{where}: reference [{ref}] follows no number: {text!r}")
                continue
            items = sorted(toks + words)
            # placement: right after the number (unit, period, bound words), before clause end
            trail = text[items[-1][1]:]
            if len(trail) > MAX_TRAIL or SENTENCE_END.search(trail):
                problems.append(f"{where}: reference [{ref}] is not right after its number: {text!r}")
            # numbers sharing one reference must form one number (range, date, phone, address)
            prun = phone_runs(text)
            for (s1, e1, _), (s2, e2, _) in zip(items, items[1:]):
                if any(a <= s1 and e2 <= b for a, b, _ in prun):
                    continue
                if s2 - e1 > MAX_GAP or re.search(r"[;!?]|\.\s", text[e1:s2]):
                    problems.append(f"{where}: two numbers share reference [{ref}]; give each its own: {text!r}")
            if not grounded and ref != "Q":
                continue                               # withheld: the line need not state it
            # digits check (a [Q] is checked in every case: the question must hold the number)
            hand_ok = {}
            for (hs, hnum), (href, why) in hand.items():
                if hs == src and hnum in text and href == ref:
                    i = text.rindex(hnum)
                    hand_ok[(hs, hnum)] = (i, i + len(hnum))
            vals, phones = line_values(target)
            phone_ok = [(a, b) for a, b, k in prun if k in phones]
            for s, e, t in items:
                if any(a <= s and e <= b for a, b in phone_ok):
                    continue
                if t[0].isdigit() and token_values(text, s, e, t) & vals:
                    continue
                keys = [k for k, (a, b) in hand_ok.items() if a <= s and e <= b]
                if keys:
                    used_hand.update(keys)
                    continue
                problems.append(f"{where}: number {t!r} not found on [{ref}] {target!r}")
    for src in range(1, len(cases) + 1):
        base = cases[src - 1]["kind"]
        want = [base + "_cited_source", base + "_cited_true"] if "swapped" in base else [base]
        for k in want:
            if seen[(src, k)] != 1:
                problems.append(f"{folder}: cases.jsonl:{src} ({k}) appears {seen[(src, k)]} times")
    for (src, k), c in seen.items():
        if src > len(cases):
            problems.append(f"{folder}: source {src} beyond cases.jsonl")
    for key in hand:
        if key not in used_hand:
            problems.append(f"{folder}: HAND entry {key} not needed by any grounded answer")
    return problems, counts, refcount


def seen_sources(folder):
    p = os.path.join(HERE, folder, "cases_ref.jsonl")
    out = []
    if os.path.exists(p):
        with open(p, encoding="utf-8") as fh:
            for l in fh:
                try:
                    r = json.loads(l)
                    out.append((r.get("source"), r.get("kind")))
                except ValueError:
                    pass
    return out


def main():
    verbose = "-v" in sys.argv[1:]
    only = [a.strip("/") for a in sys.argv[1:] if not a.startswith("-")]
    folders = sorted(d for d in os.listdir(HERE)
                     if os.path.isfile(os.path.join(HERE, d, "cases.jsonl")))
    if only:
        folders = [d for d in folders if d in only]
    all_problems = []
    for folder in folders:
        problems, counts, refcount = check_folder(folder, verbose)
        n = sum(counts.values())
        ncases = len(set(src for src, _ in seen_sources(folder)))
        g = sum(c for (e, k), c in counts.items() if e == "grounded" and not k.startswith("stretch_"))
        w = sum(c for (e, k), c in counts.items() if e == "withheld" and not k.startswith("stretch_"))
        sg = sum(c for (e, k), c in counts.items() if e == "grounded" and k.startswith("stretch_"))
        sw = sum(c for (e, k), c in counts.items() if e == "withheld" and k.startswith("stretch_"))
        sv = sum(c for (e, k), c in counts.items() if "_cited_" in k)
        print(f"== {folder}: {n} rows for {ncases} cases; grounded {g}, withheld {w} "
              f"(of which {sv} swap variants); stretch, counted apart: grounded {sg}, withheld {sw}; "
              f"{sum(refcount.values())} references ({refcount['Q']} [Q])")
        for e in ("grounded", "withheld"):
            for (e2, k), c in sorted(counts.items(), key=lambda x: (x[0][1].startswith("stretch_"), x[0][1])):
                if e2 == e:
                    print(f"   {e:9} {k:36} {c}")
        for p in problems:
            print("PROBLEM " + p)
        all_problems += problems
    print(f"{len(all_problems)} problem(s)")
    return 1 if all_problems else 0


if __name__ == "__main__":
    sys.exit(main())
