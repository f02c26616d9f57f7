"""Scripted agents of the support domain (being split into one file per agent)."""

from .careful import INTENTS, CarefulAgent, EagerAgent, detect_intent, is_ambiguous

__all__ = ["CarefulAgent", "EagerAgent", "INTENTS", "detect_intent", "is_ambiguous"]
