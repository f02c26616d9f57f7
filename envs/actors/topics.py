"""What an agent's message asks and does, read from a domain's topics (domain-neutral).

A domain declares its topics in ``topics.yaml`` beside its package (``load_topics``):
per topic the words people use for it (``words``: phrases, matched on word
boundaries, case-insensitive), optional question ``patterns`` (regexes), ``group``
(the topic also stands for any of these, e.g. a remedy is a refund, a replacement or
store credit), ``part_of`` (asked together with one of these, the topic is part of
it: the postcode of a new address is not the identity check's zip) and ``action`` (the
agent does it, the user does not tell it: "please confirm" about a refund proposes it,
about an email asks for it). ``entities`` name
values a user tool's arguments can take from the conversation (``order_id:
'O-\\d{5}'``); ``acts`` add patterns to the English defaults below. The engine holds
no domain's words: every topic comes from the domain's file. The module is long
because the English acts below (how people ask, offer, refuse, close) are data the
reader needs in one place.

``Recogniser.read(message)`` returns a ``Reading``: the topics the message *asks
about*, and whether the message is a question, asks what the user wants, offers
choices, asks for a confirmation, refuses, says something is done, or closes
("anything else?"). A topic counts as asked in a sentence that asks or requests
something, with or without a question mark ("I'll just need the postcode"), in a list
item under a line that asks ("I need two things:"), or in the sentence before a bare
"which would you prefer?" / "which one?"; not in a proposal to be answered yes or no
("shall I send the replacement?"), nor in a leading clause that gives a reason ("since
the email didn't match, ..."). Chat spellings ("whats ur zip") are read as the words
they stand for. How well this carries over to wordings its authors did not write is
measured by ``benchmarks/understanding.py`` on probe sets written blind to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pydantic import Field, field_validator

from envs.errors import SpecError
from envs.spec.loading import load_one
from envs.spec.schema import Spec

TOPICS_FILE = "topics.yaml"

# what keeps "what else ...?" a question about the order, not for a further request ("what else was in the box?")
_NOT_A_FACT = (r"(?!.*\b(?:order(?:ed)?|buy|bought|arrive[ds]?|came|come in|broke|broken|damaged|missing|box|parcel|package|receive[ds]?|"
               r"inside|charged|paid|happened|wrong with|in it)\b)")

# Generic English acts; a domain adds its own patterns under ``acts``.
DEFAULT_ACTS: dict[str, list[str]] = {
    # a sentence that asks for something without a question mark
    "request": [
        # an imperative, or a polite frame around one
        r"^(?:(?:please|kindly|pls|now|first|also|and|so|then|ok(?:ay)?|right|sorry|great|thanks|lastly|finally|next|just)[,!]? )*"
        r"(?:tell|give|send|share|confirm|provide|check|look|ask|let me know|drop|type|enter|read|go|state|indicate|describe|"
        r"explain|specify|list|include|verify|double-check|write|fill|pop|have a|take a|try|see if|find|reply|note down|say|"
        r"grab|add|mention|supply|quote|spell|remind)\b",
        r"\b(?:could|can|would|will) (?:you|u)\b", r"\b(?:please|pls|plz|kindly)\b(?! (?:note|be aware|allow|bear|hold|wait|don'?t))",
        r"\bI(?:'ll|'d| will| would| do| also| first| just| still| only)*(?: just| first| also| only| still)? (?:need|require)\b",
        r"\b(?:may|might|can|could) I (?:have|ask|get|grab|trouble|take|just|also|check|confirm|see|know)\b",
        r"\bI(?:'d| would) like to (?:know|ask|have|check|confirm|get)\b", r"\bif you (?:could|can(?!'t|not)|would|don'?t mind|'d)\b",
        r"\bmind (?:\w+ing)\b", r"\b(?:need|want) (?:you|u) to\b", r"\blet (?:me|us) (?:know|have)\b",
        r"\bwhat(?:'s| is| was) (?:the|your)\b", r"\bI(?:'m| am) (?:after|looking for) (?:the|your)\b",
        r"\b(?:just )?need (?:the|your|a)\b", r"\bhelp me (?:with|out with|find|locate)\b",
        r"\b(?:tell|give|send|share|drop|text) (?:me|us)\b", r"\blet (?:me|us) know\b",
        # a step named before what it needs ("Last step: the full name on the account.")
        r"\b(?:last|next|final|one more|verification|security) (?:step|thing|detail|question|check)\b\s*:", r"\bworth (?:asking|checking|a look|trying|a knock)\b",
        r"\b(?:would|will|can) (?:do the job|do nicely|do fine|do instead|do too|do as well|work instead|work too|help|"
        r"be (?:great|helpful|perfect|ideal|handy|fine|enough))\b", r"\bworks? (?:as well|too|fine|just as well|instead)\b",
        # a detail named as all that is needed ("Your postcode will do.", "The email you log in with is enough.")
        r"\b(?:your|the) (?:[\w'-]+ ){0,6}?(?:will|would|'ll|should) do\b(?! (?:that|it|this|so|the|a|an|my|our|what)\b)",
        r"\b(?:your|the) (?:[\w'-]+ ){0,6}?(?:is|are|would be|will be) (?:enough|plenty|sufficient|all (?:I|we) need)\b",
        # an imperative after a leading clause ("If you've got a sec, have a look ...")
        r"[,:;]\s+(?:(?:just|then|please|kindly)\s+)?(?:tell|give|send|share|check|look|have a|take a|knock|ask|pop|try|see if|"
        r"confirm|provide|drop|type|pop)\b",
    ],
    # a sentence that opens with a question word (a "shall I" inside it is not an offer)
    "question_word": [r"^(?:(?:and|so|ok(?:ay)?|right|great|now|then)[,!]? )*(?:what|which|where|who|whom|whose|when|how)\b"],
    # a sentence worded as a question though it lacks the question mark
    "question": [
        r"^(?:(?:and|so|also|ok(?:ay)?|right|sorry|great|thanks|now|then|lastly|first|hmm|ah|oh)[,!]? )*"
        r"(?:what|which|where|who|whom|whose|when|how|why|is|are|was|were|do|does|did|could|can|would|will|have|has|had|"
        r"may|might|shall|should|any chance|any idea)\b(?! (?:do|be|say)\b\.?$)",
    ],
    # the agent proposes to do something and wants a yes or no: what it names is not asked for
    "offer": [
        r"\bwould you like me to\b", r"\bdo you want me to\b", r"\bwant me to\b", r"\b(?:shall|should) I\b",
        r"\b(?:may|can) I go ahead\b", r"\bI can\b.*\bif you(?:'d)? like\b", r"\bshall we\b",
        r"\b(?:is it|would it be|are you) (?:ok(?:ay)?|alright|all right|fine|happy) (?:if I|to|for me to|with me|if we)\b",
        r"\bok(?:ay)? (?:to|if I|for me to)\b", r"\b(?:happy|ready) for me to\b", r"\bgo ahead and\b.*\?",
        r"\b(?:do I have|can I get|may I have|I'll need) your (?:ok|okay|permission|go-ahead|approval|consent|yes)\b",
        # a value the agent already has, read back ("is 55 Elm Road still right?")
        r"^(?:(?:and|so|just to confirm|to confirm|just checking)[,:]? )*(?:is|are) (?=.*(?:\d|@))(?=.*\b(?:still|right|correct)\b)",
        r"\bjust to (?:confirm|double[- ]?check|check|be sure|make sure)\b", r"\bto confirm, you\b",
        r"\bwould you like\b.{0,60}\b(?:sent|emailed|texted|forwarded|copied|e-mailed)\b",
        r"\b(?:reply|say|answer|type|respond) (?:with )?(?:a )?(?:yes|ok(?:ay)?)\b", r"\bconfirm (?:that )?(?:I|we) (?:should|can|may|will)\b",
        r"\byes or no\b",
        r",\s*(?:correct|right|yes|is that right|is that correct)\?\s*$",
    ],
    "choice": [
        r"\bwhich (?:one |option )?(?:would|do|should|will) you\b", r"\bwould you (?:prefer|rather|like)\b",
        r"\bdo you (?:prefer|want)\b", r"\byour (?:choice|preference|pick)\b", r"\b(?:prefer|rather)\b.*\bor\b",
        r"\boptions?\b", r"\bchoose\b", r"\bhow would you like (?:this|it|us|me)\b", r"\bor would you\b",
        r"\b(?:either|instead)\b.*\?",
        r"\bwhat (?:would|will|does|do you think would) (?:suit|work for|be best for|be better for) you\b",
        r"\bwhich (?:suits|works|would suit|would work|sounds better)\b", r"\bwhat works (?:best )?for you\b",
        r"\bwhich (?:do|would|will) you (?:want|like|choose|pick|go for)\b", r"\byour call\b", r"\bup to you\b.*\?",
    ],
    # the agent saying it must check something ("first I need to confirm you are the account holder"):
    # no yes is asked for
    "self_check": [
        r"\b(?:I|we)(?:'ll| will| need to| have to| must|'d like to| want to| just need to| first need to| can)? "
        r"(?:just |first |quickly )?(?:confirm|verify|check|make sure)\b",
        r"\blet me (?:just |quickly )?(?:confirm|verify|check)\b", r"\bto (?:confirm|verify) (?:your|you|the|that it)\b",
    ],
    "confirm": [
        r"(?<!how )(?<!what )(?<!where )(?<!why )(?<!who )\b(?:shall|should|may|can) I\b(?! (?:help|assist)\b)",
        r"\bwould you like me to\b", r"\bdo you want me to\b",
        r"\b(?:can|could) you confirm\b", r"\bplease confirm\b", r"\bconfirm (?:that|you|if|whether)\b",
        r"\bis (?:that|this) (?:right|correct|ok(?:ay)?|alright|fine)\b", r"\bok(?:ay)? (?:to|if I|for me to)\b",
        r"\b(?:go|going) ahead\b.*\?", r"\b(?:happy|ready|fine|alright) (?:for me )?to (?:proceed|go ahead)\b",
        r"\bwant me to\b", r"\bshould we\b", r"\bshall we\b", r"\bare you (?:sure|ok|okay|happy) (?:with|for|if)\b",
        r"\bdoes that (?:work|sound)\b", r"\bsound good\b", r"\bproceed\?",
    ],
    "refusal": [
        r"\bcan(?:no|')?t\b", r"\bunable to\b", r"\bnot able to\b", r"\bwon'?t be able\b", r"\b(?:isn'?t|not) eligible\b",
        r"\bno longer\b", r"\btoo late\b", r"\bnot possible\b", r"\bisn'?t possible\b", r"\bnot allowed\b",
        r"\b(?:outside|past|beyond) (?:the|our)\b.*\b(?:window|period|limit)\b", r"\bI'?m afraid\b",
        r"\bnot something (?:I|we) can\b", r"\bnothing (?:more |else )?(?:I|we) can\b", r"\bwon'?t be possible\b",
        r"\bhave to decline\b", r"\bnot in a position to\b", r"\bcould ?n[o']t\b",
    ],
    "done": [
        r"\b(?:is|are|has been|have been|was|were) (?:now )?(?:done|complete|completed|processed|issued|sent|"
        r"cancell?ed|changed|updated|refunded|opened|arranged|submitted|filed|raised|scheduled|on (?:its|their) way)\b",
        r"\bI(?:'ve| have) (?:now |just |gone ahead and )?\w+ed\b", r"\ball (?:set|sorted|done)\b", r"\bdone\b",
        r"\bthat'?s (?:taken care of|sorted|handled)\b", r"\bgoing out to you\b",
    ],
    # asks whether what the agent said was clear or helped: answered with a plain yes
    "check_in": [
        r"\b(?:does|did|do) (?:that|this|it|all that) (?:help|make sense|answer|clear|clarify|sound clear|explain)\b",
        r"\bis (?:that|this|everything) (?:clear|helpful|okay|ok)\b(?! (?:to|if|with))", r"\bmake sense\?",
        r"\b(?:any|have you got any) (?:other )?questions about (?:that|this)\b",
    ],
    # the agent asks the user to wait, or names a wait ("bear with me", "it can take 5-7 business
    # days"): something a hurried or angry user reacts to
    "delay": [
        r"\b(?:one|a|just a) (?:moment|minute|sec|second)\b", r"\bbear with me\b", r"\bhold on\b",
        r"\bgive me a (?:moment|minute|sec|second|few)\b",
        r"\b(?:takes?|taking|within|up to|allow|wait(?:ing)?(?: for)?|in)\s+(?:up to\s+)?(?:\d+|a few|several|some|a couple of)"
        r"(?:\s*(?:-|to)\s*\d+)?\s+(?:business |working )?(?:days|weeks|hours)\b",
    ],
    # asks what the user wants ("how can I help?"): answered with the request
    "what_wanted": [
        r"\bhow (?:can|may|could|shall) I (?:help|assist)\b", r"\bwhat can I (?:do|help you with)\b",
        r"\bwhat (?:do you need|brings you|seems to be|is this about|can we do)\b", r"\bhow can we help\b",
        r"\bwhat (?:would you like|do you want) (?:help|me to help) with\b",
        r"\bwhat you(?:'d like| would like| need| want)(?: me)?(?: to)? (?:help|sort|look at|do)\b(?: \w+)* with\b",
        r"\btell me (?:in (?:a|one) (?:sentence|line|word) |briefly |quickly )?what (?:you need|the problem is|happened|is wrong|the issue is)\b",
        r"\bwhat(?:'s| is) (?:the problem|the issue|going on|wrong)\b(?! with (?:the|your) (?:email|zip))",
    ],
    "closing": [
        r"\b(?:is there|was there|do you have|do you need|can I (?:help (?:you )?with|do)) (?:anything|something) else\b",
        r"\banything else (?:I|we) (?:can|could)\b", r"\banything else\??\s*$", r"\bany other (?:questions?|issues?|thing)\b",
        r"\bis that everything\b", r"\bwas there anything\b", r"\bother than that\b.*\?", r"\bhave a (?:good|great|nice)\b",
        # "what else can I help you with?", "anything more I can do?": the same question in other words
        r"\bwhat else (?:can|could|may|shall|should) (?:I|we)\b", r"\bwhat else (?:do|did|would) you (?:need|want|have)\b",
        r"\banything (?:more|further) (?:I|we) (?:can|could)\b", r"\b(?:help|assist) (?:you )?with anything (?:else|more)\b",
        r"\bis there (?:more|something more) (?:I|we) can\b",
        # a customer who said it had several things, asked for the next one ("what's the second thing?")
        r"\b(?:what(?:'s| is| was)|and) (?:the |your )?(?:next|second|third|other|last|remaining) (?:thing|request|issue|matter|point|question)s?\b[^.?!]*\?",
        r"\bis there (?:a|another|any) (?:second|third|next|other|further) (?:thing|request|issue|matter|point)\b",
        r"\bwhat (?:are|were) the other (?:things|requests|issues)\b", r"\bwhat(?:'s| is) next\s*\?",
        r"\byou (?:said|mentioned) (?:a few|several|some|two|three|other|more) (?:things|requests|issues)\b[^.?!]*\?",
        r"\bthanks? for (?:contacting|reaching|getting in touch|your patience)\b", r"\bglad (?:I|we) could help\b",
    ],
    # a question for a further request, in any words ("what else?", "is there something more?",
    # "what's left?", "anything further?"): a customer with a request still to raise raises it;
    # also read as closing. Not a question about a fact ("what else was in the box?")
    "further": [
        r"\bwhat else\b" + _NOT_A_FACT,
        r"\b(?:anything|something) (?:more|further|else)\b" + _NOT_A_FACT,
        r"\bis there (?:more|anything more|something more|any more|another one|one more)\b" + _NOT_A_FACT,
        r"\b(?:any|some) (?:more|other|further) (?:requests?|questions?|issues?|problems?|matters?|concerns?|things?|business)\b",
        r"\b(?:any|anything) (?:more|further)\s*\??\s*$", r"\bmore (?:to (?:sort|do|fix|cover|go through)|I can (?:do|help))\b",
        r"\b(?:the|your) (?:other|next|second|third|fourth|last|remaining|final|further) (?:one|bit|part|item on your list)\b[^.?!]*\?",
        r"\bwhat(?:'s| is| was| are)? (?:left|remaining|still open|still outstanding|the rest|on your list|on the list|on your mind)\b",
        r"\b(?:is|was) (?:that|this) (?:it|all|everything)\b[^.?!]*\?", r"\bor (?:is there |was there |do you have )?(?:more|anything else|something else)\b" + _NOT_A_FACT,
        r"\b(?:go on|carry on|fire away|shoot)\b[^.?!]*\b(?:else|next|other|more)\b", r"\b(?:next|another|other) (?:request|question|issue|thing)\b[^.?!]*\?",
        r"^(?:(?:and|so|ok(?:ay)?|right|alright|good|great)[,!]? )*what(?:'s| is)? (?:next|now)\s*[?.!]?\s*$", r"\bwhat(?:'s| is) the (?:other|next|second|third|last) (?:one|thing|request|issue|problem|question)\b",
    ],
}

_REFERS_BACK = re.compile(r"\bwhich (?:one|of (?:them|those|these|the (?:two|three|four|above)))\b|"
                          r"\b(?:check|ask|speak|talk|have a word) (?:with|to) (?:them|him|her|those people)\b|\bask them\b|"
                          r"\b(?:double-?check|re-?check|check|confirm|verify|re-?send|resend) (?:it|that|this)\b(?! (?:with|for|out))|"
                          r"\b(?:take a look|have a look|look|check|search) (?:there|in there|over there|in those)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.?!])(?<!\bno\.)(?<!\bNo\.)(?<!e\.g\.)(?<!i\.e\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)\s+")
# chat spellings, read as the words they stand for (before any topic or act is matched)
_CHAT = [(re.compile(p, re.I), r) for p, r in [
    (r"\bwhats\b", "what's"), (r"\bwheres\b", "where's"), (r"\bur\b", "your"), (r"\bu\b", "you"), (r"\bpl[sz]\b", "please"),
    (r"\bplz\b", "please"), (r"\baddy\b", "address"), (r"\bthx\b", "thanks"), (r"\bpls\b", "please"),
    (r"\b(order|ref|reference|confirmation) ?#", r"\1 number"),
]]
# markdown emphasis and code marks ("**Check around your porch**", "`#O-12345`"): read as plain words
_MARKDOWN = re.compile(r"\*\*|__|`|(?<!\w)\*(?=\w)|(?<=\w)\*(?!\w)")
# a leading clause giving a reason ("since the email didn't match, ..."): what it names is not asked
_REASON = re.compile(
    r"^(?:(?:since|because|as|now that|given that|seeing as)\b|if (?:the|your|that|this) \w+(?: \w+)? (?:isn'?t|doesn'?t|didn'?t|"
    r"won'?t|can'?t|is not|does not|did not|fails?|failed|bounced|turns? up|arrives?|shows? up|comes? back|is found|appears?)\b)"
    r"[^,:;\u2014]*[,:;\u2014]\s*", re.I)
# a list item ("- your email", "1. the zip"): asked when the line that opened the list asked
_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


# The longest stretch read as one sentence: a longer run without a sentence end (a pasted log, a
# wall of text) is read in pieces of at most this many characters, cut at a space. It bounds what
# any pattern (the domain's, with its ``.*``) is matched against, so reading a message is linear in
# its length; no sentence a person writes comes near it.
MAX_SENTENCE_CHARS = 400


# How much of one message a scripted user reads: of a longer one, its first and last halves of this
# (where a reply's greeting and its questions are), as a person skims a wall of text. A support or
# tutoring reply is a few hundred characters; at the 200,000-character cap of a message, reading it
# all would cost seconds of CPU on the event loop the episodes in flight share.
MAX_READ_CHARS = 12_000


def skim(message: str, limit: int = MAX_READ_CHARS) -> str:
    """``message`` itself when it is at most ``limit`` characters; else its first and last
    ``limit // 2`` characters, cut at a space, on two lines (what the scripted users read)."""
    if len(message) <= limit:
        return message
    half = limit // 2
    head, tail = message[:half], message[-half:]
    cut = head.rfind(" ", half // 2)
    head = head[:cut] if cut > 0 else head
    cut = tail.find(" ", 0, half // 2)
    tail = tail[cut + 1:] if cut >= 0 else tail
    return head + "\n" + tail


def _pieces(sent: str) -> list[str]:
    """``sent`` in pieces of at most ``MAX_SENTENCE_CHARS``, cut at the last space before the limit."""
    out = []
    while len(sent) > MAX_SENTENCE_CHARS:
        cut = sent.rfind(" ", MAX_SENTENCE_CHARS // 2, MAX_SENTENCE_CHARS)
        cut = MAX_SENTENCE_CHARS if cut < 0 else cut
        out.append(sent[:cut].strip())
        sent = sent[cut:].strip()
    out.append(sent)
    return [p for p in out if p]


def _sentences(message: str | None) -> list[tuple[str, bool]]:
    """The message's sentences (chat spellings read plainly), each with whether it is a list item."""
    out = []
    # a line break written out ("...changed.\\nShall I...") is one, as a JSON-escaped reply sends it
    for line in (message or "").replace("\\n", "\n").splitlines():
        m = _ITEM.match(line)
        body = line[m.end():] if m else line
        i = 0
        for sent in (x.strip() for x in _SENTENCE.split(body)):
            for piece in _pieces(sent) if sent else ():
                out.append((_plain(piece), bool(m) and i == 0))
                i += 1
    return out


def _plain(text: str) -> str:
    text = _MARKDOWN.sub("", text)
    for rx, rep in _CHAT:
        text = rx.sub(rep, text)
    return text


class TopicSpec(Spec):
    """One topic: the words people use for it, optional question patterns, the topics it stands for."""

    words: list[str] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list)
    group: list[str] = Field(default_factory=list)
    # asked together with one of these, this topic is a part of it (a postcode within a new address)
    part_of: list[str] = Field(default_factory=list)
    # something the agent does (cancel, refund), not a fact the user gives: "please confirm" about
    # it proposes; "please confirm" about a fact (your email) asks for the fact
    action: bool = False
    # the entity (``entities``) whose value answers this topic: a user asked for it who has said a
    # value in its own request tells it ("Which order?" - "It's O-12345, as in my message.")
    entity: str | None = None

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, v: list[str]) -> list[str]:
        for p in v:
            try:
                re.compile(p)
            except re.error as e:
                raise ValueError(f"pattern {p!r} does not compile ({e})") from None
        return v


class TopicsFile(Spec):
    """A domain's ``topics.yaml``."""

    topics: dict[str, TopicSpec] = Field(default_factory=dict)
    entities: dict[str, str] = Field(default_factory=dict)
    acts: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("acts")
    @classmethod
    def _known_acts(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        for k in v:
            if k not in DEFAULT_ACTS:
                raise ValueError(f"unknown act {k!r} (known: {', '.join(DEFAULT_ACTS)})")
        return v


@dataclass
class Reading:
    """What one agent message asks and does (see ``Recogniser.read``)."""

    topics: set[str] = field(default_factory=set)
    question: bool = False
    choice: bool = False
    confirm: bool = False
    refusal: bool = False
    done: bool = False
    closing: bool = False
    what_wanted: bool = False
    check_in: bool = False  # "does that help?", "does that make sense?"
    delay: bool = False  # asks the user to wait, or names a wait ("it can take 5-7 business days")
    further: bool = False  # asks whether there is a further request ("what else?", "is there something more?")
    # topics mentioned anywhere (asked or not): what a confirmation or refusal is about
    mentioned: set[str] = field(default_factory=set)
    # topics named in a proposal or read-back to be answered yes or no ("Is that the order you
    # mean?"): not asked for, but a user holding that fact answers with it
    proposed: set[str] = field(default_factory=set)


def _phrase(w: str) -> str:
    return r"(?<![\w-])" + re.escape(w.lower()).replace(r"\ ", r"[\s-]+") + r"(?![\w])"


@dataclass
class Recogniser:
    """Reads agent messages with one domain's topics (see the module docstring)."""

    spec: TopicsFile = field(default_factory=TopicsFile)

    @cached_property
    def _topic_res(self) -> dict[str, list[re.Pattern]]:
        # one alternation per topic (its words, then its patterns): a message is read in a
        # handful of searches per sentence, not one per word
        out = {}
        for name, t in self.spec.topics.items():
            parts = [_phrase(w) for w in t.words if w.strip()] + [f"(?:{p})" for p in t.patterns]
            out[name] = [re.compile("|".join(parts), re.I)] if parts else []
        return out

    @cached_property
    def _topic_matchers(self) -> list[tuple[str, re.Pattern | None, frozenset | None, re.Pattern | None]]:
        """Per topic: (name, its words' alternation, the words' first tokens, its patterns' alternation).

        The words are searched only in a sentence that holds one of their first tokens (a set
        look-up per sentence instead of a regex search per topic); None as the tokens: a word
        that does not start with an ASCII word character, always searched."""
        out = []
        for name, t in self.spec.topics.items():
            words = [w for w in t.words if w.strip()]
            firsts: set[str] | None = set()
            for w in words:
                m = re.match(r"[a-z0-9_]+", w.strip().lower())
                if m is None or not w.isascii():
                    firsts = None
                    break
                firsts.add(m.group(0))
            wre = re.compile("|".join(_phrase(w) for w in words), re.I) if words else None
            pre = re.compile("|".join(f"(?:{p})" for p in t.patterns), re.I) if t.patterns else None
            out.append((name, wre, None if firsts is None else frozenset(firsts), pre))
        return out

    @cached_property
    def _act_res(self) -> dict[str, list[re.Pattern]]:
        return {a: [re.compile("|".join(f"(?:{p})" for p in DEFAULT_ACTS[a] + self.spec.acts.get(a, [])), re.I)]
                for a in DEFAULT_ACTS}

    @cached_property
    def _action_topics(self) -> set[str]:
        """Topics the agent does rather than the user tells (``action``), and any group of them."""
        acts = {n for n, t in self.spec.topics.items() if t.action}
        return acts | {n for n, t in self.spec.topics.items() if t.group and set(t.group) <= acts}

    @property
    def names(self) -> set[str]:
        return set(self.spec.topics)

    def _topics_in(self, text: str) -> set[str]:
        hit = self._seen.get(text)
        if hit is None:
            hit = self._seen[text] = frozenset(self._find_topics(text))
            if len(self._seen) > 4096:  # a long run: keep the cache bounded
                self._seen.clear()
        return set(hit)

    @cached_property
    def _seen(self) -> dict[str, frozenset]:
        return {}

    def _find_topics(self, text: str) -> set[str]:
        # ASCII text: its word tokens, to skip the topics none of whose words can start here
        tokens = set(re.findall(r"[a-z0-9_]+", text.lower())) if text.isascii() else None
        found = set()
        for n, wre, firsts, pre in self._topic_matchers:
            if pre is not None and pre.search(text):
                found.add(n)
            elif wre is not None and (tokens is None or firsts is None or not firsts.isdisjoint(tokens)) and wre.search(text):
                found.add(n)
        # a part of another topic asked with it, unless the sentence also asks what the part is
        # usually asked with ("your email and ZIP code, and the new address": the ZIP is the check's)
        found -= {n for n in found if any(o in found for o in self.spec.topics[n].part_of)
                  and not found - {n} - set(self.spec.topics[n].part_of)}
        members = {m for t in self.spec.topics.values() for m in t.group}
        if found <= members:  # a member stands for its group, unless the sentence is about something else
            for n, t in self.spec.topics.items():
                if any(m in found for m in t.group):
                    found.add(n)
        return found

    def _is(self, act: str, text: str) -> bool:
        return any(r.search(text) for r in self._act_res[act])

    def read(self, message: str) -> Reading:
        """The message's topics and acts (see the module docstring)."""
        r = Reading()
        message = skim(message or "")
        prev: set[str] = set()
        list_asks = False  # the line before a list asked ("I'll need two things:")
        list_topics: set[str] = set()  # what the lines of a list (and its header) named
        for s, item in _sentences(message):
            here = self._topics_in(_REASON.sub("", s))
            r.mentioned |= self._topics_in(s)
            asks = "?" in s or self._is("request", s) or self._is("question", s) or (item and list_asks)
            if not item:
                list_asks = asks and s.rstrip().endswith(":")
            # a yes/no proposal, not a choice ("or" in lower case: "OR 97201" is a state)
            if asks and here and self._is("offer", s) and not self._is("question_word", s) and not re.search(r"\bor\b", s):
                r.proposed |= here
                here = set()  # a proposal to be answered yes or no: it names these, it does not ask for them
            further = self._is("further", s)
            closing = self._is("closing", s) or further
            r.further |= further
            r.closing |= closing
            if asks and not (closing and not here):
                r.question = True
                # "which would you prefer?" / "which one is it?" ask about what the sentence before named
                if _REFERS_BACK.search(s):
                    r.topics |= here | prev
                elif not self._is("offer", s):  # "would you like me to do that?" asks for no fact named before
                    r.topics |= here or (prev if self._is("choice", s) else set())
                else:
                    r.topics |= here
            if asks and self._is("choice", s):
                r.choice = True
            # "please confirm your email and zip" asks for facts; it proposes nothing to say yes to
            asks_facts = bool(here - self._action_topics)
            if (asks and self._is("confirm", s) and not asks_facts and not self._is("what_wanted", s)
                    and not self._is("question_word", s) and not self._is("self_check", s)):
                r.confirm = True
            r.refusal |= self._is("refusal", s) and not self._is("confirm", s)
            r.done |= self._is("done", s)
            r.what_wanted |= asks and self._is("what_wanted", s)
            r.check_in |= asks and self._is("check_in", s)
            r.delay |= self._is("delay", s)
            # the sentence before a question is the list, when a list came before it ("Which of these?")
            if item:
                list_topics |= self._topics_in(s)
                prev = list_topics
            else:
                list_topics = set(self._topics_in(s)) if s.rstrip().endswith(":") else set()
                prev = here
        return r

    def first_mentions(self, message: str) -> dict[str, int]:
        """The order in which ``message`` asks for the topics it names (a number per topic, smaller
        first: the sentence that asks, then the place in it), a sentence that asks nothing counting
        after every one that does: what was asked first is answered first ("your zip and email?":
        the zip, then the email; a carrier note naming a neighbour before "please check your
        doorstep, and ask your neighbours" does not put the neighbours first)."""
        out: dict[str, int] = {}
        for i, (s, item) in enumerate(_sentences(skim(message or ""))):
            asks = "?" in s or self._is("request", s) or self._is("question", s) or item
            base = (i if asks else i + 10_000) * 100_000
            for name, wre, _firsts, pre in self._topic_matchers:
                hits = [m.start() for rx in (wre, pre) if rx is not None for m in [rx.search(s)] if m]
                if hits and name not in out or hits and base + min(hits) < out[name]:
                    out[name] = base + min(hits)
        for name, t in self.spec.topics.items():  # a group is named where its first member is
            at = [out[m] for m in t.group if m in out]
            if at and name not in out:
                out[name] = min(at)
        return out

    def entity(self, name: str, texts: list[str]) -> str | None:
        """The last value of entity ``name`` found in ``texts`` (None if no text holds one)."""
        pat = self.spec.entities.get(name)
        if pat is None:
            return None
        found = None
        for t in texts:
            for m in re.finditer(pat, t or ""):
                found = m.group(0)
        return found


def load_topics(package_dir: Path | None) -> Recogniser:
    """The domain's ``topics.yaml`` as a ``Recogniser`` (none: a recogniser with no topics).

    Raises SpecError naming the file and field when the file is malformed or a group
    names a topic the file does not declare."""
    path = Path(package_dir) / TOPICS_FILE if package_dir is not None else None
    if path is None or not path.exists():
        return Recogniser()
    spec = load_one(TopicsFile, path)
    for name, t in spec.topics.items():
        for field_name in ("group", "part_of"):
            for i, g in enumerate(getattr(t, field_name)):
                if g not in spec.topics:
                    raise SpecError(f"{path}: topics.{name}.{field_name}.{i}: unknown topic {g!r}")
    for name, t in spec.topics.items():
        if t.entity is not None and t.entity not in spec.entities:
            raise SpecError(f"{path}: topics.{name}.entity: unknown entity {t.entity!r}")
    for name, pat in spec.entities.items():
        try:
            re.compile(pat)
        except re.error as e:
            raise SpecError(f"{path}: entities.{name}: pattern does not compile ({e})") from None
    return Recogniser(spec)
