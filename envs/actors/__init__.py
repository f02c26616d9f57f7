"""The actors of an episode: protocols, scripted / human / LLM users and agents, the LLM judge."""
