"""Writing an output file all at once or not at all: a reader (or a later run) never sees half a
file, and a failing write never touches the file that was there. Only a regular file (or a new
one in an existing directory) is written: a FIFO, a device (`/dev/full`), a socket, a directory
or a symbolic link in the output's place is refused before anything happens, because renaming
over it would replace the thing itself (as root, `/dev/full` became a plain file)."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISLNK, "a symbolic link"),
)


def check_output_path(path: Path | str) -> Path:
    """`path` when it may be written: absent (in an existing directory) or a regular file.
    OSError naming the path and what is there otherwise (a FIFO, a device, a socket, a
    directory, a symbolic link: give the file it points to), or when the directory is missing."""
    path = Path(path)
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise OSError(errno.EINVAL, f"is {what}, not a regular file; give a regular file to write", str(path))
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise OSError(errno.ENOENT, "its directory does not exist", str(path))
    return path


def os_error_reason(exc: OSError) -> str:
    """Why a read or write failed, in words: 'the disk is full …' for ENOSPC/EDQUOT/EFBIG."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return "the disk is full (nothing was written)"
    return exc.strerror or str(exc)


def describe_os_error(exc: OSError) -> str:
    """One line for a failed read or write: the file, then `os_error_reason`."""
    return f"{exc.filename or 'a file'}: {os_error_reason(exc)}"


def write_text_atomically(path: Path | str, text: str) -> None:
    """Write `text` as UTF-8 to `path`: encoded first (text that cannot be encoded, e.g. with a
    lone surrogate, raises ValueError before anything is touched), the path checked
    (`check_output_path`), written to a temporary file beside `path`, flushed to disk, then
    renamed over it. An existing file keeps its permissions; on any failure it is left as it
    was and no temporary file remains. OSError (with the path as its filename) for a path that
    is not a regular file, a directory that does not exist or cannot be written, or a full disk."""
    path = Path(path)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{path}: the text cannot be written as UTF-8 ({exc.reason})") from None
    check_output_path(path)
    mode = path.stat().st_mode & 0o777 if path.is_file() else 0o644
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        check_output_path(path)  # nothing put in its place meanwhile
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        if exc.filename == str(path):
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from exc  # name the output, not the temporary
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
