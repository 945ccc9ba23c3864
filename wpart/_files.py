"""Writing a file so that a crash leaves either the old file or the new one, never a part.

The families that keep files (the tasks family's LBDatafile sets and MPI outputs, the
multi-kernel knowledge base) write the bytes to a temporary name beside the target, flushed
and fsynced, rename it over the target (atomic on POSIX) and fsync the folder so that the
rename survives a power loss. These are the three steps, written once.
"""

from __future__ import annotations

import os

__all__ = ["unlink_quiet", "write_synced", "fsync_dir"]


def unlink_quiet(path: str) -> None:
    """Remove `path`; a file already gone (or not removable) is not an error."""
    try:
        os.unlink(path)
    except OSError:
        pass


def write_synced(tmp: str, data: bytes, *, fd: int | None = None) -> None:
    """Write `data` to `tmp` (or to the open descriptor `fd` of it), flushed and fsynced.

    On any failure (an interrupt too) `tmp` is removed and the exception propagates.
    """
    try:
        with (open(tmp, "wb") if fd is None else os.fdopen(fd, "wb")) as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        unlink_quiet(tmp)
        raise


def fsync_dir(folder: str) -> None:
    """fsync the folder `folder` (``""``: the current one), so that a rename in it is durable;
    a platform without directory descriptors skips it."""
    try:
        fd = os.open(folder or ".", os.O_RDONLY)
    except OSError:  # pragma: no cover - a platform without directory descriptors
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
