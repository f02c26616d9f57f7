"""RL on sitgym episodes: grouped rollouts, rewards with parts, trajectories in the agent's view, export.

``envs.rl.rollout`` plays N rollouts of each task from the identical initial state and returns them
with the group's advantages; ``envs.rl.rewards`` turns an episode record into weighted reward parts
(outcome, rule violations per turn, milestones, minefields, tokens, turns); ``envs.rl.chat`` renders
what the agent saw and did as OpenAI chat messages; ``python -m envs.export`` and ``python -m
envs.rollout`` write them as JSONL a trainer reads.
"""
