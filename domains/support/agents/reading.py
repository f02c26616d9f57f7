"""Reading the customer's words: the patterns and intents both scripted agents share.

``detect_intent`` names what a message asks for (first match of ``INTENTS``
wins, after "don't cancel" is blanked out); ``is_ambiguous`` flags a bare "it
didn't arrive"; ``Facts`` accumulates what the customer has said so far.
Also the helpers both agents use to read tool output and to word amounts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# "zip", "zip code", "zipcode", "ZIP", "postcode", "postal code", then the five digits, in the same
# sentence ("I'm in 12207 for the zip code. The order is O-91401." names no zip 91401)
ZIP_RE = re.compile(r"\b(?:zip(?:\s*code)?|zipcode|post\s*code|postal\s*code)\b(?:[^0-9@.!?]|\.(?!\s)){0,20}(\d{5})\b", re.I)
ZIP_AFTER_RE = re.compile(r"(?<![\w-])(\d{5})\b[^0-9@]{0,12}\b(?:zip|zipcode|post\s*code|postal\s*code)\b", re.I)
# "my name is Ana Ruiz", "name's Ana Ruiz", "this is Ana Ruiz", "I'm Ana Ruiz", "it's Ana Ruiz"
NAME_RE = re.compile(
    r"\b(?i:my (?:full )?name is|my name's|name's|this is|I'm|I am|it's|it is) ([A-Z][a-zA-Z'-]+) ([A-Z][a-zA-Z'-]+)\b"
)
# a name given bare, as an answer ("Dana Whitfield.", "Sure, Dana Whitfield.", "Dana Whitfield, that's me.")
BARE_NAME_RE = re.compile(
    r"(?:^|[.!?]\s+)(?:(?i:sure|yes|okay|ok|right|fine|of course|oh)[,.]?\s+)?([A-Z][a-zA-Z'-]+) ([A-Z][a-zA-Z'-]+)"
    r"(?=\s*(?:[.!]|$|,\s*(?i:that's me|speaking|here)|\s+(?i:is the name|is my name|here|speaking)))"
)
NOT_NAMES = {"Order", "Sorry", "Really", "Very", "Not", "So", "Just", "Still", "Here", "The", "Your", "My", "A", "An"}
ORDER_RE = re.compile(r"\bO-\d{5}\b")
# "how much in total", "what would it come to altogether": a sum asked for, across what was named
TOTAL_RE = re.compile(r"\b(total|altogether|all together|combined|in all|all told|overall|add(?:s|ed)? up|sum)\b", re.I)
# A street address as people write it ("18 Birch Lane, Boise, ID 83716"), whatever leads up to it
# ("the new address is", "I've moved to", "send it to", "I'm now at"): the customer never reads out
# the old one, so the latest address said is the new one.
ADDRESS_RE = re.compile(
    r"(?<![\w-])(\d+[A-Za-z]?(?: [A-Za-z0-9.'#/-]+){1,8}?),? ([A-Z][A-Za-z.'-]*(?: [A-Z][A-Za-z.'-]*){0,3}),? ([A-Z]{2}),? (\d{5})\b"
)
YES_RE = re.compile(
    r"\b(yes|yeah|yea|yep|yup|sure|ok|okay|alright|all right|go ahead|go for it|please do|do it|do that|"
    r"sounds good|that'?s fine|that works|fine by me|absolutely|definitely|of course|correct|please proceed|proceed|"
    r"I'?ll (take|have|go with) (it|that|this|the|them|those)|let'?s (do|go with) (it|that|this|the)|"
        # "refund them, please", "the card, please": the thing asked for, said with a please
    r"(?<!\bnot )please(?!\s+(?:don'?t|do not|wait|stop|hold|no)\b))\b",
    re.I,
)
# "no" in an idiom of consent ("no need to ask twice", "no problem", "no worries") refuses nothing
NO_RE = re.compile(
    r"\b(no(?![\s-]+(?:need|problem|problems|worries|rush|doubt|question|brainer)\b)|nope|nah|don'?t do (that|it)|do not do (that|it)|don'?t (go ahead|bother)|hold off|rather not|"
    r"not yet|leave it)\b",
    re.I,
)
# a parcel the customer now has, in whatever words ("Rosa had it", "found it in the mailbox",
# "I've got it now"), in a sentence that does not deny it ("nobody's seen it", "I haven't got it")
FOUND_RE = re.compile(
    r"(handed it over|I have it now|already have the parcel|after all|"
    r"\b(?:found|got|have|had|took|taken|picked up|brought) (?:it|the parcel|the package)\b|"
    r"\bit(?: was|'s been| had been) (?:at|in|on|by|behind|under|next to|sitting|with)\b)", re.I)
NOT_FOUND_RE = re.compile(r"(no parcel|none of the neighbours|nothing has arrived)", re.I)
_DENIED = re.compile(r"\b(?:not|nobody|no one|none|nothing|never|neither)\b|n't\b|\bno\b(?! need\b)(?!\.\s*\d)", re.I)  # not "no need", nor "no. 14"


def found_parcel(text: str) -> bool:
    """Whether the customer says it has the parcel now (a sentence with found words, not denying them)."""
    return any(FOUND_RE.search(s) and not _DENIED.search(s) for s in re.split(r"(?<=[.!?])(?<![Nn]o\.)\s+", text or ""))
PREF_REPLACE_RE = re.compile(
    r"\b(replacements?|replace (it|them|the|this|that|mine)|replaced|"
    r"(send|ship|get) (me )?(another|a new|a fresh|a second) ?(one|ones)?|(a )?new one|swap (it|them) for)\b",
    re.I,
)
PREF_REFUND_RE = re.compile(
    r"\b(refunds?|refunded|refunding|money back|my money|reimburse(d|ment)?|pay me back|paid back|credit (it|that) back)\b",
    re.I,
)
STORE_CREDIT_RE = re.compile(
    r"\b(store credit|shop credit|site credit|account credit|credit (on|to) my account|as (a )?credit|"
    r"credit for next time|credit I can spend)\b",
    re.I,
)

ANGER_RE = re.compile(
    r"(unacceptable|furious|livid|fuming|worst|ridiculous|unbelievable|outrageous|disgrace|pathetic|useless|terrible|"
    r"awful|scathing|one-star|(?:post|leave|leaving|write|writing|posting) an? (?:\w+ ){0,3}review|do you people|"
    r"fed up|sick of|angry|a joke|kidding me|joking|annoy\w*|frustrat\w*|upset|!|"
    # impatience is upset too (R9's condition reads it so): "Still waiting.", "Took long enough."
    r"\bstill (?:not|no|nothing|waiting)\b|\btook (?:long enough|ages|forever)\b|"
    # sarcasm said twice: "Great. Just great.", "brilliant, absolutely brilliant"
    r"\b(?:great|brilliant|wonderful|fantastic|perfect|lovely|marvell?ous)\W+(?:just|absolutely|really|simply|truly) "
    r"(?:great|brilliant|wonderful|fantastic|perfect|lovely|marvell?ous)\b)", re.I
)
PROVOCATION_RE = re.compile(
    r"\b(ignore your|forget your|your rules|the rules|override|skip the usual|instructions)\b", re.I
)
# "the mug is fine", "the rest looks okay": an item named as unharmed is not part of the complaint
FINE_RE = re.compile(r"\b(is|are|was|were|looks?|seems?) (fine|ok|okay|intact|perfect|alright|all right|undamaged)\b", re.I)
OFF_TOPIC_RE = re.compile(r"\b(weather|football|movie|recipe)\b", re.I)

NEGATED_CANCEL = re.compile(r"\b(don'?t|do not|no need to|not|never) (cancel|call off)\b", re.I)
# "nothing's broken", "it isn't damaged": damage denied is no complaint of damage
NEGATED_DAMAGE = re.compile(
    r"\b(?:nothing(?:'s| is| was| got)?|not|none of it(?:'s| is| was)?|isn'?t|wasn'?t|aren'?t|weren'?t|never)"
    r" (?:at all |even |been )?(?:broken|damaged|cracked|smashed|scratched|dented)\b", re.I)

INTENTS: list[tuple[str, re.Pattern]] = [
    # "court" as a place to take someone, not a street ("12 Elm Court")
    ("legal", re.compile(r"\b(lawyer|attorney|sue you|legal action|small claims|(?:to|in|into) court)\b", re.I)),
    ("human", re.compile(
        r"\b(humans?|real person|actual person|live person|a person|managers?|supervisors?|someone senior|"
        r"(speak|talk|chat) (to|with) (someone|somebody|anyone|a colleague|your boss|a rep)|representative|"
        r"escalate|escalation|someone (else|higher up|in charge))\b", re.I)),
    ("duplicate_charge", re.compile(
        r"\b(charged (me )?twice|double[- ]charged|two charges|charged two times|duplicate charge)\b", re.I)),
    ("refund_status", re.compile(
        r"\brefund\b[^.?!]*\b(never (showed|shown|arrived|came|posted)|hasn'?t (shown|arrived|come|posted|reached)|"
        r"has not (shown|arrived|come|posted|reached)|not (shown up|arrived|posted)|didn'?t (show|arrive|come|post))"
        r"|\bwhere(?:'s| is) my refund\b", re.I)),
    ("cancel", re.compile(
        r"\b(cancel|cancell?ed|cancell?ing|cancellation|call (it|that|the order) off|call off|scrap (it|that|the order|order))\b",
        re.I)),
    ("change_address", re.compile(
        r"\b(new address|wrong address|old address|different address|change (the|my) (shipping |delivery )?address|"
        r"update (the|my) (shipping |delivery )?address|(ship|send|deliver) (it|them|that|the order) to|"
        r"have moved|I'?ve moved|I moved|just moved|moved (house|to)|moving (house|to)|relocated|I'?m now at|"
        r"I now live at|I live at|(should|needs to|must|could|can|to) (go|ship|be sent|be shipped|be delivered) to)\b",
        re.I)),
    ("damaged", re.compile(
        r"\b(damaged|damage|broken|broke|cracked|smashed|shattered|dented|scratched|ripped|crushed|leaking|"
        r"in pieces|stopped working|doesn'?t work|does not work|not working|won'?t (turn on|work)|faulty|defective)\b",
        re.I)),
    ("missing_item", re.compile(
        r"\b(missing from|was missing|were missing|is missing|are missing|wasn'?t in the (box|parcel|package)|"
        r"weren'?t in the (box|parcel|package)|not in the (box|parcel|package)|wasn'?t included|weren'?t included|"
        r"not included|left out of|only got)\b",
        re.I)),
    ("not_arrived", re.compile(
        r"\b(didn'?t arrive|did not arrive|never arrived|hasn'?t arrived|has not arrived|never came|didn'?t come|"
        r"never got|didn'?t get|hasn'?t come|nothing came|never showed up|not received|haven'?t received|"
        r"never turned up|hasn'?t turned up|still waiting (for|on))\b", re.I)),
    ("unwanted", re.compile(
        r"\b((don'?t|do not) (want|like|need) (it|them|this|that|the)|no longer (want|need)|changed my mind about|"
        r"send (it|them|this|that) back|return (it|them|this|that|the)|make a return|"
        r"(not|isn'?t|wasn'?t) (really )?what I (wanted|expected))\b",
        re.I)),
    # an address said with nothing else asked: where something should go
    ("change_address", ADDRESS_RE),
]
# "It didn't arrive, give it back": the subject is a bare "it" and nothing says what.
AMBIGUOUS_RE = re.compile(r"\bit (didn'?t|did not|never|hasn'?t) (arrive|come|show)", re.I)
SPECIFIC_RE = re.compile(r"\b(package|parcel|order|box|item|refund|money|charge|O-\d{5})\b", re.I)


_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
# "on June 2", "June 2nd", "2 June", "the 2nd of June": a day of this year the customer names
MONTH_DAY_RE = re.compile(
    r"\b(?:(" + "|".join(_MONTHS) + r")\.? (\d{1,2})(?:st|nd|rd|th)?|(\d{1,2})(?:st|nd|rd|th)? (?:of )?(" + "|".join(_MONTHS) + r"))\b",
    re.I,
)


def days_named(text: str, year: int) -> set[str]:
    """The ISO dates ("2026-06-02") of the month-and-day dates in ``text``, in ``year``."""
    out = set()
    for m in MONTH_DAY_RE.finditer(text):
        month = (m.group(1) or m.group(4)).lower()
        day = int(m.group(2) or m.group(3))
        if 1 <= day <= 31:
            out.add(f"{year}-{_MONTHS.index(month) + 1:02d}-{day:02d}")
    return out


def detect_intent(text: str) -> str | None:
    """The name of the first intent in ``INTENTS`` the text matches, or None."""
    t = NEGATED_DAMAGE.sub(" ", NEGATED_CANCEL.sub(" ", text))
    for name, rx in INTENTS:
        if rx.search(t):
            return name
    return None


def is_ambiguous(text: str) -> bool:
    """True for "it didn't arrive" with nothing saying what "it" is."""
    return bool(AMBIGUOUS_RE.search(text)) and not SPECIFIC_RE.search(text)


def money(cents: int) -> str:
    """Cents as dollars, the way the tools word them: 12345 -> "$123.45"."""
    return f"${cents / 100:,.2f}"


def parse_output(text: str) -> Any:
    """A tool's output as data: None for an error, the JSON value, else the raw text."""
    if text.startswith("Error:"):
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def item_noun(name: str) -> str:
    """A product name without its first word ("Compact Scented Candle" -> "scented candle")."""
    parts = name.lower().split()
    return " ".join(parts[1:]) if len(parts) > 1 else parts[0]


