"""The files a worker gets: its private folder, with a copy of the worker's own code, its copy of
the submission when it runs as the sandbox user, and matplotlib's prepared font cache.

The worker imports nothing from the grader's own location: every ``*.py`` of
``grader/untrusted/`` is copied into ``<private>/worker/`` (read-only to a sandbox user).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from grader.sandbox import isolation as isolation_mod
from grader.sandbox.isolation import Isolation
from grader.sandbox.limits import WORKER_PATH
from grader.sandbox.runner import SandboxError

UNTRUSTED_DIR = Path(__file__).resolve().parents[1] / "untrusted"
WORKER_SCRIPT = "worker.py"
"""The worker's main program; it and every other ``*.py`` of ``grader/untrusted/`` (wire.py,
probes.py and the checks' probe modules) are copied into the worker's private folder: the worker
imports nothing else of ours."""
SCRIPTS_FOLDER = "worker"
RUN_FOLDER = "run"
MATPLOTLIB_FOLDER = "matplotlib"
MATPLOTLIB_BUILD_TIMEOUT_S = 120.0
PUBLIC_DIR_MODE = 0o755
PUBLIC_FILE_MODE = 0o644
PRIVATE_DIR_MODE = 0o700


def submission_folder(submission: str | os.PathLike[str]) -> Path:
    """``submission`` as an absolute path; ValueError unless it is an existing folder."""
    folder = Path(submission).resolve()
    if not folder.is_dir():
        raise ValueError(f"the submission must be an existing folder; got {str(submission)!r}")
    return folder


def remove_tree(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def make_private_folder(submission: Path, isolation: Isolation, python: str) -> Path:
    """A new private folder: ``worker/`` (the worker's code), ``matplotlib/`` and, when the worker
    runs as the sandbox user, ``run/``, its copy of the submission. The caller removes it."""
    folder = Path(tempfile.mkdtemp(prefix="a2grader-sandbox-"))
    try:
        folder.chmod(PUBLIC_DIR_MODE)
        scripts = folder / SCRIPTS_FOLDER
        scripts.mkdir()
        scripts.chmod(PUBLIC_DIR_MODE)
        for source in sorted(UNTRUSTED_DIR.glob("*.py")):
            if source.name != "__init__.py":
                shutil.copyfile(source, scripts / source.name)
                (scripts / source.name).chmod(PUBLIC_FILE_MODE)
        prepare_matplotlib(folder / MATPLOTLIB_FOLDER, submission, isolation, python)
        if isolation.switches_user:
            copy_submission(submission, folder / RUN_FOLDER, isolation)
    except BaseException:
        remove_tree(str(folder))
        raise
    return folder


def prepare_matplotlib(target: Path, submission: Path, isolation: Isolation, python: str) -> None:
    """matplotlib's folder for the workers: the machine's prepared font cache when the
    submission uses matplotlib, else empty; the worker's own either way."""
    target.mkdir(mode=PRIVATE_DIR_MODE)
    prepared = prepared_matplotlib_cache(python) if uses_matplotlib(submission) else None
    if prepared is not None:
        for cache in prepared.glob("fontlist-*.json"):
            shutil.copyfile(cache, target / cache.name)
    if isolation.switches_user:
        isolation_mod.give_to(str(target), isolation.uid, isolation.gid)


def copy_submission(submission: Path, run: Path, isolation: Isolation) -> None:
    """Copy the submission for the sandbox user: links are copied as links (never read
    through as root), and the copy is the user's own."""
    try:
        shutil.copytree(submission, run, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    except (OSError, shutil.Error) as exc:
        raise SandboxError(f"cannot copy the submission {submission} for the "
                           f"sandbox user: {exc}") from exc
    run.chmod(PRIVATE_DIR_MODE)
    isolation_mod.give_to(str(run), isolation.uid, isolation.gid)


@functools.cache
def prepared_matplotlib_cache(python: str) -> Path | None:
    """A matplotlib config folder whose font cache is already built, made once per machine
    (a few seconds; a fresh worker importing matplotlib would otherwise rebuild it), or None
    if matplotlib cannot build one. Only the grader's own code runs to make it."""
    folder = Path(tempfile.gettempdir()) / f"a2grader-matplotlib-{os.getuid()}"
    if any(folder.glob("fontlist-*.json")):
        return folder
    building = Path(tempfile.mkdtemp(prefix="a2grader-matplotlib-"))
    try:
        subprocess.run([python, "-s", "-c", "import matplotlib.font_manager"], cwd=building,
                       env={"MPLCONFIGDIR": str(building), "MPLBACKEND": "Agg", "PATH": WORKER_PATH},
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=MATPLOTLIB_BUILD_TIMEOUT_S,
                       check=True)
        if not any(building.glob("fontlist-*.json")):
            return None
        with contextlib.suppress(OSError):  # another grader may have made it meanwhile
            building.rename(folder)
        return folder if any(folder.glob("fontlist-*.json")) else None
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        remove_tree(str(building))


def uses_matplotlib(folder: Path) -> bool:
    """Whether a Python file of the submission mentions matplotlib (read as bytes, not run)."""
    for path in folder.glob("*.py"):
        with contextlib.suppress(OSError):
            if path.is_file() and not path.is_symlink() and b"matplotlib" in path.read_bytes():
                return True
    return False
