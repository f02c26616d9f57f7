"""The LLM layer: one client (limits, retries, cache, accounting) over backends."""
