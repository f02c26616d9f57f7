"""``python -m envs.compare runs/A runs/B``: the command; the comparison lives in ``envs.report.compare``."""

from envs.report.compare import main

if __name__ == "__main__":
    raise SystemExit(main())