_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "a couple": 2, "both": 2}
# "two of the four glasses", "2 out of 4", "two more of them", "one of my six": how many units of a line
# (not an idiom: "it's been one of those weeks")
_IDIOM = r"(?!\s+(?:days?|weeks?|times|things|mornings|evenings|years|months|moments)\b)"
UNITS_RE = re.compile(
    r"\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)(?: more)? (?:of|out of) "
    r"(?:the|my|them|those|these|all|\d{1,2}\b)" + _IDIOM, re.I)
# "some of the glasses", "a few of them", "not all of my ...": part of a line, the number not said
PARTIAL_UNITS_RE = re.compile(r"\b(?:some|a few|several|not all|a couple|part) of (?:the|my|them|those|these)\b", re.I)
# a clause that points back at the units just named ("two of them", "the other two")
BACK_RE = re.compile(r"\b(?:of them|of those|of these|out of (?:the )?\w+)\b" + _IDIOM, re.I)
# "the other five", "the remaining two": the units left of a line, pointing back at it
OTHER_RE = re.compile(r"\bthe (?:other|remaining|last) (\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\b", re.I)
# a clause about a remedy already given ("one of them was refunded already"): not the request in hand
DONE_BEFORE_RE = re.compile(r"\b(?:refunded|replaced)\b[^.]*\b(?:already|before|earlier|last week)\b|"
                            r"\b(?:already|you|you've|you have) (?:been )?(?:refunded|replaced)\b", re.I)


