"""sitgym's engine: state store, episode loop, gymnasium environments, actors, runner.

Importing ``envs`` registers one gymnasium id per domain (``sitgym/Support-v0``, ...).
"""

import os

# Nothing is fetched at import: litellm reads its bundled price map.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from envs.gym.registration import register_envs  # noqa: E402

register_envs()
