"""Specs: tasks, scenarios, personas, situations and rules, as pydantic models, and their loading."""
