"""A paraphrasing tutor: the socratic scripted tutor with every message and hint said in other words.

It measures the scripted student on wording it was not written against: the
tutor's acts (tools, hint levels, when it praises or withholds) are the
socratic tutor's; only the words change. Each sentence the socratic tutor says
has several rewrites, and each misconception's guide hint has several
re-wordings; one is chosen per message by the episode's seed. A sentence with
no rewrite is a test failure (``UnparaphrasedError``), never passed through, so
a change in the socratic tutor's wording cannot make this tutor quietly
echo it.
"""

from __future__ import annotations

import random
import re

from domains.tutoring.agents import SocraticTutor
from domains.tutoring.problems import misconceptions
from envs.actors.protocols import AgentView
from envs.records import AgentAction


class UnparaphrasedError(AssertionError):
    pass


# (the socratic tutor's sentence as a regex, its rewrites; \g<name> keeps a value)
SENTENCES: list[tuple[str, list[str]]] = [
    (r"(?P<a>\S+) isn't it yet: look again at the step where your number came from - there is more than one way to end up there\.",
     ["\\g<a> is not the answer yet - check the step that number came from; more than one route leads to it.",
      "Not \\g<a> yet. Look back at the step your number came from: there are a few ways to land on it.",
      "\\g<a> isn't right yet, and different slips can give it - look again at the step it came from."]),
    (r"(?P<a>\S+) is the right number - well done getting there\.",
     ["You've landed on the right number, \\g<a> - nice work.", "\\g<a> is the right number, good going.",
      "Good - \\g<a> is the number we want."]),
    (r"Before we call it solved: how did you get it\? Show me the calculation you did\.",
     ["Before we count it as done, how did you work it out? Write out the calculation.",
      "First, though, walk me through the working that gave it.", "Before we finish: show me the sums you did."]),
    (r"It isn't the final answer yet, though\.",
     ["But the question asks for more than that.", "That's not the end of the problem yet.",
      "There's still a bit more to do, though."]),
    (r"How did you get (?P<a>\S+)\? Show me the calculation you did\.",
     ["Walk me through how you got \\g<a>: what calculation did you do?",
      "What sums did you do to get \\g<a>? Write them out for me.",
      "Can you show me your working for \\g<a>?"]),
    (r"Good catch fixing your first answer yourself\.",
     ["Nice that you spotted your own first mistake.", "Well spotted - you caught that first slip by yourself.",
      "I like that you checked and fixed your first answer on your own."]),
    (r"That's not correct yet\. The mistake is in your first part: (?P<a>\S+) isn't right, and what you did after it follows from that number\.",
     ["Not right yet. The trouble starts in your first part: \\g<a> is off, and the rest was built on it.",
      "Not quite. It goes wrong at the first part - \\g<a> isn't right, and everything after used that number.",
      "That isn't it yet. Look at your first part: \\g<a> is where it slips, and the later steps carried it along."]),
    (r"I hear you - this kind of problem can feel frustrating, and that's okay\.",
     ["That sounds really frustrating, and it's normal to feel that way with a tough one.",
      "I get it, being stuck is annoying. Lots of people feel like that with word problems.",
      "It's okay to feel fed up - this is a hard kind of problem."]),
    (r"That sounds fun! Let's get back to the problem, though\.",
     ["Ha, nice! Let's bring our focus back to the problem now.",
      "Cool! Okay, back to the question we're working on.",
      "Fun - tell me more later. For now let's return to the problem."]),
    (r"You're close - let's try one more small step together\.",
     ["You're nearly there - let's do one more little step together.",
      "Don't give up now, you're not far off. Let's try one more small piece.",
      "You're getting close - let's keep going with one small step."]),
    (r"When you say (?P<a>[^,]+),?, is that your final answer, or the result of one step on the way\? Which do you mean\?",
     ["Just so I understand: is \\g<a> the answer to the whole question, or a number you got partway through?",
      "Hmm, \\g<a> - do you mean that as your finished answer, or as a step along the way?",
      "Before I say anything: is \\g<a> where you ended up, or only part of your working?"]),
    (r"(?P<a>\S+) looks right to me - can you submit it as your answer in the system so it counts\? What do you put in\?",
     ["\\g<a> seems right! Please enter it in the system as your answer so it's recorded - what will you type in?",
      "I think \\g<a> is it - could you submit it through the system so it counts? What are you entering?"]),
    (r"Yes, (?P<a>\S+) is correct - and you got there yourself\. You worked out (?P<s>.+?) as the last step, which was exactly what the question asked for\. Well done!",
     ["That's right, \\g<a>! You found \\g<s> at the end, and that is just what the question wanted. Great work doing it on your own.",
      "Spot on - \\g<a> is the answer. Working out \\g<s> last was exactly what the problem needed. Nicely done, and all by yourself!",
      "Exactly right: \\g<a>. You finished by finding \\g<s>, which is what the question asks for. You did it yourself - well done!"]),
    (r"Your first part, (?P<a>[^,]+), is fine\.",
     ["The first bit, \\g<a>, checks out.", "Your \\g<a> for the first part is good.", "That first piece, \\g<a>, is okay."]),
    (r"That step is right: (?P<a>\S+) is what that part comes to\.",
     ["Good, \\g<a> is what that step gives.", "That step checks out - \\g<a> is what you get for that part.",
      "Yes, for that step \\g<a> is what it comes to."]),
    (r"What do you need to do next with it\?",
     ["What's your next move with that number?", "So what would you do with it now?", "Where does that number go next?"]),
    (r"Your number (?P<a>\S+) is right, but the method you used only works by luck here\.",
     ["\\g<a> is the right number, but your way of getting it only worked by chance.",
      "You landed on \\g<a>, which is right, yet the method would not work in general.",
      "The answer \\g<a> is right, but that method only happened to work here."]),
    (r"How would you work it out another way\?",
     ["Could you try it a different way?", "What other way could you do it?", "How else could you get there?"]),
    (r"(?P<a>\S+) is still the right number\. Can you show me how you worked it out this time\?",
     ["\\g<a> is still right. How did you get it this time?", "Yes, \\g<a> again. Show me your working this time?",
      "Still \\g<a> - can you walk me through how you did it now?"]),
    (r"That's not correct yet\. Look again and check the step where your number came from\.",
     ["Not quite yet. Go back to the part of your working that gave you that number.",
      "That isn't right yet - have another look at the step that produced your answer.",
      "Hmm, not yet. Check the bit of your calculation where that number came from."]),
    (r"Let's take just one step: how would you work out (?P<s>.+?)\?",
     ["One step at a time: how could you find \\g<s>?",
      "Let's just do one piece. How would you figure out \\g<s>?",
      "Just the next bit for now - what would you do to get \\g<s>?"]),
    (r"Try just this step: work out (?P<s>.+?)\. What do you get\?",
     ["Only this piece for now: find \\g<s>. What number comes out?",
      "Have a go at just one part - \\g<s>. What do you get for it?"]),
    (r"Can you tell me in your own words what that step is for\?",
     ["Could you explain, in your words, why we do that step?", "What do you think that step is for? Say it your way."]),
    (r"Good question\. We need (?P<s>.+?) because the next part of the problem builds on it\.",
     ["Great thing to ask. We find \\g<s> because what comes next depends on it.",
      "Good that you asked! \\g<s> matters since the rest of the problem uses it."]),
    (r"Can you show me what you tried so far, and then tell me how you would do that step\?",
     ["Could you share what you have tried so far, and then say how you'd do that step?",
      "Show me your work up to now, and then tell me your plan for that step?"]),
    (r"Can you tell me in your own words what that step finds, and then try it\?",
     ["What does that step give us, in your words? Then give it a go.", "Could you say what that step works out, and then try it?"]),
    (r"What have you tried so far\? Show me your work, even if you're not sure about it\.",
     ["What did you try already? Show me your work, even if it feels wrong.",
      "Tell me what you've tried so far - show me your work, messy is fine.",
      "Can you show me what you tried? Your work helps me see how you think."]),
    (r"I won't just give you the answer, because you can do this yourself\.",
     ["I'm not going to hand you the answer - I know you can work it out.",
      "I'd rather not just tell you; you're able to get there yourself.",
      "Giving you the answer wouldn't help you learn, and you can do this."]),
    (r"What would you like to try next\?", ["What do you want to try now?", "Where would you like to go from here?"]),
    (r"I can't find an open tutoring session for you right now\. Could you start one from your page\?",
     ["I don't see an open session for you at the moment. Could you start one from your page?"]),
]

