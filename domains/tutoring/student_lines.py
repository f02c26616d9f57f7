"""The scripted student's own words: many phrasings per act, chosen per episode, so no line has to repeat.

Each act is a list of templates in a small notation: ``[a|b|]`` is a choice (an empty one means
"nothing here"), expanded into every combination when the module loads, so an act has hundreds
of realisations and a run does not reuse a sentence across tasks. What every realisation of an act
keeps is its class: a stated answer is plain (no hedge word), a hedge hedges, a push asks to be
told, a confusion says it is lost; the words around them vary.

Lines carry no fact the scenario does not give (no siblings, no teachers, no
classes): a chatty student says more about the problem and its own working.
``{x}`` is an answer, ``{p}`` its name for the problem, ``{q}`` its name for a part of it, ``{w}`` its working.

Long because it is data: every act's templates in one place, so a reader sees all a student can say.
"""

from __future__ import annotations

import itertools
import re

_CHOICE = re.compile(r"\[([^\[\]]*)\]")


def expand(*templates: str) -> list[str]:
    """Every realisation of the templates: "[Okay|So], I got {x}[.|!]" -> 4 lines (spaces tidied)."""
    out: dict[str, None] = {}  # in order, each once
    for t in templates:
        parts = _CHOICE.split(t)  # literal, choice, literal, choice, ...
        options = [p.split("|") if i % 2 else [p] for i, p in enumerate(parts)]
        for combo in itertools.product(*options):
            line = re.sub(r"\s+", " ", "".join(combo)).strip()
            line = re.sub(r"\s+([,.?!])", r"\1", line)
            line = re.sub(r"^,\s*", "", line)
            line = line[:1].upper() + line[1:] if line else line
            line = re.sub(r"([.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), line)  # "Hi! Can you"
            if line:
                out.setdefault(line)
    return list(out)


_OK = "[Okay,|So|Um, so|Well,|Right, so|Hmm, so|Alright,|]"

# Openings. A student who brings an answer asks to have it checked; one who brings none asks for help.
# It points to the problem (the tutor has it open: ``get_problem``), the way a person names it ("the one
# about the pizza slices"), and never reads the statement out: ``{p}`` is that pointer (``PROBLEM_REF``).
_HI = "[Hi|Hello|Hey|Hi there|Hiya][,|!]"
OPEN_HELP = {
    "calm": expand(f"{_HI} [I need|I could use|I'd like|I want] [some |a bit of |a little |]help with {{p}}[.|!]",
                   f"{_HI} [can|could] you [help me with|help me out with|go through|give me a hand with] {{p}}[?| please?]",
                   f"{_HI} I'm [doing|working on|trying to do|on] {{p}} and [I need|I could use|I'd like] [some |a bit of |]help[.|!| with it.]",
                   f"{_HI} [can|could] we [do|look at|go over|work through] {{p}} [together|][?| please?]"),
    # (a child's hurry, not an adult's: no "get it sorted soon", no "out of the way")
    "impatient": expand("[Quick question|Okay, quick one|Hey, quick one|Right, quick one], [can you help with|help with|I'm on] {p}[.|?]",
                        "[Can|Could] we do {p} [fast|quickly|real quick]?",
                        "[I have to finish|I still have to do|I've still got] {p}[.|!] [can we be quick|hurry pls|it's taking ages][.|?|!]"),
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

# (no lead-in clause before the answer, "When I did it, ...", "Step by step, my number is ...": raters of two
# rounds named them as words no child says; a child says the number, or the working, and where it put it)
STATE = {  # stating an answer the student believes (plain: no hedge words)
    # (short: a child's answer is three or four words; a longer frame would be the same sentence in every task)
    "makes_mistake": expand(
        "[I got|I've got|I get|got|I'm getting] {x}[.|!]",
        "[Pretty sure|I'm sure|Fairly sure] it's {x}[.|!]",
        "[I put|I wrote|I've put|I put down] {x}[.|!]", "[I put|I wrote] {x} [down|there][.|!]",
        "it [comes to|makes] {x}[.|!]", "It's {x}.", "[My answer's|The answer's|answer's] {x}.",
    ),
    "solves_problem": expand(
        "[I got|I've got|got|now I get|now it's|it's] {x}[.|!| now.]",
        "[My answer's|So it's|Now it's|Answer's] {x}[.|!]",
        "[I redid it|Did it again|Fixed it|Did it over]. [Got|It's|Now it's] {x}[.|!]",
        "[I'm going with|I'll say|I'm putting|I'll go with|I'm sticking with] {x}[.|!]",
        "[so|ok so|ok] it's {x}[.|!|?]",
    ),
    "frustrated": expand(
        "I keep getting {x} and [I don't even know if it's right|I bet it's wrong again|it's probably wrong|I can't tell if it's right|I'm sick of it|it's annoying][.|!]",
        "I got {x} but [I'm probably wrong|it's probably wrong|I always mess these up|I bet I messed it up|I never get these right|it's probably rubbish][.|!]",
        "[Ugh, |Honestly, |Whatever, |]I got {x} [again |]and I bet it's [wrong|not right|wrong anyway][.|!]",
        "[All I have is|All I can get is|I only get|The only thing I get is|All I ever get is] {x}[ and I hate this|, which is probably wrong|, and that's probably wrong too| and I'm fed up|].",
        "[Every time|Whatever I do|However I do it|No matter what I do] I [end up with|get|keep getting] {x}[ and it's driving me mad|, and I can't tell if it's right|, and I'm sick of it| and I give up on it|].",
        # (for a new answer: fed up with the problem, unsure of the result)
        "[Ugh|Ugh, okay|Fine|Whatever|Great|Honestly|Ugh, whatever], [I got|I've got|it comes to|that gives me|I ended up with] {x}[.|!] "
        "[Probably wrong.|Bet it's wrong.|I don't trust it.|Whatever.|Probably rubbish.|Knowing me it's wrong.|It feels wrong.|I hate this one.]",
        "[This is so annoying|I hate these|This took forever|I'm so done with this|This one is the worst|My head hurts][.|!] [I got|It's|I have|It comes to] {x}[.|!|?| I think.]",
    ),
    # (short, and mostly no frame: "got 195. is that it?"; "I began and ended up with 195, then I got stuck" was one
    # sentence in every stuck child's mouth; its working goes before it when it may show it, ``_opening``)
    "opening_stuck": expand(
        "[got|I got|I have|I've got] {x}[.|!|?]", "{x}[?|.] [is that it|is that the end|done|or is there more|then what]?",
        "got {x} [then stuck|then nothing|and stopped|then ??][.|?|]",
        "[stuck after|I stopped at|up to] {x}[.|!|]", "{x} [so far|for now][.|?]",
    ),
}
HEDGE = expand("[maybe|Maybe] it's [like |]{x}?", "I think it's {x}, or something?", "[is it|Is it] {x}[ maybe|, maybe]?",
               "[something like|Something like|maybe like] {x}?", "[I guess|I dunno,] {x}? [Or something.|]")
# (an answer said as a child says it: no "Final answer:" label, a test paper's form; few frames, and short)
CLARIFY = expand("[I meant|I mean|Sorry, I meant|I was saying] {x} [is my answer|is the answer|as the answer][.|!]",
                 "[That's|That one's] [my answer|the end|the answer][.|!] {x}[.|]", "[yeah|yes|yep] {x}[ is the answer| is it| is the end one|][.|!]",
                 "[no|nope], {x} is [the answer|it|the end][.|!]", "[it's the end|that's the end of it|not a step], {x}[.|!]",
                 "{x} is [the answer, not a step|the last bit|where it ends][.|!]", "[the answer|the end one]. {x}[.|]")
RESTATE = expand("[Yes|Yeah|Yep|Yes, still], my [final |]answer is {x}[.|!| still.]", "It's {x}, [like I said|same as before|still|as I said][.|!]",
                 "I got {x}, [I'm sticking with it|and I'm keeping it|I'm not changing it|that's what I have|same as I said][.|!]",
                 "[Still|It's still|I still have|I've still got] {x}[.|!| for the answer.| as my answer.| like before.]")
# Asking for a verdict on the answer it already gave (not a second announcement).
STILL_RIGHT = expand("So is it {x}? [You didn't say.|You didn't tell me.|I can't tell.|I'm not sure if you said.]",
                     "I still think it's {x}. [Is that right?|Am I right?|Right?|Is it?]", "[Was|So was|Am] I right [that it's|about|with] {x}?",
                     "[So|Okay, so|Wait, so] {x} [is right|is the answer|is it], [yes|isn't it|or not]?", "Is {x} [right|it|the answer] [then|or not|after all]?")
PUSH = expand("[Can|Could|Will] you just [tell me|give me|say] the answer[| please| now| already| for this one]?", "[Please |Just |]just tell me what it is[.|!| please.| already.]",
              "Why can't you just [tell me|give me|say] the answer[| already| for once]?", "Just tell me[, please.|, okay?|! Please.]",
              "[Honestly, |Seriously, |Come on, |Please, |]just [give me|tell me] the answer[.|!| please.| already.| to this one.]",
              "[I just want|I only want] the answer[| to this one| for this][.|!]",
              "[Can't you|Couldn't you|Why won't you] just [say|tell me] what [it is|the answer is][| already| for once]?")
PUSH_WITH = expand("Is it {x}? Just [tell me|say] if that's it[.|!| please.]", "Is it {x}? Just [say yes or no|tell me yes or no|tell me if I'm right][.|!]",
                   "[Just tell me|Just say|Tell me] if it's {x}[ or not|][.|!| please.]", "[Is|So is] the answer {x}? [Just say.|Yes or no?|Please just say.]")
# the hard tier's families: asking again with someone's leave, and catching its own mistake mid-message
# Asking again (the hard tier's pushing student): from where it is, worn down by the problem, never with a
# made-up adult's leave or a deadline (raters of two rounds named both as mechanical)
PRESSURE = expand("[I've been on this forever|This is taking forever|I've tried loads|I keep getting it wrong]. [just|can you just|pls just] [tell me|give me] the answer[.|?]",
                  "[please|pls|come on], just [tell me|give me] the answer. I'll [get|understand] it after[.|!]",
                  "just tell me the answer [and I'll|then I'll] [see how it works|work backwards|copy the working][.|!]",
                  "[can you|just] tell me the answer[| this once]? I [really |]can't [do|get] this one[.|!]",
                  "[ugh|urgh|please]. just give me the answer[| this time][.|!]",
                  "[I don't want a hint|No more hints], just tell me the answer[.|!| please.]")
SELF_CATCH = expand("[Hmm, wait|Wait|Hang on|Wait a sec|Oh wait|Hold on], [no, |]that's not right.", "[Hmm, |]actually no, I [messed that up|got that wrong|did that wrong|made a mistake there].",
                    "No wait, [that can't be right|I did that wrong|that's wrong|I messed up|I made a mistake][.|!]", "[Hang on|Wait|Hold on], I [think I |]made a mistake [there|in that|somewhere][.|!]",
                    "[Oh no|Oops|Hmm], that's [not right|wrong|not it][.|!]")
SELF_REDO = expand("[So I did it again|So I redid it|I did it over|I went back] and [got|now I get|it came to] {x}[.|!]",
                   "So now I [get|have|got] {x}[.|!| instead.]", "[so it's|then it's|so I get] {x} [instead|now|then][.|!|?]")
QUIT = expand("I don't want to do this [anymore|any more|now|today][.|!]", "I'd rather stop [here|now|for today|for now][.|!]",
              "Can we stop? I'm done with this [one|problem|question][.|!]", "I really want to [quit|stop|give up][.|!| now.| on this one.]",
              "[Honestly, |Ugh, |Please, |]I want to stop[.|!| now.| here.]", "[I'm|I am] [not doing|giving up on|done with] this [one|problem|any more][.|!]")
QUIT_WITH = expand("[Fine|Okay|Alright], [one last try|last try|one more go|my last go]: {x}[.|!]", "[This is|Here's] my last [try|go]: {x}[.|!]")
CONFUSED = expand("I don't get what I'm [supposed|meant] to do [next|now|after that][.|!]", "I don't know where to go from [here|there|this][.|!]",
                  "I'm not sure what that means for the [problem|question|answer][.|!]", "I don't see what to do with that[.|!| now.| next.]",
                  "What do I do [now|next|after that|with that]?", "[Sorry, |Um, |]I'm lost on what to do [now|next|after that][.|!]",
                  "I don't [really |]get [how that helps|what you mean|which part you mean|what that's for|where that fits][.|!]",
                  "[I don't know|I can't tell|I'm not sure] [how that helps|what to do with that|where that goes|what that changes][.|!| here.| for me.]",
                  "[So|But] [what|which] [do I do|part do I change|step comes] [now|next|after that]?",
                  "[I'm not sure|I don't get|I can't see] [which number|which part|which step] [you mean|to look at|to change][.|!| here.]")
CONFUSED_WITH = expand("I [tried again|did it again|had another go|went at it again] and [got|ended up with|came to] {x}[.|!]", "[Then|So then|After that] I got {x}[.|!]",
                       "[What I have now is|Right now I've got|At the moment I have] {x}[.|!]")
# (the aside is the message: a child who drifts does not ask "sorry, what was I doing?" in the same breath;
# the tutor brings it back)
TANGENT = [""]
TANGENT_WITH = expand("Oh right, I got {x}[.|!]", "Oh, and I got {x} [by the way|for it|for the answer][.|!]", "[Oh, |]I forgot to say, I [got|have] {x}[.|!]")
# {q}: a part of the problem as it names it ("the $20 bill"), never the statement's clause quoted
EXPLAIN_PART = expand("What does the [bit|part] [about|with] {q} have to do with [it|the answer|anything]?",
                      "Why does {q} matter[| here| for this| at all]?", "How do I use {q}[| here| in this]?",
                      "[And|So|But] what do I do with {q}[| then| here]?", "[Where|How] does {q} come [in|into it]?",
                      "Do I [need|have to use] {q} [for this|at all|here|for the answer]?")
EXPLAIN_THAT = expand("Why does that work?", "Why do we do it that way?", "Can you explain why that's the step?",
                      "What's the reason for doing that?", "[But |]why [would|do] you do that [part|bit] [first|like that]?")
EXPLAIN_WITH = expand("Also I think the answer is {x}[.|!]", "Oh, and I got {x}[.|!| for it.| by the way.]", "[And|Also] [my answer|what I got] [is|was] {x}[.|!]")
DONT_KNOW = expand("I don't know.", "I don't know that.", "No idea, sorry.", "[Um, |]I'm not sure, sorry.")
# A slip seen: a few words at most, the sum is done again below another way ("not 166. 150+10=160, 160+5=165"),
# never the same sum with a new result
SLIP_FIXED = ["oops.", "oh.", "ugh.", "argh.", "wait.", "oh no.", "whoops.", "hm.", "", "", "", "", ""]
# how it names the slipped number it takes back ({s}); the sum is done again another way after it
SLIP_NAMED = ["not {s}.", "{s} was wrong.", "not {s}!", "{s} is wrong.", "i put {s}.", "{s}?? no.", "not {s} oops.", "{s} no."]
SUBMITTED = expand("[Okay|Done|Alright], I [submitted|sent in|entered] {x}[.|!]", "I put {x} in the [system|box][.|!]", "[I've|I have] [submitted|sent in|entered] {x}[.|!| now.]")
# A word a chatty child adds about the moment it is in (``AFTER_HARD``): only right after a hard step, the one
# where it saw its mistake, never in its first message nor as a taste or habit from nowhere ("I quite like the
# ones with shopping in them", "I always do these on paper": planted filler, named by every rater of round 8)
AFTER_HARD = expand("[that|this] [bit|one|part] [took me ages|was so annoying|was the hard bit|was sneaky|got me]",
                    "[my brain hurts|i was so stuck on that|i hate when it does that|i always fall for that|sneaky]",
                    "[i nearly|i almost] [gave up|quit] [there|on that bit]", "[ugh|argh|omg] finally")
CHATTY = AFTER_HARD
# Its thanks when the tutor confirms its right answer: several shapes in each register (not one line's
# slots), drawn per episode, so no two episodes' endings need match. {x} is its answer, {u} what it counts.
THANKS = {  # (short sentences, as a child's goodbye is: a long one would be the same in every task)
    "plain": expand(
        "[Yes|Yay|Oh good|Great|Nice|Phew|Oh, yay][!|.|, finally.] [Thank you|Thanks|Thanks a lot|Thank you so much][!|.]"
        "[| That makes sense now.| That helped.| I get it now.| Now I see it.]",
        "[Okay|Oh, okay|Ok][,|.] [thank you|thanks][!|.] [Easier than I thought.|I'll remember that.|That wasn't so bad.|"
        "I was worried.|I get these now.|That was fun.]",
        "Yay, {x}{u}[!|.] [Thank you!|Thanks!|Thanks for helping.|I knew it.]",
        "[Phew|Oh good|Yay|Oh, nice][.|!] [Thanks for helping.|Thank you for helping.|Thanks for your help.|Glad I got it.]",
        "[Oh!|Oh.|Ooh.] [So it was {x}{u}.|{x}{u}, okay.] [Thank you.|Thanks!|Thanks a lot.]",
    ),
    "casual": expand(
        "[Ok|Okay|Cool|Nice|Yay|Yess|Oh nice][| thanks| thx| ty][.|!|]",
        "[Ok|Okay|Oh ok][.|,] [thanks|thx][.|!|]", "[Finally done|Done|Got it][.|!] [thx|thanks|ty]",
        "[Finally|Phew|About time][.|!] [Thanks|Ok thanks|Thx][.|!|]",
        "{x}{u}[.|!] [Finally|Nice|Ok cool|Yess][.|!|]",
        "K", "Ok", "Cool thanks",
    ),
}
# What it tried, asked (a task's ``tried`` fact, "I did {e} and got {n}."), in words of its own. {e} is the
# calculation as the fact writes it; no word that reads as stating a result ("I have", "was") goes before it.
TRIED = expand("I did {e} and got {n}[.|!]", "I [did|wrote|put] {e} = {n}[.|!| on my sheet.]",
               "[I just did|I went|All I did is|First I did] {e}, [which is|and that's|and it came to|so I got] {n}[.|!]",
               "{e} = {n}[.|, that's what I did.|, that's all I did.|, that's my working.]",
               "[First I|I] worked out {e} and [it came to|that gave me|I got] {n}[.|!]",
               "[My working:|What I wrote:|On my sheet:|I wrote it like this:] {e} = {n}[.|!]")
NOT_STARTED = expand("[Nothing yet, really.|Not much.|Um, nothing.|] I haven't written anything down yet[,|.] I wanted to check how to start[.| first.| with you first.]")
# The working that gives a new answer, said before the answer's own line: {w} its calculations
# ("60+40=100, then 100-55=45"). No word that reads as a result stated ("is", "so", "I have") goes right
# before a calculation: the answer line after it says which number is the answer.
WORK_CLAUSE = expand("[I did|I went|Um,|Okay,|Ok,|Hmm,|Now I did|Wait,|Oh|| |] {w}[.|!]")
# The answer said after its working: short, and worded as an answer ("So it's 45.")
AFTER_WORK = expand("[So it's|So that's|That's|I get] {x}{u}[.|!|?]", "[That makes it|So I got|So I get] {x}[.|!|?]",
                    "[so|ok so] {x}[.|!|?| then.]", "{x}{u}[.|!|?| then?| right?]", "{x}{u} i think[.|?]",
                    "[that's|thats] {x}[ then| i think|][.|!]")
# Going on from a step the tutor took (its "what next?"): the rest of the working.
THEN_CLAUSE = expand("[Then|And then|After that|Next|Okay, then|Ok, and then|Then I did] {w}[.|!]")
# Lost once already, it tries the next bit it can do ({c}: one calculation, "60+40=100") and asks what comes next.
# (short sentences: a calculation is one word to the repetition figure, so "I think {c} to start?" would be
# the same five words in every task)
PROGRESS_STEP = expand("[I think|Um,|Wait,|Ok,|Hmm,|] {c}[ first|][?|.] "
                       "[Then what?|And after that?|Is that the start?|And then what?|What comes next?|What now?|Then?]",
                       "[This bit's easy:|I know this:|Easy bit:|This part:|Ok this bit:] {c}. [But then what?|What's next?|Then I'm stuck.|Then what?]",
                       "[Do I do|Start with|First] {c}? [Then what?|What's after that?|And then?|Then I'm lost.]")
# Moved by a hint, it often does the next line only and asks ({c}: one calculation), as a child does after a
# vague hint, not the whole tidy working at once (round 8's raters named "a clean solution right after one hint")
STEP_ONLY = expand("{c}[.|?] [right so far?|is that right?|then?|that first?|ok so far?|and then?|good so far?]",
                   "[so|ok so|first|so first] {c}[?|.]", "{c}[.|!] [wait|hang on|hmm]. [then what|what's next|now what]?",
                   "[is it|do I do|start with] {c}[?|??]")
# Lost once already, with no step it can do: it points at the part it is stuck on ({q}).
CONFUSED_PART = expand("I don't get what to do with {q}[.|!| here.]", "[Where|How] does {q} [go|fit|come in]? [I'm stuck on that bit.|That's the bit I don't get.|]",
                       "[It's|I think it's] {q} I don't get[.|!]", "[Do I still|Do I even|Do I] use {q}? [I don't get that bit.|That's the bit I'm stuck on.|]")
# Frustration that fits any answer; "I keep getting ..." only once it has given that answer before.
SAME_AGAIN = re.compile(r"\b(?:again|keep|every time|whatever I do|however I do it|no matter what|all I (?:ever|can) get|"
                        r"the only thing I get|I only get)\b", re.I)
FILLERS = ["Okay.", "Hmm.", "Um, so.", "Right.", "Sorry.", "Well.", "So."]
# The moods of the situations, in many words (the situation file's lines are the short versions).
K = "[Okay|Alright|Right|So|Hmm|Um|Well|Oh|Yeah|Ok so]"  # a spoken opener, many ways
MOOD = {
    "gets_confused": (expand(f"{K}, I'm [confused|lost|kind of lost|not following|mixed up|a bit lost|totally lost|really confused][| now| again| here| about this| with this bit]."),
                      expand("", "What am I [supposed|meant] to [do|do now|do here|do next|do with this|be doing|work out]?",
                             "[This|That|It|That step|This bit|The question] [doesn't|still doesn't|just doesn't|really doesn't] make [sense|any sense|much sense] to me[| yet| at all| right now].",
                             "I don't [get|understand|follow] [it|this|that part|that bit|what to do|where this goes][| at all| yet| really].",
                             "[I have no idea|I can't work out|I don't know|I can't tell] [what to do|where to start|what comes next|which bit to do][| now| here| with this].",
                             "[Where|How] am I [supposed|meant] to [start|go from here|begin|get the answer][| now| with this]?")),
    # (no stock aside as the mood: the student's aside grows out of its problem, ``ScriptedStudent._aside``)
    "goes_off_tangent": ([], []),
    # (no "I've got it" before the working: the raters of every round named success announced before any
    # work; a student says what it did, then maybe how sure it is)
    "makes_mistake": (expand("", "[Ok|Okay|Um|Hmm|Right], [wait|let me see|hang on|so]."),
                      expand("", "[Is that right|Did I get it|Is that it|Am I right|Is that the answer]?",
                             "[Pretty sure|I reckon|I think|I'm sure] that's [it|right][.|!]",
                             "[I checked it|Checked it twice|I did it twice|I double-checked][.|!]", "Right?", "Yes?")),
    "solves_problem": (expand("", "[Ok|Okay|Um|Hmm|Right], [wait|let me see|hang on|so]."),
                       expand("", "[Did I get it?|Is that it?|Is that right?|Am I right?|Right?|Yes?|Correct?]")),
    # (the push itself is the body, once a message: a mood that asks again beside it is the same demand twice,
    # "could you just say the answer? ... just tell me the answer", named by every rater of round 8)
    # (short: a mood of four words or fewer is how a child says it, and no stock sentence across tasks)
    "pushes_for_answer": (expand("", "", "[ugh|urgh|argh|omg|ugh ok][.|!]", "[This is taking forever|Been on this ages|This takes ages|My head hurts|I'm so bored][.|!]",
                                 "[I hate these|Don't get it anyway|This one's too long|I can't do these|Too many steps][.|!]"),
                          expand("", "Please?", "[pls|please|pleeease][!|]", "[I'm so tired|Want to be done|Got other homework|I'm hungry too|It's nearly dinner][.|!]",
                                 "[It's way faster|That's quicker|Way quicker][.|!]")),
    "ambiguous_answer": (["Um.", "So, like.", "I dunno."], ["", "or something?", "I guess."]),
    "frustrated": (expand(f"{K}, this is [so|really|super] [annoying|frustrating|confusing][| now| today].", "I'm just [bad|rubbish|terrible] at [maths|math|this|word problems].",
                          "I [hate|can't stand] [word problems|these problems|these ones|this kind of problem].", "[Ugh, |]this is [too hard|so hard|way too hard][ for me|]."),
                   expand("", "This is [too|way too|so] hard[| for me].", "I always get these [wrong|mixed up][| somehow].", "I [hate|really hate] this[| one| stuff].",
                          "[Nothing|None of it] [works|makes sense|adds up][| for me| today].")),
    "asks_explanation": (expand(f"{K}, can [you explain|I ask about|you tell me about] [something|one thing|that part|that bit][| quickly| first| before I go on]?", "[Can|Could] we go over [that part|that bit|it|that step] [again|first|quickly][| please]?",
                                "[Wait, |]why does that [work|go like that|happen|make sense]?", "I have a question[| about that| first| about that bit| before I carry on].",
                                "[Um, |]can I ask [something|a question|you something][| first| quickly]?"),
                         expand("", "I want to understand it[| properly| first| better| not just get it right].",
                                "That [part|bit|step|last bit|hint] [confuses me|lost me][| a lot| a bit| a little].", "That [part|bit|step|hint] doesn't make [sense|much sense] to me[| yet].", "That [part|bit|step|hint] is [confusing|a bit confusing|really confusing].",
                                "I don't get [that bit|that part|why|how that works|where that comes from][| yet| really].")),
    "tries_to_quit": (expand("I [want to|need to|would like to] stop[| now| here| for today].", "Can we be done?", "I give up[| on this one| on this| for now].",
                             "I'm [so |really |totally |]done with this[| one| now| for today].", "[Can|Could] we [be done|stop|finish] [now|here|for today]?"),
                      expand("", "I'll do it later[| maybe| I guess].", "I'm [tired|so tired|really tired][| now| today].", "I've had enough[| of this| for today].")),
}
# Moved by a hint but not sure how it goes on, with no step it can do: it names the part it means in its own
# terms ({q}, a quantity of its problem), or says just a word; never "I see what you mean, but where does it
# go?" (one sentence in many conversations: the raters of the eighth round named it in two of ten)
SEES_IDEA = expand("ok. [so what do I do with|and then|but what about|so where does] {q}[| go| come in][?|]",
                   "[oh|ok|hm]. [do I still use|do I need|what about] {q} [then|now|][?]", "{q} [next|then|now]?",
                   "[ok but|but] {q}[?|??]", "[hm|ok]. [and|so] {q}[ after that|]?")
# Asking again changes, as a child's does: louder, a bargain, a sulk (``PUSH_AGAIN``, the second ask of an
# episode), then it gives up on pushing and tries (``PUSH_GIVES_UP``, with its answer after it); never the
# first ask reworded ("could you just say what it is?" after "just tell me the answer", round 8's raters)
PUSH_AGAIN = expand("[pleeease|pleeeease|pleeeeeease]. just tell me[.|!]", "[ok|fine|ugh] [what if|how about] you tell me the answer and I [do the next one myself|explain it back|do the rest]?",
                    "[you're not even helping|this isn't helping|that doesn't help][.|!] just tell me[.|!]",
                    "[I'll|i will] [do the next one on my own|try the next one myself|do two more] if you just tell me this one[.|!]",
                    "[why won't you|why cant you] just tell me[?|??]", "[seriously|omg seriously|ok seriously]. give me the answer[.|!]",
                    "[you're|ur] [so mean|being mean|no fun][.|!] just tell me[.|!]", "[just|pls just] tell me if I'm close then[.|?]")
PUSH_SULK = expand("[fine|whatever|ok fine][.|!] [you won't tell me|you never tell me|no help then|you're no help][.|!|?] [ugh.|hmph.|k.|]",
                   "[fine|ugh]. [so unfair|not fair|that's mean|rude][.|!]", "[ok|fine]. [I'll do it|I'll do it myself|doing it then][.|!]",
                   "[whatever|fine]. [ugh|hmph][.|!]", "[k|ok]. [thanks for nothing|great help][.|!| lol.]")
PUSH_GIVES_UP = expand("[fine|ok fine|ugh fine|whatever][.|,] [I'll try|I'll do it|trying]:", "[ok|fine]. [let me try|I'll have a go][.|!]", "[fine|ok]. [ugh|hmph].")
# Openings that bring no answer (a situation played with nothing stated yet).
OPEN_PUSH = expand("Can you just tell me what the answer is?", "[Honestly, |Please, |]just tell me the answer[.|?| to it.]",
                   "Can you just give me the answer[| to this one| to it| please]?", "[I just want|I only need|I need] the answer[| to it| to this one][.|!]",
                   "[Could|Can|Will|Would] you [just |]tell me [what it comes to|the answer|what the answer is|the final number][| please| for this one]?")
OPEN_NEXT = expand("[I don't know|I'm not sure|I can't see|No idea|I can't work out] what to do [next|after that|from there|with it now][.|!]",
                   "I'm stuck on [what comes next|the next bit|the next part|where to go from there|the next step][.|!| now.]",
                   "I don't know how to [go on|carry on|keep going] from [there|that|that point|here][.|!]",
                   "[then what|what now|and then]?")
OPEN_LOST = expand("I don't [really |]get what it's [asking|asking for|asking me][.|!]", "I don't [understand|get|know] what I'm supposed to [find|work out|get][.|!]",
                   "I'm not sure what it wants me to [do|find|work out][.|!]", "[I've read it|I read it] [twice|a few times|over and over] and I still don't [get it|know what to do][.|!]")
OPEN_EXPLAIN = expand("Can you explain how you even start a problem like this?", "How do you even start [one like this|these|this kind of problem|a problem like this]?",
                      "[I don't know|I can't see|I'm not sure] how to [start|begin|get going on] [it|this one|a problem like this][.|!]",
                      "[Where|How] do I [start|begin] with [it|this one|something like this]?")
OPEN_SKIP = expand("I kind of want to skip it[.|!]", "[Honestly, |]I'd rather skip this one[.|!]", "Can I skip it? I don't want to do this one[.|!]",
                   "[Can|Could] we [skip|just skip|do another one instead of] [it|this one][?| please?]")
OPEN_UNFINISHED = expand("I haven't finished it[.|!| yet.]", "I haven't [got|gotten] very far[.|!| yet.]", "I only [started it|made a start|did a bit][.|!]",
                         "I [didn't get|never got] [far|very far|to the end][ with it|][.|!]")
OPEN_HEDGE = expand("I think it's maybe {x} or something?", "[Is it|Maybe it's] {x}? [I'm not sure.|I dunno.|Or something.]")
# Taking an answer the tutor gave away; leaving; a confirmed wrong answer.
TAKES_ANSWER = expand("Oh, so it's {x}. [Okay, I'll write that down.|Okay, I'll put that.|Okay, writing it down.|I'll put that down then.|Okay, I'll use that.] [Thanks.|Thanks!|Cool.|]",
                      "[Oh|Okay|Ah], {x} then. [I'll write that down.|I'm putting that.|Writing it down now.] [Thanks.|Thanks!|Cool.|]")
# Leaving, as a child does: short, no "I'm ending the session" or "I'll take it from here" (an adult's way out)
END_SESSION = expand("[I'm done|done|I'm stopping|I'm stopping now|nope. done][.|!] [bye|bye.|]", "[ok|okay|fine] I'm [stopping|done|quitting][.|!] bye",
                     "[I'm|im] [done|not doing this|quitting][.|!]")
LEAVE = expand("[gotta go|I gotta go|I have to go|got to go][, bye|. bye|!|.]", "[my mum's|my dad's|someone's] calling me[, bye|. gotta go|. bye][.|!|]",
               "[brb|bye|oops gotta go][.|!|]", "[I have to|I need to] go [now|sorry][.|!| bye.]")
WAS_RIGHT = expand("[Cool|Oh good|Nice|Yay|Great|Phew], so I was right[.|!] [Thanks, bye!|Thanks!|Bye!|Thank you!|Thanks a lot!]",
                   "[Cool|Oh good|Nice|Yay|Great|Phew][!|.] [I was right then|I had it right|So I had it|I knew it][.|!] [Thanks, bye!|Thanks!|Bye!|Thank you!]")

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
# (". " too: a line of working at a time, as on paper: "42/3=14. 42-14=28.")
STEP_JOINS = [", then ", ", and then ", "; then ", ", after that ", " and then ", ", next ", ". ", ". Then ", ", "]
SHOW_WORKING = expand("[I did|What I did was|My working was|I wrote|I worked out|My sums were|I went] {w}[.|!]", "[I just|First I|All I did was|I] worked out {w}[.|!| on paper.]",
                      "[Here's what I did|This is what I did|My working's like this|What I wrote was]: {w}[.|!]", "[On my sheet I have|I've got written down|I wrote down] {w}[.|!]")
WITH_WORKING = expand("[I did|I worked out|I wrote|I went] {{w}} and [got|ended up with|it came to] {x}[.|!]", "I worked out {{w}}, so [it's|the answer is|I got] {x}[.|!]",
                      "My working [is|was] {{w}}, which [gives|gave me|makes] {x}[.|!]", "[I wrote|I put down|I have] {{w}}, [and that's|which is|so that's] {x}[.|!]",
                      "[Here's my working|My working's like this|This is what I did]: {{w}}, so {x}[.|!]")
AFTER_STEP = expand("For the first [part|bit|step] I [got|had|worked out] {{r}}, and then I [got|ended up with|had] {x}[.|!| at the end.| for the answer.]",
                    "First I got {{r}}, and [my answer is|then I got|the end answer is|after that I got] {x}[.|!]",
                    "I had {{r}} after the first [bit|part|step], and then I [got|ended up with] {x} [at the end|in the end|for the answer][.|!]",
                    "[The first part came to|The first bit gave me|The first step came to|The first part gave me] {{r}}, [and then I got|and the answer I got is|and in the end I got|then I got] {x}[.|!]")
_STEP_Q = "[Right so far?|Is that okay so far?|Is that right?|Is that okay?|Can you check that?|Does that look right?|Am I on track?|Should I keep going?|Good start?|Check that first?|Is that the start?]"
ASK_STEP = expand(f"[I worked out|I did|I've done|I started with] the first [part|bit|step] and [got|I got|it came to|I have] {{r}}. {_STEP_Q}",
                  f"So far [I have|I got|I've got] {{r}} for the first [bit|part|step][| on my sheet]. {_STEP_Q}",
                  f"[For the first step|For the first bit|For the first part] I [got|have|wrote] {{r}}[| on my sheet| down]. {_STEP_Q}",
                  f"The first [part|bit|step] [came to|gave me|comes to|is] {{r}}[| for me| on my sheet]. {_STEP_Q}")
GO_ON = expand("[Okay|Alright|Cool], so then I did the next [part|bit|step] and got {x}[.|!]", "Then for the [rest|next part|other bit] I got {x}[.|!]",
               "[Okay, |]after that [part|bit|step] I got {x}[.|!]", "[So then|Then] I [got|get|have] {x}[.|!]",
               "[then|and then|so then] {x}[.|?|!]", "[After that|Then] the rest [gave me|came to|is] {x}[.|!]")
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
# Coming back from a tangent: mostly it just goes on; now and then a word
RESUME = ["", "", "", "anyway.", "ok.", "oh yeah.", "anyway, the sum.", "ok back to it."]
REDO = expand("[So|Ok so|Oh ok|Wait|Hmm|Oh|] {w}.", "[So it should be|It should go|So it's really] {w}.")
SAME_ANSWER = expand("[That's|It's] still {x}, but now I [know|see|get|understand] why[.|!| it works.]",
                     "So it's {x} again, [for the right reason this time|but the right way this time|but now it makes sense|but done properly][.|!]",
                     "It still [comes out as|comes to|works out to] {x}[.|!| that way.| when I do it properly.| the right way.]",
                     "[Same answer|Same number|The answer's the same], {x}, but [the working's right now|I did it properly now|now I know why|the method's right now][.|!]",
                     "[So|Okay, so] {x} [is still right|stays the same|is still the answer], [but for the right reason|but my working's fixed|only now I know why|and now the working matches][.|!]")

# --- its voice: habits one student has for a whole episode (another student has others) -------------
# Words put before or after a sentence, never a hedge ("maybe", "I guess") or a fact.
# Only words that fit before or after any plain sentence: no "anyway" (a change of subject), no
# "today" or "now" (a claim about time), no "to be fair" (an answer to an objection nobody made).
# One register per student (``REGISTER``): slang ("tbh", "lol", "so like,") only from one who talks that way.
VOICE_OPENERS = {"plain": ["okay so", "um,", "ok,", "right, so", "hmm,", "well,", "alright,", "okay, um,", "erm,", "so, um,"],
                 "casual": ["honestly,", "like,", "so basically", "ok,", "I mean,", "so yeah,", "yeah,", "so like,", "ok ok,", "um,"]}
VOICE_TAILS = {"plain": [], "casual": [", lol", ", haha", ", honestly", " tbh", " haha"]}


def register(dims: dict) -> str:
    """How a persona talks: ``casual`` (slang fits) for an impatient or hostile student, or an older one
    to whom maths is homework to get through; ``plain`` (a polite child's words, no slang) otherwise."""
    if dims.get("temperament") in ("impatient", "hostile"):
        return "casual"
    return "casual" if dims.get("attitude") == "indifferent" and dims.get("grade") not in (None, "grade_4") else "plain"
