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
