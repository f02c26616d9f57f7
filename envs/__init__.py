"""sitgym's engine: state store, episode loop, gymnasium environments, actors, runner.

Importing ``envs`` registers one gymnasium id per domain (``sitgym/Support-v0``, ...): at once if
gymnasium is loaded, else as soon as it is (``envs.gym.registration``), so a command that never
uses gymnasium does not pay for importing it.
"""

import os

# Nothing is fetched at import: litellm reads its bundled price map.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from envs.gym.registration import register_when_gymnasium_loads  # noqa: E402

register_when_gymnasium_loads()
