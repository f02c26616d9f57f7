"""``python -m envs.run``."""

from envs.run.cli import main

raise SystemExit(main())