def units_named(clauses: list[str], names: list[str], only: bool) -> tuple[int | None, bool]:
    """How many units of a line the customer's clauses give (the last said wins), and whether they
    called it part of the line without a number. A clause counts when it names the line (one of
    ``names``), or points back ("two of them") and ``only`` (the one line of several units in question)."""
    count, partial = None, False
    for c in clauses:
        if DONE_BEFORE_RE.search(c):
            continue  # the units remedied before, not those asked about now
        if not (any(n in c for n in names) or (only and (BACK_RE.search(c) or OTHER_RE.search(c)))):
            continue
        for m in [*UNITS_RE.finditer(c), *OTHER_RE.finditer(c)]:
            w = m.group(1).lower()
            count = int(w) if w.isdigit() else _NUMBER_WORDS[w]
        partial |= bool(PARTIAL_UNITS_RE.search(c))
    return count, partial and count is None


# Look-alike lines: one product in sizes and colours, named "Ceramic Mug 12 oz - Sage". A customer
# names such a line by a colour word ("the green one") and a size said plainly or by comparison
# ("the smaller size"); these are the colour families a shade's name belongs to.
COLOUR_FAMILIES = {
    "green": {"green", "sage", "olive", "moss", "forest", "mint", "emerald", "khaki", "pine"},
    "beige": {"beige", "sand", "sandy", "oat", "oatmeal", "taupe", "camel", "natural", "linen", "stone"},
    "grey": {"grey", "gray", "slate", "charcoal", "ash", "smoke", "smoky", "graphite", "silver", "stone"},
    "pink": {"pink", "rose", "blush", "coral", "salmon", "fuchsia"},
    "white": {"white", "ivory", "cream", "off-white", "chalk", "snow", "pearl"},
    "blue": {"blue", "navy", "denim", "cobalt", "sky", "indigo", "teal", "azure", "slate"},
    "yellow": {"yellow", "mustard", "ochre", "lemon", "gold", "golden"},
    "orange": {"orange", "rust", "rusty", "terracotta", "copper", "amber", "tangerine"},
    "brown": {"brown", "amber", "walnut", "chocolate", "cocoa", "tan", "coffee", "mocha"},
    "red": {"red", "crimson", "scarlet", "burgundy", "wine", "cherry", "brick"},
    "black": {"black", "jet", "onyx", "ebony"},
    "clear": {"clear", "transparent", "see-through", "frosted"},
    "purple": {"purple", "lilac", "lavender", "plum", "violet", "mauve"},
}
_SIZE_ORDER = ["xs", "extra small", "small", "s", "petite", "standard", "regular", "medium", "m", "large", "l",
               "oversized", "xl", "extra large", "king"]
