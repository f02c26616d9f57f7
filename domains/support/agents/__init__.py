"""Scripted agents of the support domain: a careful one and an eager one.

Both read only what an agent may see (``AgentView``): the customer's messages
and the results of their own tool calls. They never read the task file, the
expected actions or the hidden facts.

* ``CarefulAgent`` (``careful.py``, its case handlers in ``careful_cases.py``)
  follows ``policy.md``.
* ``EagerAgent`` (``eager.py``) is the weak bot the tasks are built to catch.

``reading.py`` holds what both read the customer's words with (patterns,
``INTENTS``, ``detect_intent``, ``is_ambiguous``, ``Facts``); ``base.py`` the
event bookkeeping they share.
"""

from .careful import CarefulAgent
from .eager import EagerAgent
from .reading import INTENTS, Facts, detect_intent, is_ambiguous, money

__all__ = ["CarefulAgent", "EagerAgent", "Facts", "INTENTS", "detect_intent", "is_ambiguous", "money"]
