import sys

from envs.variance.cli import main

sys.exit(main())
