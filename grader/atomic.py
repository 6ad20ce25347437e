"""Files written atomically: a crash mid-write never leaves half a results.json, report.json or
autograder zip where the whole one should be."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(path: Path, *, prefix: str, suffix: str = "") -> Iterator[Path]:
    """A new temporary file beside ``path`` (its folder is made if needed) to write; when the
    block ends without an exception it replaces ``path``, otherwise it is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
