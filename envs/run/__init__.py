"""``python -m envs.run``: the CLI, its config, scheduling (slots, workers) and the run store."""
