"""Files written atomically: a crash mid-write never leaves half a results.json, report.json or
autograder zip where the whole one should be."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

READABLE = 0o666
"""The mode of a written file before the umask: what ``open(path, "w")`` gives (0644 under the
usual umask 022), never mkstemp's 0600, so that the group (other TAs on a shared server) can read."""


def _read_umask() -> int:
    """The process's umask, read once at import (setting it to read it is not thread-safe)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


@contextlib.contextmanager
def atomic_path(path: Path, *, prefix: str, suffix: str = "") -> Iterator[Path]:
    """A new temporary file beside ``path`` (its folder is made if needed) to write; when the
    block ends without an exception it replaces ``path``, otherwise it is removed. The file gets
    the mode a plain ``open`` would give (:data:`READABLE` under the umask)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
    os.close(fd)
    os.chmod(tmp, READABLE & ~_UMASK)   # mkstemp makes 0600: other TAs on the server must read it
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> Path:
    """The one atomic writer of a text file (UTF-8): :func:`atomic_path` with the file's own name."""
    path = Path(path)
    with atomic_path(path, prefix=f".{path.name}.") as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path
