"""``python -m graders.calibrate``."""

from graders.calibrate.cli import main

raise SystemExit(main())
