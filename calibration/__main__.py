"""`python -m calibration …` (the commands live in calibration.cli)."""

import sys

from calibration.cli.main import main

sys.exit(main())
