"""One episode: the step machine (``Episode``) and the loop that plays it to the end (``run_episode``)."""

from envs.episode.loop import run_episode
from envs.episode.step import (
    MAX_CONSECUTIVE_AGENT_ERRORS,
    MAX_STEPS_PER_TURN,
    Episode,
    StepResult,
    episode_seed,
    visible_to_agent,
)

__all__ = [
    "MAX_CONSECUTIVE_AGENT_ERRORS", "MAX_STEPS_PER_TURN", "Episode", "StepResult", "episode_seed",
    "run_episode", "visible_to_agent",
]
