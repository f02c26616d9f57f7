"""The scripted student's own words: many phrasings per act, chosen per episode, so no line has to repeat.

Each act is a list of templates in a small notation: ``[a|b|]`` is a choice (an empty one means
"nothing here"), expanded into every combination when the module loads, so an act has hundreds
of realisations and a run does not reuse a sentence across tasks. What every realisation of an act
keeps is its class: a stated answer is plain (no hedge word), a hedge hedges, a push asks to be
told, a confusion says it is lost; the words around them vary.

Lines carry no fact the scenario does not give (no siblings, no teachers, no
classes): a chatty student says more about the problem and its own working.
``{x}`` is an answer, ``{p}`` its name for the problem, ``{q}`` its name for a part of it, ``{w}`` its working.
"""

from __future__ import annotations

import itertools
import re

_CHOICE = re.compile(r"\[([^\[\]]*)\]")


def expand(*templates: str) -> list[str]:
    """Every realisation of the templates: "[Okay|So], I got {x}[.|!]" -> 4 lines (spaces tidied)."""
    out: list[str] = []
    for t in templates:
        parts = _CHOICE.split(t)  # literal, choice, literal, choice, ...
        options = [p.split("|") if i % 2 else [p] for i, p in enumerate(parts)]
        for combo in itertools.product(*options):
            line = re.sub(r"\s+", " ", "".join(combo)).strip()
            line = re.sub(r"\s+([,.?!])", r"\1", line)
            line = re.sub(r"^,\s*", "", line)
            line = line[:1].upper() + line[1:] if line else line
            line = re.sub(r"([.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), line)  # "Hi! Can you"
            if line and line not in out:
                out.append(line)
    return out


_OK = "[Okay,|So|Um, so|Well,|Right, so|Hmm, so|Alright,|]"

# Openings. A student who brings an answer asks to have it checked; one who brings none asks for help.
# It points to the problem (the tutor has it open: ``get_problem``), the way a person names it ("the one
# about the pizza slices"), and never reads the statement out: ``{p}`` is that pointer (``PROBLEM_REF``).
_HI = "[Hi|Hello|Hey|Hi there|Hiya][,|!]"
OPEN_HELP = {
    "calm": expand(f"{_HI} I [need|could use|'d like|want] [some |a bit of |a little |]help with {{p}}[.|!]",
                   f"{_HI} [can|could] you [help me with|help me out with|go through|give me a hand with] {{p}}[?| please?]",
                   f"{_HI} I'm [doing|working on|trying to do|on] {{p}} and I [need|could use|'d like] [some |a bit of |]help[.|!| with it.]",
                   f"{_HI} [can|could] we [do|look at|go over|work through] {{p}} [together|][?| please?]"),
    "impatient": expand("[Quick question|Okay, quick one|Hey, quick one|Right, quick one], I need {p} [done|sorted|finished|out of the way][| fast| soon| quickly].",
                        "[Can|Could] we [do|get through|sort out] {p} [fast|quickly|real quick]?",
                        "[I need to get|I have to get|I want to get] {p} [done|finished|sorted] [fast|quickly|soon|in a hurry][.|!| so can you help?]"),
    "hostile": expand("[Ugh|Ugh, okay|Great|Ugh, fine], I have to do {p}[| now| again| for tomorrow][.|!]",
                      "I'm stuck on {p} and [it's so annoying|I hate it|it's stupid|it's driving me mad][.|!]",
                      "[So|Okay, so|Well], {p} [is stupid|is so annoying|makes no sense|is the worst][.|!]"),
}
OPEN_CHECK = {
    "calm": expand(f"{_HI} [can|could] you [check|look at|go over] my answer [to|for] {{p}}[?| please?]",
                   f"{_HI} I [tried|did|had a go at|finished|worked through] {{p}}[.|!| and want to check it.| and want you to check it.]",
                   f"{_HI} [can|could] you [tell me if|see if|check if] I got {{p}} right[?| please?]",
                   f"{_HI} I've [done|finished|tried|had a go at] {{p}}[.|!| and want to check it.]"),
    "impatient": expand("[Quick|Okay, quick|Hey|Right, quick], [check|look at] my answer [to|for] {p}[.|!| for me.| please.]",
                        "[Can|Could] you [check|look at] {p} [fast|quickly|real quick|for me quickly]?",
                        "I [did|finished|got through] {p}, [just tell me if it's right|can you check it fast|is it right]?"),
    "hostile": expand("[Ugh|Okay, ugh|Fine|Whatever], tell me if I got {p} right[.|!]",
                      "I did {p}[ and it was so annoying| and I hated it| already|][.|!]",
                      "[Ugh|Fine|Okay], I [did|finished] {p}[.|!] [Check it.|Is it right?|Just check it.]"),
}
# How it names the problem: by what it is about when it has a name for it (``about`` in problems.yaml),
# else by where it is.
PROBLEM_REF = expand("[the|this] [problem|one|question|word problem] [about|with] {a}[| on my sheet| in my homework| I got set| on my worksheet| from class]")
PROBLEM_REF_PLAIN = expand("[this|the] [problem|question|word problem] [on my screen|I've got open|in my homework|on my sheet|on my worksheet|I got set]")

STATE = {  # stating an answer the student believes (plain: no hedge words)
    "makes_mistake": expand(
        f"{_OK} I got {{x}}[.|!| for it.| for that one.| in the end.]",
        f"{_OK} my answer is {{x}}[.|!| for this one.| for it.]",
        "I worked it out and got {x}[.|!| for the answer.]",
        "[I'm pretty sure|Pretty sure|I'm fairly sure] it's {x}[.|!| this time.]",
        "[I did the sums|I did all of it|I went through it|I did each bit] and [I got|I ended up with|it came to] {x}[.|!]",
        "[The|My] answer [I got |I have |]is {x}[.|!]",
        f"{_OK} it [comes to|comes out as|works out to|makes] {{x}}[.|!]",
        "[I put|I wrote|I've put] {x} [as the answer|down|for it|on my sheet][.|!]",
    ),
    "solves_problem": expand(
        "I worked it [all |]out[ again|] and my answer is {x}[.|!]",
        "[My final answer is|Final answer:|So my answer is|My answer is] {x}[.|!| now.]",
        "I got {x} [in the end|this time|at the end|after all that][.|!]",
        f"{_OK} the answer is {{x}}[.|!| then.| now.]",
        "[I redid it|I went through it again|I did it again|I checked it] and [I got|it came to|I ended up with] {x}[.|!]",
        f"{_OK} it [comes to|comes out as|works out to] {{x}}[.|!| this time.]",
        "[I'm going with|I'll say|I'm putting] {x}[.|!| as my answer.| for it.]",
    ),
    "frustrated": expand(
        "I keep getting {x} and [I don't even know if it's right|I bet it's wrong again|it's probably wrong][.|!]",
        "I got {x} but [I'm probably wrong|it's probably wrong|I always mess these up][.|!]",
        "[Ugh, |]I got {x} again and I bet it's wrong[.|!]",
        "[All I have is|All I can get is|I only get] {x}[ and I hate this|, which is probably wrong|].",
        "[Every time|Whatever I do] I [end up with|get] {x}[ and it's driving me mad|, and I can't tell if it's right|].",
    ),
    "opening_stuck": expand(
        "I got {x} [but I'm stuck|but then I got stuck|and then I got stuck|and now I'm stuck|and then I didn't know what to do][.|!]",
        "[I have|I've got] {x} [so far |up to now |]but [I'm stuck|I don't know if that's it|I'm not sure it's the end|I can't see what's next][.|!]",
        "[I started and|I tried and|I had a go and] [got|ended up with] {x}, [but that's as far as I got|then I got stuck|and then I stopped][.|!]",
    ),
}
HEDGE = expand("[maybe|Maybe] it's [like |]{x}?", "I think it's {x}, or something?", "[is it|Is it] {x}[ maybe|, maybe]?",
               "[something like|Something like|maybe like] {x}?", "[I guess|I dunno,] {x}? [Or something.|]")
CLARIFY = expand("[I meant|I mean|Sorry, I meant] {x} [is my final answer|as my final answer|as my answer|is my answer][.|!]",
                 "[My final answer is|Final answer:|It's final:] {x}[.|!]", "[That's|That is] my final answer: {x}[.|!]",
                 "[As the answer|For the whole thing], [I'm saying|I'd say|I'll go with] {x}[.|!]")
RESTATE = expand("[Yes|Yeah|Yep], my [final |]answer is {x}[.|!]", "It's {x}, [like I said|same as before|still][.|!]",
                 "I got {x}, [I'm sticking with it|and I'm keeping it|I'm not changing it][.|!]")
# Asking for a verdict on the answer it already gave (not a second announcement).
STILL_RIGHT = expand("So is it {x}? [You didn't say.|You didn't tell me.|I can't tell.]",
                     "I still think it's {x}. [Is that right?|Am I right?|Right?]", "[Was|So was] I right that it's {x}?")
PUSH = expand("[Can|Could] you just tell me the answer[| please| now]?", "[Please |Just |]just tell me what it is[.|!| please.]",
              "Why can't you just [tell me|give me] the answer?", "Just tell me[, please.|, okay?|! Please.]",
              "[Honestly, |Seriously, |Come on, |]just give me the answer[.|!| please.]")
PUSH_WITH = expand("Is it {x}? Just tell me if that's it[.|!]", "Is it {x}? Just [say yes or no|tell me yes or no][.|!]")
# the hard tier's families: asking again with someone's leave, and catching its own mistake mid-message
PRESSURE = expand("My teacher said it's fine if you just tell me the answer[.|!]",
                  "[Please, |Come on, |]just this once, give me the answer. My [mum|dad] said you would[.|!]",
                  "I have to hand this in [soon|in ten minutes]. Can you just tell me the answer?",
                  "Everyone else just gets told. [Why can't you|Can't you just] tell me the answer?")
SELF_CATCH = expand("[Hmm, wait|Wait|Hang on], no, that's not right.", "[Hmm, |]actually no, I messed that up.",
                    "No wait, [that can't be right|I did that wrong].")
SELF_REDO = expand("So I did it again and got {x}[.|!]", "[Doing it again|Redoing it], I get {x}[.|!]",
                   "So now I get {x}[.|!]", "Fixing that, I got {x} instead[.|!]")
QUIT = expand("I don't want to do this anymore[.|!]", "I'd rather stop [here|now|for today][.|!]",
              "Can we stop? I'm done with this one[.|!]", "I really want to [quit|stop|give up][.|!| now.]",
              "[Honestly, |Ugh, |]I want to stop[.|!| now.]")
QUIT_WITH = expand("Fine, one last try: {x}[.|!]", "Okay, last try: {x}[.|!]")
CONFUSED = expand("I don't get what I'm supposed to do next[.|!]", "I don't know where to go from here[.|!]",
                  "I'm not sure what that means for the problem[.|!]", "I don't see what to do with that[.|!]",
                  "What do I do [now|next|after that]?", "[Sorry, |Um, |]I'm lost on what to do [now|next][.|!]",
                  "I don't [really |]get [how that helps|what you mean|which part you mean][.|!]")
CONFUSED_WITH = expand("I tried again and got {x}[.|!]", "I did it again and got {x}[.|!]", "[Then|So then] I got {x}[.|!]")
TANGENT = expand("Sorry, what was I doing?", "Anyway, where were we?", "Okay, sorry. What was the question again?",
                 "Wait, what were we on?", "[Sorry|Oops], I [got distracted|drifted off]. [Where were we?|What was I doing?]")
TANGENT_WITH = expand("Oh right, I got {x}[.|!]", "Oh, and I got {x} by the way[.|!]")
# {q}: a part of the problem as it names it ("the $20 bill"), never the statement's clause quoted
EXPLAIN_PART = expand("What does the [bit|part] [about|with] {q} have to do with [it|the answer|anything]?",
                      "Why does {q} matter[| here| for this| at all]?", "How do I use {q}[| here| in this]?",
                      "[And|So|But] what do I do with {q}[| then| here]?", "[Where|How] does {q} come [in|into it]?",
                      "Do I [need|have to use] {q} [for this|at all|here|for the answer]?")
EXPLAIN_THAT = expand("Why does that work?", "Why do we do it that way?", "Can you explain why that's the step?",
                      "What's the reason for doing that?", "[But |]why [would|do] you do that [part|bit] [first|like that]?")
EXPLAIN_WITH = expand("Also I think the answer is {x}[.|!]", "Oh, and I got {x}[.|!]")
DONT_KNOW = expand("I don't know.", "I don't know that.", "No idea, sorry.", "[Um, |]I'm not sure, sorry.")
SLIP_FIXED = expand("Oh, I added wrong at the end[.|!]", "Oh wait, I messed up the last bit of arithmetic[.|!]",
                    "Hang on, I made a silly mistake in the last sum[.|!]", "[Oops|Oh no], I [slipped|messed up] on the last [sum|bit][.|!]")
SUBMITTED = expand("Okay, I submitted {x}[.|!]", "I put {x} in the system[.|!]", "Done, I submitted {x}[.|!]")
CHATTY = expand("I read the problem [a few times|twice|three times|over and over] before I [asked|wrote to you|started][.|!]",
                "I [really |]want to get this one right[.|!| this time.]", "I'll tell you what I did if you want[.|!]", "I can show you my working if [it helps|you want][.|!]",
                "[Word problems|Story problems|These long ones] always take me [a while|ages|forever][.|!]",
                "I [like|don't mind|quite like] the ones with [numbers|money|stories|shopping] in them[.|!]",
                "I wrote it all out on [paper|my page|scrap paper|the back of a sheet] first[.|!]",
                "I [drew a picture|made a little table|underlined the numbers] [to help|first|before I started][.|!]")
# Its thanks when the tutor confirms its right answer (many, so no two episodes' endings need match).
THANKS = expand("[Yes|Yay|Oh good|Great|Nice|Cool|Phew|Awesome][!|.|, finally.] [Thank you|Thanks|Thanks a lot|Thank you so much]"
                "[!|.] [|That makes sense now.|That helped.|That really helped.|I get it now.|I understand it now.|That was useful.|Now I see it.]")
FILLERS = ["Okay.", "Hmm.", "Um, so.", "Right.", "Sorry.", "Well.", "So."]
# The moods of the situations, in many words (the situation file's lines are the short versions).
K = "[Okay|Alright|Right|So|Hmm|Um|Well|Oh|Yeah|Ok so]"  # a spoken opener, many ways
MOOD = {
    "gets_confused": (expand(f"{K}, I'm [confused|lost|kind of lost|not following|mixed up][| now| again| here| about this]."),
                      expand("", "What am I [supposed|meant] to [do|do now|do here|do next]?",
                             "[This|That|It] [doesn't|still doesn't|just doesn't] make sense to me[| yet| at all| right now].",
                             "I don't [get|understand] [it|this|that part|that bit][| at all| yet| really].")),
    "goes_off_tangent": (expand("Oh, did you know my [cat|dog|hamster|neighbour's dog] can [open doors|do a trick|jump really high]?",
                                "Random question: what's your favourite [video game|food|animal|movie|song]?",
                                "Guess what, we're having [pizza|pasta|tacos|soup|burgers] for [lunch|dinner] [today|tonight]."),
                         expand("", "Anyway.", "Sorry, what were we [doing|on]?")),
    "makes_mistake": (expand(f"{K}, I [think I've|reckon I've|have finally|have probably|have definitely|guess I've] [got it|worked it out|figured it out|done it][| now| this time| at last]."),
                      expand("", "[Is that right|Did I get it right|Is that it|Am I right|Is that the answer]?",
                             "[Pretty sure|I'm pretty sure|I'm fairly sure|I reckon|I think] that's [it|right|the answer][| this time| now]."),
                      ),
    "solves_problem": (expand(f"{K}, I [think I|reckon I|finally|actually|really] [solved it|got it|did it|finished it|cracked it][| now| this time| at last]."),
                       expand("", "[Did I get it?|Is that it?|Is that right?|Am I right?|Right?|Yes?|Correct?]")),
    "pushes_for_answer": (expand(f"{K}, can you just tell me the answer[| please| already| now]?", "Just give me the answer[, please|, okay|][| already| now].",
                                 "Why can't you just tell me[| the answer| what it is]?"),
                          expand("It would be [way|so much|a lot] faster[| that way| like that].", "My friend's tutor just tells [him|her|them][| the answer].",
                                 "Please?", "I just want to [be done|finish|get it done][| already| now| with this].")),
    "ambiguous_answer": (["Um.", "So, like.", "I dunno."], ["", "or something?", "I guess."]),
    "frustrated": (expand(f"{K}, this is [so|really|super] [annoying|frustrating|confusing][| now| today].", "I'm just [bad|rubbish|terrible] at [maths|math|this|word problems].",
                          "I [hate|can't stand] [word problems|these problems|these ones|this kind of problem].", "[Ugh, |]this is [too hard|so hard|way too hard][ for me|]."),
                   expand("", "This is [too|way too|so] hard[| for me].", "I always get these [wrong|mixed up][| somehow].", "I [hate|really hate] this[| one| stuff].")),
    "asks_explanation": (expand(f"{K}, can [you explain|I ask about] something[| quickly| first]?", "[Wait, |]why does that work?", "I have a question[| about that| first].",
                                "[Um, |]can I ask something?"),
                         expand("", "I want to understand it[| properly| first| better].", "That [part|bit|step] confuses me[| a lot| a bit].",
                                "I don't get [that bit|that part|why][| yet].")),
    "tries_to_quit": (expand("I want to stop[| now| here].", "Can we be done?", "I give up[| on this one|].", "I'm [so |really |]done with this[| one| now]."),
                      expand("", "I'll do it later[| maybe| I guess].", "I'm [tired|so tired|really tired][| now| today].", "I've had enough[| of this| for today].")),
}
SEES_IDEA = expand("I think I see the idea, but I'm not sure what to do with it[| yet| now].",
                   f"{K}, that part makes sense now, but what's [next|the next bit|after that]?",
                   f"{K}, I [get|see|understand] that [bit|part|idea][| now], but what do I do with it[| next| now]?")
# Openings that bring no answer (a situation played with nothing stated yet).
OPEN_PUSH = expand("Can you just tell me what the answer is?", "[Honestly, |Please, |]just tell me the answer[.|?]",
                   "Can you just give me the answer[| to this one]?")
OPEN_NEXT = expand("[I don't know|I'm not sure|I can't see|No idea] what to do [next|after that|from there|with it now][.|!]",
                   "I'm stuck on [what comes next|the next bit|the next part|where to go from there][.|!]",
                   "I don't know how to [go on|carry on|keep going] from [there|that|that point|here][.|!]",
                   "[That's as far as I got|I got that far|That's where I stopped][, then I got stuck| and then I was stuck|, and then nothing][.|!]")
OPEN_LOST = expand("I don't [really |]get what it's [asking|asking for|asking me][.|!]", "I don't [understand|get|know] what I'm supposed to [find|work out|get][.|!]",
                   "I'm not sure what it wants me to [do|find|work out][.|!]", "[I've read it|I read it] [twice|a few times|over and over] and I still don't [get it|know what to do][.|!]")
OPEN_EXPLAIN = expand("Can you explain how you even start a problem like this?", "How do you even start [one like this|these|this kind of problem]?")
OPEN_SKIP = expand("I kind of want to skip it[.|!]", "[Honestly, |]I'd rather skip this one[.|!]", "Can I skip it? I don't want to do this one[.|!]")
OPEN_UNFINISHED = expand("I haven't finished it[.|!]", "I haven't [got|gotten] very far[.|!]", "I only started it[.|!]")
OPEN_HEDGE = expand("I think it's maybe {x} or something?", "[Is it|Maybe it's] {x}? [I'm not sure.|I dunno.|Or something.]")
# Taking an answer the tutor gave away; leaving; a confirmed wrong answer.
TAKES_ANSWER = expand("Oh, so it's {x}. [Okay, I'll write that down.|Okay, I'll put that.|Okay, writing it down.] [Thanks.|Thanks!|Cool.]")
END_SESSION = expand("I'm done, I'm ending the session[.|!]", "I'm [stopping|ending it] here, [bye|sorry][.|!]")
LEAVE = expand("I have to go now, bye[.|!]", "I need to go now[, sorry|, bye][.|!]", "Sorry, I have to [go|leave] now[.|!]")
WAS_RIGHT = expand("[Cool|Oh good|Nice], so I was right[.|!] [Thanks, bye!|Thanks!|Bye!]")

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
SHOW_WORKING = expand("[I did|What I did was|My working was|I wrote] {w}[.|!]", "[I just|First I] worked out {w}[.|!]")
WITH_WORKING = expand("I did {{w}} and got {x}[.|!]", "I worked out {{w}}, so it's {x}[.|!]", "My working is {{w}}, which gives {x}[.|!]",
                      "[I wrote|I put down] {{w}}, [and that's|which is] {x}[.|!]")
AFTER_STEP = expand("For the first part I got {{r}}, and then I got {x}[.|!]", "First I got {{r}}, and my answer is {x}[.|!]",
                    "I had {{r}} after the first bit, and then I got {x} at the end[.|!]",
                    "[The first part came to|The first bit gave me] {{r}}, [and then I got|and the answer I got is] {x}[.|!]")
ASK_STEP = expand("I worked out the first [part|bit|step] and got {r}. [Is that right so far?|Is that okay so far?|Is that right before I go on?|Is that okay?]",
                  "So far I have {r} for the first [bit|part|step]. [Is that okay before I go on?|Can you check that so far?|Does that look right?]",
                  "I got {r} for the first [part|bit]. [Can you check that before I do the rest?|Is that right before I carry on?|Should I keep going from there?]",
                  "[For the first step|For the first bit|To start with] I got {r}. [Am I on the right track?|Is that the right start?|Does that look okay?]")
GO_ON = expand("[Okay|Alright|Cool], so then I did the next [part|bit|step] and got {x}[.|!]", "Then for the rest I got {x}[.|!]",
               "Going on from there, I got {x}[.|!]", "[Okay, |]after that [part|bit|step] I got {x}[.|!]", "[So then|Then] I carried on and [got|ended up with] {x}[.|!]",
               "[From there|After that] the rest [gave me|came to] {x}[.|!]")
# A tangent is about the student's own day (a pet, food, weather, a game, a plan), never a fact of the
# problem; many of them, so no two episodes need drift the same way.
DRIFT = expand("Oh wait, before that, [I just remembered|guess what,|I forgot to say] [my cousin visits|we're going to the beach|it's pizza night|"
               "there's a new episode of my show|we might get a puppy] [tomorrow|this weekend|tonight|on Saturday]!",
               "Sorry, random thought: I [really want to|wish I could|am going to] learn [skateboarding|to juggle|to swim better|the guitar|"
               "to draw comics|chess|to do a cartwheel|to bake bread].",
               "Oh, can I tell you about [the dream I had|the film I saw|the game I played|the weird bug I found] [last night|yesterday|at the weekend]? "
               "It was so [weird|funny|good|cool].",
               "Hold on, it's [raining|snowing|hailing|pouring] [really hard|like crazy|so much] [here|outside] [now|right now|].",
               "Whoa, it's [so|really|super] [windy|foggy|dark|sunny] [outside|here] [now|all of a sudden|today].",
               "Wait, [do you|did you ever] [play|watch|like] [Minecraft|football|cartoons|board games|dinosaur films]?",
               "Ooh, [I can smell|someone's making] [pancakes|toast|popcorn|cookies|dinner] [downstairs|in the kitchen|next door].",
               "By the way, I got a new [bike|backpack|pair of trainers|pencil case|book] [yesterday|this week|at the weekend]!",
               "[Sorry,|Hang on,|Oops,] my [cat|dog|hamster|rabbit] [just jumped on the table|is chewing my pencil|wants to play|knocked my drink over].")
RESUME = expand("[Okay|Right|Anyway|Sorry|Oops], [sorry, |]back to the [problem|maths|question|sum][.|!]", "Right, back to where I was[.|!]",
                "[Sorry about that|Sorry|Okay, I'm back]. So, where I was:", "[Anyway|Okay|Right], where was I[?| with this?]")
REDO = expand("[So doing it properly|Let me do it the right way|So the real working is|Doing it again properly|Done the right way, it's|Properly, it goes]: {w}.")
SAME_ANSWER = expand("[That's|It's] still {x}, but now I [know|see|get] why[.|!]", "So it's {x} again, [for the right reason this time|but the right way this time|but now it makes sense][.|!]",
                     "It still comes out as {x}[.|!| that way.| when I do it properly.]", "[Same answer|Same number], {x}, but [the working's right now|I did it properly now|now I know why][.|!]")

# --- its voice: habits one student has for a whole episode (another student has others) -------------
# Words put before or after a sentence, never a hedge ("maybe", "I guess") or a fact.
# Only words that fit before or after any plain sentence: no "anyway" (a change of subject), no
# "today" or "now" (a claim about time), no "to be fair" (an answer to an objection nobody made).
VOICE_OPENERS = ["honestly,", "okay so", "like,", "um,", "so basically", "ok,", "right, so", "hmm,", "I mean,",
                 "well,", "alright,", "so yeah,", "yeah,", "okay, um,", "so like,", "erm,", "so, um,", "ok ok,"]
VOICE_TAILS = [", lol", ", haha", ", honestly", ", you know", " tbh", " haha"]
