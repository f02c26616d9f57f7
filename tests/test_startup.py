"""What start-up does not pay for: gymnasium is imported only by who uses it, and its ids are
registered all the same (envs.gym.registration)."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_envs_does_not_import_gymnasium_and_the_ids_appear_when_it_is_imported():
    code = ("import sys, envs; before = 'gymnasium' in sys.modules; import gymnasium; "
            "print(before, 'sitgym/Support-v0' in gymnasium.registry, 'sitgym/SupportUser-v0' in gymnasium.registry)")
    assert _run(code) == "False True True"


def test_ids_are_registered_at_import_envs_when_gymnasium_is_already_loaded():
    assert _run("import gymnasium, envs; print('sitgym/Support-v0' in gymnasium.registry)") == "True"


def test_a_submodule_of_gymnasium_imported_first_registers_too():
    code = "import envs; from gymnasium import spaces; import gymnasium; print('sitgym/Tutoring-v0' in gymnasium.registry)"
    assert _run(code) == "True"
