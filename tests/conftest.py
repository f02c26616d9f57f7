import os
import sys
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
# The toy domain is discovered like any third-party domain.
os.environ["SITGYM_DOMAINS"] = ",".join(filter(None, [os.environ.get("SITGYM_DOMAINS", ""), "toy_domain"]))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH", "")]))

# Content-keyed caches (check reports, templates: envs.content_key) in a folder of this session's
# own, so the tests exercise them without reading or filling the user's.
if not os.environ.get("SITGYM_CACHE_DIR"):
    import tempfile

    os.environ["SITGYM_CACHE_DIR"] = tempfile.mkdtemp(prefix="sitgym-test-cache-")
SHARED = TESTS.parents[1] / "shared" / "data"


# -- one play of each offline run per session ----------------------------------------------------
# Several modules read the same scripted runs (support careful / eager at 2 repeats, the main
# command at 8): each is played once per session and every test gets its own copy of the folder.

import shutil  # noqa: E402

import pytest  # noqa: E402


class PlayedRuns:
    """``copy(argv, dest)``: the run ``python -m envs.run ARGV --quiet`` wrote, played the first time
    it is asked for and copied to ``dest`` (a test may change its copy); ``records(argv)``: its records."""

    # the runs several modules share
    MAIN = ("--domain", "support", "--repeats", "8")  # the README's main command
    CAREFUL2 = ("--domain", "support", "--agent", "scripted:careful", "--repeats", "2")
    EAGER2 = ("--domain", "support", "--agent", "scripted:eager", "--repeats", "2")
    SOCRATIC2 = ("--domain", "tutoring", "--agent", "scripted:socratic", "--repeats", "2")
    CAREFUL_SUP2 = ("--domain", "support", "--tasks", "sup_*", "--repeats", "2")
    EAGER_SUP2 = ("--domain", "support", "--tasks", "sup_*", "--repeats", "2", "--agent", "scripted:eager")

    def __init__(self, root: Path):
        self.root = root
        self._dirs: dict[tuple[str, ...], Path] = {}

    def _master(self, argv) -> Path:
        key = tuple(argv)
        if key not in self._dirs:
            import asyncio

            d = self.root / f"run{len(self._dirs)}"
            full = [*argv, "--out", str(d), "--quiet"]
            if asyncio._get_running_loop() is None:
                from envs.run.cli import main

                assert main(full) == 0, argv
            else:  # a loop runs on this thread (playwright's sync API): the runner's cannot start here
                import subprocess

                p = subprocess.run([sys.executable, "-m", "envs.run", *full], cwd=TESTS.parent, capture_output=True, text=True)
                assert p.returncode == 0, (argv, p.stderr[-2000:])
            self._dirs[key] = d
        return self._dirs[key]

    def copy(self, argv, dest: Path) -> Path:
        shutil.copytree(self._master(argv), dest)
        return dest

    def records(self, argv) -> list:
        from envs.records import EpisodeRecord

        path = self._master(argv) / "episodes.jsonl"
        return [EpisodeRecord.model_validate_json(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="session")
def played_runs(tmp_path_factory) -> PlayedRuns:
    return PlayedRuns(tmp_path_factory.mktemp("played"))
