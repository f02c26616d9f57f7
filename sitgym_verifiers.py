"""The module verifiers imports for the taskset id ``sitgym-verifiers`` (it resolves plugin ids to
top-level module names); everything lives in ``envs.integrations.verifiers_env``."""

from envs.integrations.verifiers_env import *  # noqa: F401,F403
from envs.integrations.verifiers_env import __all__  # noqa: F401
