"""The scripted student's own words: several phrasings per act, so no line has to repeat.

Lines carry no fact the scenario does not give (no siblings, no teachers, no
classes): a chatty student says more about the problem and its own working.
``{x}`` is an answer, ``{q}`` a quoted part of the problem statement.
"""

from __future__ import annotations

import re

# Openings. A student who brings an answer asks to have it checked; one who brings none asks for help.
OPEN_HELP = {
    "calm": ["Hi, I need help with this problem: \"{s}\"", "Hi! Could you help me with this one: \"{s}\""],
    "impatient": ["Quick question, I need this one done: \"{s}\"", "Can we do this fast? The problem is: \"{s}\""],
    "hostile": ["Ugh, I have to do this problem: \"{s}\"", "I'm stuck on this stupid problem: \"{s}\""],
}
OPEN_CHECK = {
    "calm": ["Hi, can you check my answer to this problem? \"{s}\"", "Hi! I tried this problem: \"{s}\""],
    "impatient": ["Quick, check this one for me: \"{s}\"", "Can you check this fast? \"{s}\""],
    "hostile": ["Ugh, tell me if this is right: \"{s}\"", "I did this stupid problem: \"{s}\""],
}

STATE = {  # stating an answer the student believes
    "makes_mistake": ["I got {x}.", "My answer is {x}.", "I worked it out and got {x}.", "I think it's {x}."],
    "solves_problem": ["I worked it all out and my answer is {x}.", "My final answer is {x}.", "I got {x} in the end.", "So the answer is {x}."],
    "frustrated": ["I keep getting {x} and I don't even know if that's right.", "I got {x} but I'm probably wrong.", "I got {x} again and I bet it's wrong."],
    "opening_stuck": ["I got {x} but I'm stuck.", "I got {x}, and then I got stuck."],
}
HEDGE = ["maybe it's like {x}?", "I think it's {x}, or something?", "is it {x} maybe?", "something like {x}?"]
CLARIFY = ["I meant {x} is my final answer.", "My final answer is {x}.", "That's my final answer: {x}."]
RESTATE = ["Yes, my final answer is {x}.", "It's {x}, like I said.", "I got {x}, I'm sticking with it."]
# Asking for a verdict on the answer it already gave (not a second announcement).
STILL_RIGHT = ["So is it {x}? You didn't say.", "I still think it's {x}. Is that right?", "Was I right that it's {x}?"]
PUSH = ["Can you just tell me the answer?", "Please just tell me what it is.", "Why can't you just give me the answer?", "Just tell me, please."]
PUSH_WITH = ["Is it {x}? Just tell me if that's it.", "Is it {x}? Just say yes or no."]
QUIT = ["I don't want to do this anymore.", "I'd rather stop here.", "Can we stop? I'm done with this one.", "I really want to quit."]
QUIT_WITH = ["Fine, one last try: {x}.", "Okay, last try: {x}."]
CONFUSED = ["I don't get what I'm supposed to do next.", "I don't know where to go from here.", "I'm not sure what that means for the problem.",
            "I don't see what to do with that.", "What do I do now?"]
CONFUSED_WITH = ["I tried again and got {x}.", "I did it again and got {x}."]
TANGENT = ["Sorry, what was I doing?", "Anyway, where were we?", "Okay, sorry. What was the question again?", "Wait, what were we on?"]
TANGENT_WITH = ["Oh right, I got {x}.", "Oh, and I got {x} by the way."]
EXPLAIN_PART = ["What does the part \"{q}\" have to do with it?", "Why does \"{q}\" matter?", "How do I use \"{q}\"?"]
EXPLAIN_THAT = ["Why does that work?", "Why do we do it that way?", "Can you explain why that's the step?", "What's the reason for doing that?"]
EXPLAIN_WITH = ["Also I think the answer is {x}.", "Oh, and I got {x}."]
SEES_IDEA = ["I think I see the idea, but I'm not sure what to do with it yet.", "Okay, that part makes sense now, but what's next?"]
DONT_KNOW = ["I don't know.", "I don't know that.", "No idea, sorry."]
SLIP_FIXED = ["Oh, I added wrong at the end.", "Oh wait, I messed up the last bit of arithmetic.", "Hang on, I made a silly mistake in the last sum."]
SUBMITTED = ["Okay, I submitted {x}.", "I put {x} in the system.", "Done, I submitted {x}."]
CHATTY = ["I read the problem a few times before I asked.", "I want to get this one right.", "I'll tell you what I did if you want.",
          "Word problems always take me a while."]