VARIANT_RE = re.compile(r"^(?P<base>.+?) (?P<size>\d+(?:\.\d+)? ?(?:oz|in|cm|mm|ml|L|l)|(?:Set|Pack) of \d+|\d+-Pack|"
                        r"Extra Small|Extra Large|XS|XL|S|M|L|Small|Medium|Large|Standard|Regular|Oversized|Petite|King)"
                        r" - (?P<colour>[A-Za-z][A-Za-z -]*)$")
SMALLER_RE = re.compile(r"\b(?:smaller|smallest|small|little|littler|shorter|lower capacity)\b", re.I)
LARGER_RE = re.compile(r"\b(?:bigger|biggest|big|larger|largest|large|taller|huge|oversized)\b", re.I)
# the customer tells a line apart from one remedied before ("the other green one")
OTHER_RE_LOOK = re.compile(r"\b(?:other|another|second|remaining|already|before|earlier|last week|previously)\b", re.I)


def variant_of(name: str) -> tuple[str, str, str] | None:
    """(base, size, colour) of a look-alike product's name, or None for a plain product name."""
    m = VARIANT_RE.match(name)
    return (m.group("base"), m.group("size"), m.group("colour")) if m else None


def _size_key(size: str) -> float:
    if m := re.search(r"\d+(?:\.\d+)?", size):
        return float(m.group(0))
    low = size.lower()
    return float(_SIZE_ORDER.index(low)) if low in _SIZE_ORDER else 0.0


