"""`python -m annotation …` (the commands live in annotation.cli)."""

import sys

from annotation.cli.main import main

sys.exit(main())