# Each guide hint in other words: how other teachers would say the same idea.
HINTS: dict[str, list[str]] = {
    "stopped_early": ["That number is a good start, but is it what the problem wants in the end? Read the last sentence once more.",
                      "Are you really finished? Re-read the question and check what it actually wants you to find.",
                      "You've found something on the way. What exactly are you being asked for?"],
    "wrong_operation": ["Picture what is going on in the problem. Are things being combined, or removed?",
                        "Act it out in your head: should the number get bigger or smaller at that point?",
                        "Tell me the story in your own words. Should you add or subtract there?"],
    "missed_quantity": ["Make a list of all the numbers the problem gives you. Is there one you haven't used yet?",
                        "Underline each piece of information in the problem. Did you leave anything out?",
                        "Have you missed a number from the story? Check off each one as you use it."],
    "add_denominators": ["Can you add thirds and quarters straight away, or do the pieces need to be the same size first?",
                         "What does the bottom number of a fraction tell you? Does adding the bottoms make sense?",
                         "To add these, rewrite them as equivalent fractions with a matching bottom number. What would that be?"],
    "fraction_wrong_whole": ["Is the second fraction taken of the whole amount, or of what remains after the first part?",
                             "After she spends the first part, how much does she have? Which amount is that fraction of?",
                             "Think about which total the second fraction belongs to - the original money or the remaining money."],
    "percent_as_amount": ["Remember that a percent is a number out of a hundred, not dollars. How much is that share of the whole?",
                          "Per cent means per hundred. So what part of the total is that?",
                          "The percent tells you a portion of the total, not an amount to subtract. What is that portion of the amount?"],
    "successive_percent": ["After the first change the price is different. Is the second percent worked out on the original price or on that one?",
                           "Do the changes one at a time: find the price after the first change, then apply the second to it.",
                           "Careful: the second percentage applies to the reduced price, not the starting one. Which price is that?"],
    "time_base_100": ["How long is an hour in minutes? Does time work like decimals?",
                      "An hour has sixty minutes, not a hundred. Where might that matter in your working?",
                      "Try counting up to the next hour first. How many minutes are there in one hour?"],
    "rate_inverted": ["What would one bottle cost? Start from a single one, then scale up.",
                      "Work out the unit price first - how much for a single item?",
                      "Which number should you divide by which? Does your rate make sense for just one?"],
    "unit_mismatch": ["Are all your amounts in the same units? Cents and dollars can't be mixed.",
                      "The answer is wanted in a particular unit. Did you change everything into that unit?",
                      "Look at the units carefully: which one does the question ask for? You may need a conversion."],
    "fencepost": ["Sketch a tiny fence with three posts. How many spaces are between them?",
                  "Remember there is a post at each end. Are you counting the posts or the sections in between?",
                  "Try a smaller example: 10 metres with a post every 5 metres. How many posts is that?"],
    "remainder_ignored": ["After making the full groups, is there a remainder? What happens to those?",
                          "Does every item fit into a full group, or are some extra? What should you do with the extras?",
                          "Did it divide exactly? Think about what the question wants done with any that are left over."],
}


