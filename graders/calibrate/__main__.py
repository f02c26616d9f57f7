"""``python -m graders.calibrate``."""

from graders.calibrate.calibration import main

raise SystemExit(main())
