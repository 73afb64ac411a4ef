"""Writing an output file all at once or not at all: a reader (or a later run) never sees half a
file, and a failing write never touches the file that was there."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomically(path: Path | str, text: str) -> None:
    """Write `text` as UTF-8 to `path`: encoded first (text that cannot be encoded, e.g. with a
    lone surrogate, raises ValueError before anything is touched), written to a temporary file
    beside `path`, flushed to disk, then renamed over it. An existing file keeps its permissions;
    on any failure it is left as it was and no temporary file remains. OSError for a directory
    that does not exist or cannot be written."""
    path = Path(path)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{path}: the text cannot be written as UTF-8 ({exc.reason})") from None
    mode = path.stat().st_mode & 0o777 if path.is_file() else 0o644
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
