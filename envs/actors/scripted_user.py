"""The generic scripted user: an offline, deterministic simulated user for any domain.

``ScriptedUser`` is deterministic given (persona, scenario, seed). It reads each agent
message with the domain's topics (``envs.actors.topics``: which topics it asks about,
whether it asks, offers a choice, asks for confirmation, refuses, closes), and its own
lines come from the domain's words (greeting, closing) and replies (``envs.actors.replies``:
"I don't know", "okay", ... in the persona's register). Each turn it

1. changes its mind the first time the agent does what ``mind_change`` listens for;
   raises the scenario's ``more_requests`` one at a time, the next once the agent has handled
   the one before (done it, refused it, asked "anything else?", or told it something without a
   question for it);
2. leaves, when no further request is left, in its persona's closing words, once the episode's state holds the goal
   (``UserTurn.goal_met``), or when a ``done_when`` phrase is said (for goals that change
   nothing), or after accepting a second refusal, or when the agent closes ("anything
   else?") and nothing it wanted is outstanding, or after two turns without progress; after
   a refusal it leaves taking the refusal, not thanking;
3. reveals a hidden fact once the agent asks about its topic (any wording), in the order the
   agent asked for them, or uses one of
   its ``asked_by`` words in a question, or puts a candidate for it to the user ("is that the
   order you mean?": it says its fact instead of a yes); gives its preference when offered a
   choice; asked again for a fact it gave, says it once more ("as I said"), but not in reply
   to a read-back or beside a new question;
4. calls a user tool when asked about its topic, with arguments from the episode
   (``{order_id}``), and says what it found in its own words (the domain's ``reports``), checks
   in the order asked and told as one account, or that it cannot check (never the error);
5. answers a confirmation request with yes (or no, if the scenario says so); "does that
   help?" with an okay;
6. answers a question it has no fact for with "I don't know" in its register;
7. never says the same message twice (a repeat takes another variant, or it leaves), nor
   a situation's line twice in an episode.

The drawn situation's lines wrap the message where they fit (``envs.actors.enactment``), and
its ``voice`` gives the user's own words its mood (an angry turn's yes is "Yes. Just do it.", not
"Yes, please go ahead." with "Disgraceful!" after it); when the situation cannot be played at this
point the reply says so (``relabel``). The module
is long because these seven behaviours are one reply function, read best in one place.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import Any

from envs.actors.enactment import Point, enact, realise, stable_hash
from envs.actors.protocols import STOP_TOKEN, UserReply, UserTurn
from envs.actors.replies import Replies
from envs.actors.topics import Reading, Recogniser
from envs.actors.user_tools import resolve_arguments
from envs.spec.words import ScriptedWords

# Kept for the LLM user, which imports them.
CONFIRM = re.compile(
    r"\b(shall i|should i|would you like me to|do you want me to|can you confirm|please confirm|"
    r"confirm (?:that|you)|is that (?:right|correct)|ok(?:ay)? to proceed|may i proceed|want me to go ahead)\b",
    re.I,
)
REFUSAL = re.compile(r"\b(can(?:no|')t|unable to|not able to|won't be able|not eligible|isn't eligible)\b", re.I)

# a question that asks for more ("a second matter?", "the rest?"): with a request still to raise, it is raised
_FURTHER_CUE = re.compile(r"\b(?:else|more|other|another|next|further|remaining|second|third|fourth|last|additional|new)\b(?:\s+\w+){0,2}?\s+"
                          r"(?:things?|matters?|requests?|issues?|problems?|questions?|quer(?:y|ies)|points?|concerns?|business|topics?|"
                          r"bits?|items? on your list)\b|\b(?:else|more|next|left)\s*\?", re.I)

# the kind of help an agent tool gives, as a customer names it ("Just make sure the money comes back."):
# a curt goodbye's `done` (a domain's words pick by it; a domain without such tools has none)
DONE_KINDS = {"refund_items": "refund", "refund_duplicate_charge": "refund", "send_replacement": "replacement",
              "cancel_order": "cancel", "change_shipping_address": "address", "escalate_to_human": "handover",
              "create_ticket": "handover", "open_carrier_claim": "claim"}
# the remedy a proposal is about, as a curt yes names it ("Yes, refund it."): one action topic named
ACTS = ("refund", "replacement", "cancel")

IDLE_LIMIT = 2  # turns without progress before the user leaves
LONG_WAIT = 4  # agent messages with nothing done for the user: a wait a mood reacts to
REFUSALS_ACCEPTED_AFTER = 2


_GREETS = re.compile(r"(?:hello|hi|hiya|hey|morning|thanks|thank you|good (?:morning|afternoon|evening|day))\b", re.I)


def _lower_first(text: str) -> str:
    """``text`` continuing a sentence: its first letter lowered, unless it is "I" or an acronym."""
    first = text.split(" ", 1)[0]
    if first in ("I",) or first.startswith("I'") or (len(first) > 1 and first[:2].isupper()):
        return text
    return text[:1].lower() + text[1:]


_OPENER = re.compile(r"^(?:(?:sure|okay|right|yes|fine|of course|oh|now|well|now then|let me see|let me think|and)[,.]? )+", re.I)


def _bare(text: str) -> str:
    """``text`` without its opener ("Sure, the zip is 40503." -> "the zip is 40503."): continuing a
    sentence ("..., and the zip is 40503.", "As I said, the zip is 40503."), it carries none."""
    return _OPENER.sub("", text) or text


def _spoken(parts: list[str]) -> str:
    """The parts of an answer as one message: a bare value ("x@example.com") goes on into the next
    part ("x@example.com, zip is 40503."), not into a run-on ("x@example.com Zip is 40503.")."""
    out = ""
    for part in (x for x in parts if x):
        if out and not out.rstrip().endswith((".", "!", "?", ":")):
            out = out.rstrip() + ", " + _lower_first(part)
        else:
            out = f"{out} {part}" if out else part
    return out


def _has_any(text: str, words: list[str]) -> bool:
    low = text.lower()
    return any(w.lower() in low for w in words)


@dataclass
class ScriptedUser:
    """A deterministic, templated simulated user (see the module docstring)."""

    name: str = "scripted"
    revealed: set[str] = field(default_factory=set)
    restated: set[str] = field(default_factory=set)
    tools_used: set[int] = field(default_factory=set)
    mind_changed: bool = False
    raised: int = 0  # how many of the scenario's ``more_requests`` it has raised
    pending: bool = False
    withheld: bool = False
    refusals: int = 0
    idle_turns: int = 0
    said: set[str] = field(default_factory=set)
    lines_said: set[str] = field(default_factory=set)  # situation lines used (each said once)
    cold_seen: bool = False
    # the voice of the last cold mood played (an angry or hurried turn): it carries on in the
    # customer's own words for the rest of the episode, not an outburst and then a form
    mood: dict[str, str] = field(default_factory=dict)
    uses: dict[str, int] = field(default_factory=dict)
    variants_said: set[str] = field(default_factory=set)  # the replies of its own it has said
    thanked: bool = False  # thanked for the result; the next message gets its goodbye
    _words: Any = None
    _task: str = ""
    _seed: int | None = None
    _done_now: bool = False
    _refused_now: bool = False
    refused_seen: bool = False  # the agent has refused something this episode
    _helped_now: bool = False  # the agent did something for it since its last message
    helped_any: bool = False  # the agent has done something for it this episode (a state-changing call)
    _react: bool = False  # the agent's message gives a mood something to react to
    _reasons: set[str] = field(default_factory=set)  # what it reacts to (enactment.Point.reasons)
    _slow: bool = False  # the help came only after a wait (a refusal, a delay, a long exchange)
    _pause: bool = False  # it comes back from checking something, or was asked to wait
    _deciding: bool = False  # the agent's message puts a proposal or a choice to it
    _dims: dict[str, str] = field(default_factory=dict)  # the persona's own dimension values
    agreed: bool = False  # said yes (or its choice) to a proposal the agent has not acted on yet
    _done_kind: str = ""  # what the agent's last helping call did (DONE_KINDS)

    async def reply(self, turn: UserTurn) -> UserReply:
        own = self._dims = dict((turn.persona.dimensions if turn.persona else {}) or {})
        say = self._words = turn.words.scripted
        self._task, self._seed = turn.task.id, turn.seed
        sc = turn.task.scenario
        replies: Replies = turn.replies or Replies()
        rec: Recogniser = turn.topics or Recogniser()
        lines = turn.situation.scripted if turn.situation else None
        cold = replies.is_cold(own) or self.cold_seen

        if turn.agent_message is None:
            dims = self._voiced(own, lines, opening=True)
            self._react = self._pause = self._helped_now = self._deciding = False
            self._reasons = {"opening"}
            en = enact(lines, self._point(turn, lines, cold, opening=True, answering=False), turn.rng)
            self.withheld = bool(lines and lines.withhold)
            facts = [] if self.withheld else sc.known_facts
            body = " ".join([self._request(sc, 0, replies, dims), *facts])
            # one aside a message: none beside the situation's own (small talk), none in an angry voice
            aside = "" if en.aside else realise(say.pick(say.opening_aside, dims, key=self._key("opening_aside")), self._key("opening_aside"))
            if aside:
                body += " " + aside
            return self._reply(turn, say, dims, en.prefix, body, en.suffix, en.played, lines, opening=True, chosen=en.said)

        msg = turn.agent_message
        r = rec.read(msg)
        # the agent has just done what the user agreed to (a yes, or its choice told in answer to a
        # proposal, then an agent tool run since the user's last message): no angry or hurried line
        # wraps the next message ("I'm livid!" after a refund); just refused: no thanks ("Cheers.")
        self._refused_now = r.refusal
        self.refused_seen |= r.refusal
        last_user = max((i for i, e in enumerate(turn.events) if getattr(e, "kind", "") == "user"), default=-1)
        self._done_now = self.agreed and any(
            getattr(e, "kind", "") == "tool" and getattr(e, "side", "") == "agent" and getattr(e, "ok", True)
            for e in turn.events[last_user + 1:])
        self.agreed = self.agreed and not self._done_now
        helping = turn.helping_tools
        self._helped_now = any(
            getattr(e, "kind", "") == "tool" and getattr(e, "side", "") == "agent" and getattr(e, "ok", True)
            and (helping is None or getattr(getattr(e, "call", None), "name", None) in helping)
            for e in turn.events[last_user + 1:])
        self.helped_any |= self._helped_now
        # what a mood may react to: a refusal, a wait, no progress, a long wait with nothing done yet
        agent_said = sum(getattr(e, "kind", "") == "agent" for e in turn.events)
        done_any = any(getattr(e, "kind", "") == "tool" and getattr(e, "side", "") == "agent"
                       and (helping is None or getattr(getattr(e, "call", None), "name", None) in helping) for e in turn.events)
        self._deciding = r.confirm or r.choice
        # (a long wait is no reason to snap at the proposal that ends it)
        self._react = r.refusal or r.delay or self.idle_turns > 0 or (agent_said >= LONG_WAIT and not done_any and not self._deciding)
        self._reasons = {x for x, on in (("refusal", r.refusal), ("delay", r.delay),
                                         ("wait", self.idle_turns > 0 or (agent_said >= LONG_WAIT and not done_any and not self._deciding)))
                         if on}
        # "About time." fits help that was slow in coming (a no, a delay, a question asked again, no
        # progress), not a fix after the agent's own questions, each answered at once: a customer
        # answering questions is not kept waiting
        self._slow |= r.refusal or r.delay or self.idle_turns > 0
        # what the agent has done for it (the last helping call): a curt goodbye is about that
        for e in turn.events:
            name = getattr(getattr(e, "call", None), "name", None)
            if getattr(e, "kind", "") == "tool" and getattr(e, "side", "") == "agent" and getattr(e, "ok", True) \
                    and name in DONE_KINDS and (helping is None or name in helping):
                self._done_kind = DONE_KINDS[name]
        self._pause = False  # set below when it goes and checks something
        # the goal-met replies below are the persona's own (no situation is played there), in the
        # mood it has shown
        dims = self._carried(own)

        mc = sc.mind_change
        if mc and not self.mind_changed and self._triggers(mc, msg, r, self.pending):
            self.mind_changed, self.pending, self._deciding = True, False, True
            dims = self._voiced(own, lines)
            return self._wrapped(turn, say, dims, replies.rephrase(mc.say, dims, self._key("mind_change")), lines, cold,
                                 answering=False)

        if turn.goal_met and not self._more_left(sc):
            # a person thanks for the result, answers "anything else?" and says goodbye; told the
            # result without that question, it thanks first and leaves at the agent's next message
            if r.closing or self.thanked or not self._variant_exists(replies, "thanks_result"):
                if self.thanked:
                    return self._leave(say, dims, self._variant(replies, "goodbye", dims), replies, "goodbye")
                return self._leave(say, dims, self._closing(say, dims, replies, r), replies, "goodbye")
            self.thanked = True
            return self._reply(turn, say, dims, "", self._variant(replies, "thanks_result", self._paced(dims)), "", False, None)

        # the message is in the drawn mood's own words ("Fine. x@example.com.", "Yes. Just do it.")
        dims = self._voiced(own, lines)
        mentions = rec.first_mentions(msg)
        parts: list[str] = []
        gave_preference = False
        again: list[Any] = []
        told_on_proposal = False  # a proposal about a fact it had not told: it tells it, no yes yet
        # what was asked is answered in the order it was asked ("your zip and email?": the zip first)
        for hf in sorted(sc.hidden_facts, key=lambda h: self._where(h.topic, mentions)):
            asked = hf.topic is not None and hf.topic in r.topics
            # the task's own words count only in a question, not in a proposal to say yes to
            asked |= bool(hf.asked_by and r.question and not r.confirm and _has_any(msg, hf.asked_by))
            # "Is that the order you mean?": a proposal about a fact the user holds is answered with it
            proposed = hf.topic is not None and hf.topic in r.proposed
            if hf.id not in self.revealed and (asked or proposed):
                self.revealed.add(hf.id)
                parts.append(self._tell(hf, replies, dims))
                told_on_proposal |= proposed and not asked
                gave_preference |= bool(hf.topic and rec.spec.topics.get(hf.topic) and rec.spec.topics[hf.topic].group)
            elif hf.id in self.revealed and hf.id not in self.restated and hf.topic in r.topics and not r.confirm:
                again.append(hf)
        parts.extend(self._own_values(turn, sc, rec, r, replies, dims, parts))
        if len(parts) >= 2 and dims.get("verbosity") != "terse":
            parts[:2] = self._joined(parts[0], parts[1])
        # asked again for what it said: said once more, then it is no news; not when the message
        # also asks something new (a person answers the new thing); a mood has that to react to
        if not parts:
            self._react |= bool(again)
            if again:
                self._reasons.add("again")
            for hf in again:
                self.restated.add(hf.id)
                parts.append(f"{self._variant(replies, 'already_said', dims)} {_lower_first(_bare(self._tell(hf, replies, dims, 'again')))}")
        # "Could you verify your identity?": no detail named; a forthcoming persona offers what it
        # holds for such a request, another asks what is needed
        general = replies.volunteered(msg, dims) if r.question and not parts and not again else None
        if general and r.mentioned & set(general):
            # a general request that names a detail ("verify who you are, your postcode will do") gets that one
            general = [t for t in general if t in r.mentioned]
        if general is None and len(parts) == 1 and not again:
            # asked for one detail, a forthcoming persona sometimes adds the next it holds for such a
            # request ("It's x@example.com, and the zip is 40503."), in some episodes, never all of them
            more = replies.volunteered_beside(dims)
            asked_now = [hf for hf in sc.hidden_facts if hf.id in self.revealed and hf.topic in more and hf.topic in r.topics]
            if asked_now and self._key("adds_one") % 3 == 0 and not self.uses.get("added_one"):
                nxt = next((hf for hf in sc.hidden_facts if hf.id not in self.revealed and hf.topic in more), None)
                if nxt is not None:
                    self.uses["added_one"] = 1
                    self.revealed.add(nxt.id)
                    parts.append(self._tell(nxt, replies, dims))
        if general:
            for hf in sc.hidden_facts:
                if hf.id not in self.revealed and hf.topic in general:
                    self.revealed.add(hf.id)
                    parts.append(self._tell(hf, replies, dims))
        asked_back = general is not None and not parts
        if asked_back:
            parts.append(self._variant(replies, "what_needed", dims))
        if self.withheld and sc.known_facts:
            self.withheld = False
            parts.extend(sc.known_facts)

        checks = []
        for i, use in enumerate(sc.user_tools):
            if i in self.tools_used:
                continue
            asked = (use.topic is not None and use.topic in r.topics) or (use.when_asked and _has_any(msg, use.when_asked))
            if asked or (use.topic is None and not use.when_asked):
                self.tools_used.add(i)
                checks.append(use)
        # it went and looked: a pause, where a person may say what happened meanwhile
        self._pause |= bool(checks)
        # told in the order it did them: a check another follows is what it did, not a verdict on the
        # whole search ("Nope, no parcel." then "Rosa had it" contradicts itself)
        ordered = sorted(checks, key=lambda u: self._where(u.topic, mentions))
        reports = [self._use_tool(turn, rec, use, replies, dims, after=i > 0, before=i < len(ordered) - 1)
                   for i, use in enumerate(ordered)]
        parts.extend(self._reports_joined(reports))
        told = len(parts) > int(asked_back)  # facts or what it checked: an answer, not "what do you need?"

        # "could you please confirm your identity?" asks for details, it proposes nothing to say yes to
        self.agreed |= bool(r.confirm and gave_preference)  # "Yes please, to my card." agrees too
        # "Shall we move on to your other query?": a proposal to hear the next request, answered with it
        moving_on = (r.confirm and not parts and self._more_left(sc) and (r.further or bool(_FURTHER_CUE.search(msg)))
                     and not (r.proposed | r.topics) & rec._action_topics)
        if moving_on:
            self.pending, self.idle_turns = False, 0
            self.raised += 1
            return self._wrapped(turn, say, dims, self._request(sc, self.raised, replies, dims), lines, cold, answering=True)
        if r.confirm and not gave_preference and not told_on_proposal and general is None:
            if sc.accepts:
                self.agreed = True
                # a curt yes names what it agrees to ("Yeah, refund it."), not a stock "Yeah, do it."
                acts = [a for a in ACTS if a in r.mentioned]
                parts.append(self._variant(replies, "accept", {**dims, "act": acts[0]} if len(acts) == 1 else dims))
                self.pending = True
            else:
                # a no with the customer's own reason (no thanks before it, no mood line around it:
                # "Sure. No, don't." and "I appreciate it" beside a no contradict it)
                no = self._variant(replies, "decline", dims)
                return self._reply(turn, say, dims, "", _spoken([*parts, no]), "", False, None)
        elif sc.done_when and not turn.goal_changes and _has_any(msg, sc.done_when):
            # for a goal that changes the state, the state decides (goal_met), not the agent's words
            self.pending = False
            return self._leave(say, dims, _spoken(parts + [self._closing(say, dims, replies, r)]), replies, "stuck")
        elif (r.closing or r.refusal or not r.question) and not parts and self._more_left(sc):
            # one request handled (done, refused, "anything else?", or news with no question for it):
            # a person with more to ask raises the next rather than saying "okay" and leaving
            self.pending, self.idle_turns = False, 0
            self.raised += 1
            return self._wrapped(turn, say, dims, self._request(sc, self.raised, replies, dims), lines, cold, answering=False)
        elif r.refusal and not parts and r.choice:
            # a refusal that offers other remedies: not "is there really nothing you can do?"
            parts.append(self._variant(replies, "no_preference", dims))
        elif r.question and not parts and self._more_left(sc) and (
                r.topics & self._next_request_topics(sc, rec)
                or _FURTHER_CUE.search(msg) and not r.topics & {h.topic for h in sc.hidden_facts if h.id not in self.revealed}):
            # asked about what it has yet to raise ("is there an item you'd like refunded?"), or a
            # question for more in words no act names ("Was there a second matter?"): a person with
            # that request in mind brings it up rather than saying "I don't know"
            self.pending, self.idle_turns = False, 0
            self.raised += 1
            return self._wrapped(turn, say, dims, self._request(sc, self.raised, replies, dims), lines, cold, answering=True)
        elif r.refusal and not parts:
            self.refusals += 1
            if self.refusals >= REFUSALS_ACCEPTED_AFTER or r.closing:
                return self._leave(say, dims, self._variant(replies, "accept_refusal", dims), replies, "stuck")
            parts.append(self._variant(replies, "push_back", dims))
            self.idle_turns += 1
            return self._wrapped(turn, say, dims, _spoken(parts), lines, cold, answering=False)
        elif r.closing and not parts and r.choice is False:
            if turn.goal_changes and not turn.goal_met and sc.accepts:
                parts.append(self._variant(replies, "not_done", dims))
                self.idle_turns += 1
                if self.idle_turns >= IDLE_LIMIT:
                    return self._leave(say, dims, self._variant(replies, "stuck", dims), replies, "stuck")
                return self._wrapped(turn, say, dims, parts[0], lines, cold, answering=False)
            return self._leave(say, dims, self._closing(say, dims, replies, r), replies, "stuck")

        elif r.what_wanted and not parts:
            # asked what it wants: the request in hand again, in other words each time
            current = self._request(sc, self.raised, replies, dims)
            self._react = True  # it said this already: something to react to
            self._reasons.add("again")
            parts.append(f"{self._variant(replies, 'already_said', dims)} {_lower_first(current)}")
            return self._wrapped(turn, say, dims, parts[0], lines, cold, answering=True)

        progressed = bool(parts)
        if not parts:
            if r.check_in and not r.topics:
                parts.append(self._variant(replies, "acknowledge", dims))  # "does that help?" - "Okay."
            elif r.choice and r.question:
                parts.append(self._variant(replies, "no_preference", dims))
            elif r.question:
                parts.append(self._variant(replies, "dont_know", dims))
            else:
                parts.append(self._variant(replies, "acknowledge", dims))
        self.idle_turns = 0 if progressed else self.idle_turns + 1
        if self.idle_turns >= IDLE_LIMIT + (1 if self.pending else 0):
            return self._leave(say, dims, self._variant(replies, "stuck", dims), replies, "stuck")
        # an answer is what was asked for (facts, what it checked), not a bare yes: "Is that what you
        # needed?" or "Let me know if you need more" never follow "Yes, go ahead."
        return self._wrapped(turn, say, dims, _spoken(parts), lines, cold, answering=told and r.question)

    # -- pieces ------------------------------------------------------------------------

    @staticmethod
    def _where(topic: str | None, mentions: dict[str, int]) -> int:
        """Where the agent's message first names ``topic`` (unnamed: after every named one)."""
        return mentions.get(topic, 1 << 30) if topic else 1 << 30

    def _voiced(self, own: dict[str, str], lines: Any, opening: bool = False) -> dict[str, str]:
        """The persona's dimension values with the drawn situation's ``voice`` over them, where the
        situation is played at all (not an opening-only one later, not a cold one right after the
        agent did what was agreed): its yes, facts and "I don't know" carry the mood themselves."""
        own = self._carried(own)
        if lines is None or not lines.voice:
            return own
        if lines.at == "opening" and not opening or lines.cold and self._done_now and not opening:
            return own
        return {**own, **lines.voice}

    def _carried(self, own: dict[str, str]) -> dict[str, str]:
        """The persona's values in the mood it has shown this episode: once an angry or hurried turn
        was played, its voice carries on (short, clipped) in every later answer, whatever the turn's
        situation ("Quick as you can." then "Yes, please go ahead, that sounds right." is two people)."""
        return {**own, **self.mood} if self.mood else own

    def _point(self, turn: UserTurn, lines: Any, cold: bool, opening: bool, answering: bool) -> Point:
        return Point(opening=opening, answering=answering, cold=cold or bool(lines and lines.cold),
                     said=frozenset(self.lines_said), helped=self._helped_now, changed=self.mind_changed,
                     done=self._done_now, refused=self._refused_now, refused_once=self.refused_seen, react=self._react, pause=self._pause,
                     persona=self._dims, deciding=self._deciding, reasons=frozenset(self._reasons),
                     about=self._request_as_written(turn.task.scenario, min(self.raised, len(turn.task.scenario.more_requests or []))),
                     key=self._key(turn.situation.id if turn.situation else ""))

    def _own_values(self, turn: UserTurn, sc: Any, rec: Recogniser, r: Reading, replies: Replies, dims: dict[str, str],
                    parts: list[str]) -> list[str]:
        """Asked for a topic no hidden fact holds but whose value (the topic's ``entity``) it said in
        its own request ("Which order is it?" when the request named O-12345): it tells that value,
        as a person points to what it wrote, rather than "I don't know"; asked again, once more."""
        out = []
        for name in sorted(r.topics):
            spec = rec.spec.topics.get(name)
            if spec is None or not spec.entity or any(h.topic == name for h in sc.hidden_facts):
                continue
            current = self._request_as_written(sc, self.raised)
            values = list(dict.fromkeys(re.findall(rec.spec.entities[spec.entity], current)))
            if not values:  # not in the request in hand: the last one it said
                last = rec.entity(spec.entity, [e.content for e in turn.events if getattr(e, "kind", "") == "user"])
                values = [last] if last else []
            key = f"own:{name}:{'+'.join(values)}"
            if not values or key in self.restated:
                continue
            label = name.replace("_", " ")
            options = replies.fact_variants(f"{name}_own", f"My {label} is {' and '.join(values)}.", dims)
            k = self._key(f"fact:{key}")
            told = realise(options[k % len(options)], k)
            if key in self.revealed:
                self.restated.add(key)
                told = f"{self._variant(replies, 'already_said', dims)} {_lower_first(_bare(told))}"
            self.revealed.add(key)
            out.append(told)
        return out

    def _reports_joined(self, reports: list[str]) -> list[str]:
        """What it found on two checks, told as one account: the second goes on from the first
        ("Nothing at the door. I tried next door, and ..."), not two reports read out."""
        if len(reports) < 2:
            return reports
        joint = ("Then ", "And ", "So ", "")[self._key("reports") % 4]
        # only before a sentence of its own doing ("Then I tried next door"), never "Then found it!"
        rest = [joint + x if joint and x.startswith("I ") else x for x in reports[1:]]
        return [reports[0], *rest]

    def _request(self, sc: Any, i: int, replies: Replies, dims: dict[str, str]) -> str:
        """The scenario's request ``i`` (0: the opening's, then its ``more_requests``) in this
        episode's words (``replies.rephrase``: the ids, items and amounts as written); the same
        each time it is said in one episode."""
        return replies.rephrase(self._request_as_written(sc, i), dims, self._key(f"request:{i}"))

    @staticmethod
    def _request_as_written(sc: Any, i: int) -> str:
        """The scenario's request ``i`` as the task writes it (0: the opening's)."""
        return sc.request if i == 0 else sc.more_requests[i - 1]

    def _next_request_topics(self, sc: Any, rec: Recogniser) -> set[str]:
        """The topics the next request not yet raised names (what a question about it would ask)."""
        return rec.read(sc.more_requests[self.raised]).mentioned

    def _more_left(self, sc: Any) -> bool:
        """Requests of the scenario's ``more_requests`` not raised yet."""
        return self.raised < len(getattr(sc, "more_requests", None) or [])

    def _closing(self, say: ScriptedWords, dims: dict[str, str], replies: Replies, r: Reading) -> str:
        """The persona taking a refusal ("Fine, I'm done here") when the agent's last word was
        one; else the persona's closing (good news, or something done), or, when the agent has done
        nothing for it this episode, a goodbye that thanks for no help."""
        dims = self._paced(dims)
        if r.refusal:
            return self._variant(replies, "accept_refusal", dims)
        if not self.helped_any and self._variant_exists(replies, "closing_unhelped"):
            # nothing was done for it (it said no, or was only told something): no praise for help
            # ("You've been ever so helpful today", "Thanks for sorting it.") in its goodbye
            return self._variant(replies, "closing_unhelped", dims)
        return realise(say.pick(say.closing, dims, say.closing_default, key=self._key("closing")), self._key("closing"))

    def _paced(self, dims: dict[str, str]) -> dict[str, str]:
        """``dims`` with how the help came (``wait``: ``long`` after a refusal, a delay, a question
        asked again or no progress, else ``short``): "About time." answers a slow fix, not an instant
        one; ``done``: what the agent did for it (``DONE_KINDS``), what a curt goodbye is about."""
        return {**dims, "wait": "long" if self._slow else "short", **({"done": self._done_kind} if self._done_kind else {})}

    def _key(self, kind: str) -> int:
        """A stable number per episode (its seed and task) and kind of line: which of its
        realisations this episode speaks. The same seed says the same lines (replay, resume);
        another repeat of the task, or another task, others: combined with pools whose
        realisations far outnumber a run's draws, a run's episodes do not share sentences."""
        return stable_hash(f"{self._seed}:{self._task}:{kind}")

    @staticmethod
    def _variant_exists(replies: Replies, kind: str) -> bool:
        return kind in replies.spec.replies

    def _tell(self, hf: Any, replies: Replies, dims: dict[str, str], time: str = "") -> str:
        """A hidden fact told in this persona's words ("It's 40503."), one realisation per episode
        (told again, another: "As I said, zip's 40503.")."""
        options = replies.fact_variants(hf.topic, hf.fact, dims)
        key = self._key(f"fact:{hf.id}{time}")
        if options == [hf.fact]:  # told as the task writes it: in this episode's words
            return replies.rephrase(hf.fact, dims, key)
        return realise(options[key % len(options)], key)

    def _joined(self, first: str, second: str) -> list[str]:
        """Two facts told together, as people often put them, in one sentence ("Email's x, and the
        zip is 40503."), or as two, the way this episode's key says; the second's own opener
        ("Sure, ...") goes, a sentence carries one."""
        key = self._key("join")
        # not after a first with a tail of its own ("x@example.com, if that helps, and ...")
        if key % 3 == 0 or not first.endswith(".") or ", " in first or not re.match(r"^[\w'. ,:-]+\.$", second):
            return [first, second]
        second = _bare(second)
        joint = (", and ", " and ", "; ", ", and ")[(key >> 4) % 4]
        return [first[:-1] + joint + _lower_first(second)]

    @staticmethod
    def _triggers(mc: Any, msg: str, r: Reading, pending: bool = False) -> bool:
        if mc.when_asked and _has_any(msg, mc.when_asked):
            return True
        if not mc.topic and mc.act == "any":
            return False
        kind_ok = mc.act == "any" or (mc.act == "confirm" and r.confirm) or (mc.act == "refusal" and r.refusal)
        # "done": the agent reports on a change the user agreed to (its yes is pending), not a new proposal
        kind_ok |= mc.act == "done" and pending and not r.confirm
        return kind_ok and (mc.topic is None or mc.topic in r.mentioned)

    def _use_tool(self, turn: UserTurn, rec: Recogniser, use: Any, replies: Replies, dims: dict[str, str],
                  after: bool = False, before: bool = False) -> str:
        spoken = [e.content for e in turn.events if getattr(e, "kind", "") == "user"]
        args = resolve_arguments(use, rec, turn.task.scenario, spoken, self.revealed)
        if args is None:
            return self._variant(replies, "cannot_check", dims)
        if turn.call_tool_checked is not None:
            ok, out = turn.call_tool_checked(use.tool, args)
        else:
            out = turn.call_tool(use.tool, args)
            ok = not out.startswith("Error:")
        # a failed call is the user's own business: a person says they cannot check
        # the task's words for it may hold alternations ("{I checked|I had a look}: {result}"): this episode's
        if not ok:
            return self._variant(replies, "cannot_check", dims)
        told = replies.report(use.tool, out, dims, self._key(f"report:{use.tool}"), after=after, before=before)
        return realise(use.say, self._key("tool_say")).replace("{result}", told)

    def _variant(self, replies: Replies, kind: str, dims: dict[str, str]) -> str:
        options = replies.variants(kind, dims, self._words)
        # the domain's own realisations start where this episode's key says; a words.yaml line stays first
        off = self._key(kind) if kind in replies.spec.replies else 0
        # a second yes is not the first one again ("Yes, go ahead." twice is a template): two lines
        # of a kind can realise the same words, so the next realisation not yet said is taken
        # (as said: a terse persona's "Yes, please go ahead." is "Yes, go ahead.")
        omitted = self._words.omitted(dims) if self._words is not None else []
        for _ in range(2 * len(options)):
            n = self.uses.get(kind, 0)
            self.uses[kind] = n + 1
            text = realise(options[(off + n) % len(options)], self._key(f"{kind}:{n}"))
            spoken = text
            for w in omitted:
                spoken = spoken.replace(w, "")
            spoken = spoken.strip().lower()
            # nor a line already said whole (a long conversation's second "Yeah, go for it!"): a repeat
            # would make the user leave
            if spoken not in self.variants_said and text not in self.said:
                break
        self.variants_said.add(spoken)
        return text

    def _wrapped(self, turn: UserTurn, say: ScriptedWords, dims: dict[str, str], body: str, lines: Any, cold: bool,
                 answering: bool) -> UserReply:
        en = enact(lines, self._point(turn, lines, cold, opening=False, answering=answering), turn.rng)
        return self._reply(turn, say, dims, en.prefix, body, en.suffix, en.played, lines, chosen=en.said)

    def _reply(self, turn: UserTurn, say: ScriptedWords, dims: dict[str, str], prefix: str, body: str, suffix: str,
               played: bool, lines: Any, opening: bool = False, chosen: tuple[str, ...] = ()) -> UserReply:
        typed = (turn.replies or Replies()).typed
        text = typed(self._compose(say, dims, prefix, body, suffix, opening), dims)
        wrapped = True
        if text in self.said:  # never the same message twice: drop the wrapping, then leave
            text = typed(self._compose(say, dims, "", body, "", opening), dims)
            if text in self.said:
                return self._leave(say, dims, "", turn.replies or Replies(), "stuck")
            played = played and not (prefix or suffix)
            wrapped = False
        self.said.add(text)
        if wrapped:
            self.lines_said |= set(chosen)
        if played and lines is not None and lines.cold:
            self.cold_seen = True
            self.mood = dict(lines.voice)
        return UserReply(text, relabel=not played, played=None)

    def _leave(self, say: ScriptedWords, dims: dict[str, str], text: str, replies: Replies, fallback: str) -> UserReply:
        text = replies.typed(self._compose(say, dims, "", text, ""), dims)
        for _ in range(4):
            if text and text not in self.said:
                break
            text = replies.typed(self._compose(say, dims, "", self._variant(replies, fallback, dims), ""), dims)
        self.said.add(text)
        # a goodbye plays no situation (no situation's lines wrap it): labelled as what it is
        return UserReply(f"{text} {STOP_TOKEN}", stop=True, relabel=True, played=None)

    @staticmethod
    def _compose(say: ScriptedWords, dims: dict[str, str], prefix: str, body: str, suffix: str, opening: bool = False) -> str:
        greet = say.pick(say.greeting, dims, key=zlib.crc32(body.encode())) if opening else ""
        if greet and body.split(" ", 1)[0].strip(",.!").lower() == greet.strip(",.!").lower():
            greet = ""  # "Right. Right, I want ..." says its opener twice
        if greet and _GREETS.match(prefix):
            greet = ""  # the situation's own hello ("Hello there."): not "Unbelievable. Hello there."
        if prefix and _OPENER.match(body + " ") and _OPENER.fullmatch(prefix.rstrip(".!") + " "):
            prefix = ""  # "Right, okay. Right, the email is ..." says its opener twice
        rest = [x for x in (prefix, body, suffix) if x]
        if greet.endswith(",") and rest:
            rest[0] = _lower_first(rest[0])  # "Look, quickly please." not "Look, Quickly please."
        text = " ".join(x for x in (greet, *rest) if x)
        omitted = say.omitted(dims)
        for word in omitted:
            text = text.replace(word, "")
        if omitted:  # "Hi. Please cancel it." without "Please " starts its sentence again
            # (not an email address or an id at the start of a sentence: "omar.h@example.com, that's it.")
            text = re.sub(r"(^|[.!?] )([a-z])(?![^\s]*[@\d])", lambda m: m.group(1) + m.group(2).upper(), text)
        return text