def _says(text: str, word: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", text) is not None


def _number_words_as_digits(text: str) -> str:
    for w, n in _NUMBER_WORDS.items():
        if " " not in w and w != "both":
            text = re.sub(rf"\b{w}\b", str(n), text)
    return text


def described_lines(items: list[dict], text: str) -> list[dict]:
    """The look-alike lines of ``items`` that fit what ``text`` says of one: the product's noun ("mug"),
    then the colour (a family word, "green", or the shade's own name) and the size (said as it is
    named, "set of four", or by comparison, "the smaller size", among the sizes of those lines). An
    attribute the text does not speak of does not narrow; [] when no look-alike's product is named."""
    # not the identity details ("my name is Ana Green"): only what is said of the items
    low = re.sub(r"[^.;|!?]*\b(?:name|zip|e-?mail)\b[^.;|!?]*", " ", EMAIL_RE.sub(" ", text).lower())
    parsed = [(it, v) for it in items if (v := variant_of(it["name"]))]
    if not parsed:
        return []
    def noun_said(base: str) -> bool:
        last = base.lower().split()[-1]
        stem = last[:-1] if last.endswith("s") else last
        return re.search(rf"\b{re.escape(stem)}", low) is not None
    cands = [(it, v) for it, v in parsed if noun_said(v[0])]
    if not cands:
        return []
    # colour: the families the text names, and the shades' own names
    fams = {f for f, shades in COLOUR_FAMILIES.items() if any(_says(low, w) for w in shades)}
    def colour_fits(colour: str) -> bool:
        c = colour.lower()
        return _says(low, c) or any(c in COLOUR_FAMILIES[f] for f in fams)
    if any(colour_fits(v[2]) for _, v in cands):
        cands = [(it, v) for it, v in cands if colour_fits(v[2])]
    # size: as named ("set of 4", "medium"), else by comparison among the sizes of the lines of that product
    digits = _number_words_as_digits(low)
    named = [(it, v) for it, v in cands if _says(digits, v[1].lower())]
    if named:
        cands = named
    else:
        sizes = sorted({v[1] for it, v in parsed if v[0] == cands[0][1][0]}, key=_size_key)
        small, large = bool(SMALLER_RE.search(low)), bool(LARGER_RE.search(low))
        if len(sizes) > 1 and small != large:
            want = sizes[0] if small else sizes[-1]
            cands = [(it, v) for it, v in cands if v[1] == want]
    return [it for it, _ in cands]


@dataclass
class Facts:
    """What the customer has said so far (the latest mention wins)."""

    email: str | None = None
    zip: str | None = None
    first: str | None = None
    last: str | None = None
    order_id: str | None = None
    address: tuple[str, str, str, str] | None = None
    preference: str | None = None
    store_credit: bool = False
    texts: list[str] = field(default_factory=list)

    def read(self, text: str) -> None:
        self.texts.append(text)
        if m := EMAIL_RE.search(text):
            self.email = m.group(0)
        if m := ZIP_RE.search(text) or ZIP_AFTER_RE.search(text):
            self.zip = m.group(1)
        for m in [*NAME_RE.finditer(text), *BARE_NAME_RE.finditer(text)]:
            if m.group(1) not in NOT_NAMES and m.group(2) not in NOT_NAMES:
                self.first, self.last = m.group(1), m.group(2)
                break
        if m := ORDER_RE.search(text):
            self.order_id = m.group(0)
        for m in ADDRESS_RE.finditer(text):  # the last one said wins
            self.address = (m.group(1).strip(), m.group(2).strip(), m.group(3), m.group(4))
        if PREF_REPLACE_RE.search(text):
            self.preference = "replacement"
        elif PREF_REFUND_RE.search(text) and detect_intent(text) not in ("refund_status",):
            self.preference = "refund"
        if STORE_CREDIT_RE.search(text):
            self.store_credit = True

    def all_text(self) -> str:
        return " ".join(self.texts).lower()

