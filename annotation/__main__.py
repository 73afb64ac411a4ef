"""`python -m annotation …` (the commands live in annotation.cli)."""

import sys

# sqlite_utils imports pandas whenever it is installed (Streamlit brings it), only to map
# pandas.Timestamp to a column type: ≈ 0.5 CPU s, a third of a command's start. No command uses
# pandas, so this process hides it (sqlite_utils then goes without, as it is written to).
sys.modules.setdefault("pandas", None)

from annotation.cli.main import main  # noqa: E402 (after hiding pandas)
from annotation.store.bulk import exit_without_a_last_collection  # noqa: E402

exit_without_a_last_collection(main())