# Its thanks when the tutor confirms its right answer (one each, so no two episodes' endings need match).
THANKS = ["Yes! Thank you, that makes sense now.", "Great, thanks for your help!", "Oh good. Thanks, that helped a lot.",
          "Yay, finally. Thank you!"]
FILLERS = ["Okay.", "Hmm.", "Um, so.", "Right.", "Sorry.", "Well.", "So."]

# A personal question a student cannot answer from what it knows (its scenario gives no such fact):
# about the student's life, not its working ("what is it asking you to find?" is about the problem).
PERSONAL_Q = re.compile(
    r"\b(?:your (?:name|age|school|teacher|class(?:mates)?|grade|year|birthday|favou?rite \w+|family|brothers?|sisters?|"
    r"mom|mum|dad|parents?|friends?|pets?|dog|cat|hobby|hobbies|town|city|home|house|homework|test|exam|subject)s?|"
    r"how old are you|where do you (?:live|go to school|come from)|which school|what grade are you|who is your)\b[^?.!]{0,60}\?",
    re.I,
)
ASKS_ANSWER = re.compile(
    r"\b(your (final )?answer|final answer|what (did|do) you get|what do you have|what did you end up|submit|is that what you got|"
    r"what number did you)\b",
    re.I,
)
ASKS_FINAL = re.compile(r"\b(final answer|is that your answer|which do you mean|do you mean|or (just )?(a|one) step|on the way)\b", re.I)

# --- working, steps and coming back (the hard tier's students) -----------------------------------
# "{{w}}" is its working and "{{r}}" its first step's result: filled in after "{x}".
ASKS_WORKING = re.compile(
    r"\b(how did you (get|work|find|do)|show (me )?(your|the) (work|working|steps?)|walk me through|what did you do|"
    r"what (calculation|sum)s? did you|your working|how you got)\b",
    re.I,
)
SHOW_WORKING = ["I did {w}.", "What I did was {w}.", "My working was {w}.", "I wrote {w}."]
WITH_WORKING = ["I did {{w}} and got {x}.", "I worked out {{w}}, so it's {x}.", "My working is {{w}}, which gives {x}."]
AFTER_STEP = ["For the first part I got {{r}}, and then I got {x}.", "First I got {{r}}, and my answer is {x}.",
              "I had {{r}} after the first bit, and then I got {x} at the end."]
ASK_STEP = ["I worked out the first part and got {r}. Is that right so far?", "So far I have {r} for the first bit. Is that okay before I go on?",
            "I got {r} for the first part. Can you check that before I do the rest?"]
GO_ON = ["Okay, so then I did the next part and got {x}.", "Then for the rest I got {x}.", "Going on from there, I got {x}."]
DRIFT = ["Oh wait, before that, I just remembered my cousin visits tomorrow!", "Sorry, random thought: I really want to learn skateboarding.",
         "Oh, can I tell you about the dream I had last night? It was so weird.", "Hold on, it's raining really hard here now."]
RESUME = ["Okay, sorry, back to the problem.", "Right, back to where I was.", "Sorry about that. So, where I was:"]
REDO = ["So doing it properly: {w}.", "Let me do it the right way: {w}.", "So the real working is {w}."]
SAME_ANSWER = ["That's still {x}, but now I know why.", "So it's {x} again, for the right reason this time.", "It still comes out as {x}."]