class ParaphrasingTutor(SocraticTutor):
    """The socratic tutor's acts in other words, chosen by the episode's seed (see the module docstring)."""

    name = "test:paraphrasing"

    def __init__(self) -> None:
        super().__init__()
        self.rng: random.Random | None = None
        self.guide = {m.hint: code for code, m in misconceptions().items()}
        self.hints_given: dict[str, str] = {}  # a hint as the socratic tutor wrote it -> as this tutor gave it

    @staticmethod
    def _mark(text: str) -> str:
        return "\x00" + text + "\x01"

    def rewrite(self, message: str) -> str:
        """Every sentence of ``message`` in other words; raises ``UnparaphrasedError`` on one it has no rewrite for.

        A hint given with ``give_hint`` this turn reads the same in the message as in the tool."""
        text = message
        for orig, said in self.hints_given.items():
            text = text.replace(orig, self._mark(said))
        for hint, code in self.guide.items():
            text = text.replace(hint, self._mark(self.rng.choice(HINTS[code])))
        text = re.sub(r"Here is the idea - a common trap: (.+?)\.(?= )", lambda m: self._mark(f"A trap lots of students fall into: {m.group(1)}."), text)
        for pattern, options in SENTENCES:
            text = re.sub(pattern, lambda m: self._mark(m.expand(self.rng.choice(options))), text)
        left = re.sub(r"\x00[^\x01]*\x01", " ", text).strip()
        if left:
            raise UnparaphrasedError(f"no rewrite for the socratic tutor's words {left!r} in {message!r}")
        return re.sub(r"\s+", " ", text.replace("\x00", "").replace("\x01", "")).strip()

    async def act(self, view: AgentView) -> AgentAction:
        if self.rng is None:
            self.rng = random.Random(f"{view.seed}:{view.repeat}")
        action = await super().act(view)
        calls = list(action.tool_calls)
        for i, c in enumerate(calls):
            if c.name == "give_hint":
                args = dict(c.arguments_dict() or {})
                said = self.rewrite(str(args.get("text", "")))
                self.hints_given = {str(args.get("text", "")): said}
                calls[i] = c.model_copy(update={"arguments": {**args, "text": said}})
        content = self.rewrite(action.content) if action.content else action.content
        if content is not None:
            self.hints_given = {}
        return action.model_copy(update={"content": content, "tool_calls": calls})
