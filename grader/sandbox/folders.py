"""The files a worker gets: its private folder, with a copy of the worker's own code, its copy of
the submission when it runs as the sandbox user, and matplotlib's prepared font cache.

The worker imports nothing from the grader's own location: every ``*.py`` of
``grader/untrusted/`` is copied into ``<private>/worker/`` (read-only to a sandbox user).

The private folder is bounded and removed without recursion: in mode ``namespaces`` it is a
tmpfs of its own (``Limits.folder_bytes``, ``Limits.folder_inodes``), so what student code
writes there is bounded in size and count and disappears when it is unmounted; elsewhere only
RLIMIT_FSIZE bounds each file. What the sandbox user could write (its copy of the submission,
matplotlib's folder) is emptied by :mod:`grader.sandbox.sweep` running as that user, within a
time bound, with its System V IPC objects; the rest, the grader's own, is removed as root.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from grader import assignment
from grader.sandbox import isolation as isolation_mod
from grader.sandbox import sweep
from grader.sandbox.isolation import Isolation
from grader.sandbox.limits import WORKER_PATH
from grader.sandbox.runner import Limits, SandboxError

UNTRUSTED_DIR = Path(__file__).resolve().parents[1] / "untrusted"
WORKER_SCRIPT = "worker.py"
"""The worker's main program; it and every other ``*.py`` of ``grader/untrusted/`` (wire.py,
probes.py) and of the assignment's untrusted/ (its probe modules) are copied into the worker's
private folder (:func:`worker_files`): the worker imports nothing else of ours."""
SCRIPTS_FOLDER = "worker"
RUN_FOLDER = "run"
MATPLOTLIB_FOLDER = "matplotlib"
MATPLOTLIB_BUILD_TIMEOUT_S = 120.0
PUBLIC_DIR_MODE = 0o755
PUBLIC_FILE_MODE = 0o644
PRIVATE_DIR_MODE = 0o700
SWEEP_SECONDS = 60.0
"""How long the sandbox user's sweep may take (a bounded folder empties in far less)."""
MNT_DETACH = 2

_LOG = logging.getLogger(__name__)
_libc = ctypes.CDLL(None, use_errno=True)


def worker_files() -> list[Path]:
    """The worker's files, copied into one folder: the framework's worker (grader/untrusted/) and the
    assignment's probes, without their packages' ``__init__.py``. SandboxError when two share a name."""
    files: dict[str, Path] = {}
    for folder in (UNTRUSTED_DIR, assignment.untrusted_folder()):
        for source in sorted(folder.glob("*.py")):
            if source.name == "__init__.py":
                continue
            if source.name in files:
                raise SandboxError(f"{source} and {files[source.name]} have the same name; the worker's folder holds "
                                   "both: rename the assignment's module")
            files[source.name] = source
    return list(files.values())


def submission_folder(submission: str | os.PathLike[str]) -> Path:
    """``submission`` as an absolute path; ValueError unless it is an existing folder."""
    folder = Path(submission).resolve()
    if not folder.is_dir():
        raise ValueError(f"the submission must be an existing folder; got {str(submission)!r}")
    return folder


def remove_tree(folder: str) -> None:
    """Remove ``folder`` without recursion (see :mod:`grader.sandbox.sweep`); never raises: what
    cannot be removed is logged."""
    if not sweep.remove_tree(folder):
        _LOG.warning("could not remove %s completely", folder)


def mount_bounded(folder: Path, limits: Limits) -> bool:
    """Mount a tmpfs of ``limits.folder_bytes`` and ``limits.folder_inodes`` on the (empty)
    ``folder``; False where mounting is not allowed (the folder then stays unbounded)."""
    options = f"mode=0755,size={limits.folder_bytes},nr_inodes={limits.folder_inodes}"
    if _libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", ctypes.c_ulong(0x2 | 0x4),  # nosuid, nodev
                   options.encode()) != 0:
        _LOG.info("the worker's folder is not bounded: mounting a tmpfs failed (%s)",
                  os.strerror(ctypes.get_errno()))
        return False
    return True


def remove_private_folder(folder: str, isolation: Isolation, mounted: bool) -> None:
    """Remove a private folder: what the sandbox user could write is swept as that user first
    (with its System V IPC objects, which mode ``user`` has no namespace to end), then the
    tmpfs is detached, then whatever is left is removed without recursion. Never raises."""
    if isolation.switches_user and os.path.isdir(folder):
        sweep_as(isolation, [os.path.join(folder, RUN_FOLDER), os.path.join(folder, MATPLOTLIB_FOLDER)],
                 ipc=isolation.mode == "user")
    if mounted and _libc.umount2(os.fsencode(folder), MNT_DETACH) != 0:
        _LOG.warning("could not unmount the worker's folder %s: %s", folder,
                     os.strerror(ctypes.get_errno()))
    remove_tree(folder)


def sweep_as(isolation: Isolation, folders: list[str], *, ipc: bool) -> bool:
    """Empty ``folders`` (and remove the user's System V IPC objects) as the sandbox user, in a
    forked child (the sandbox user may not be able to start this Python), within SWEEP_SECONDS;
    True when it finished cleanly. Never raises."""
    try:
        pid = os.fork()
    except OSError as exc:
        _LOG.warning("the sandbox user's sweep could not start: %s", exc)
        return False
    if pid == 0:  # the child: only system calls and the sweep, then _exit
        code = 1
        try:
            os.setgroups([])
            os.setgid(isolation.gid)
            os.setuid(isolation.uid)
            left = sweep.sweep(folders, ipc_uid=isolation.uid if ipc else None, seconds=SWEEP_SECONDS)
            os.write(2, "".join(f"sweep: {line}\n" for line in left).encode("utf-8", "replace"))
            code = 1 if left else 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + SWEEP_SECONDS + 10
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            _LOG.warning("the sandbox user's sweep did not finish in time")
            return False
        time.sleep(0.01)
    if os.waitstatus_to_exitcode(status) != 0:
        _LOG.warning("the sandbox user's sweep left something in %s", folders)
        return False
    return True


def make_private_folder(submission: Path, isolation: Isolation, python: str,
                        limits: Limits = Limits()) -> tuple[Path, bool]:
    """A new private folder: ``worker/`` (the worker's code), ``matplotlib/`` and, when the worker
    runs as the sandbox user, ``run/``, its copy of the submission; and whether it is a bounded
    tmpfs (mode ``namespaces``). The caller removes it with :func:`remove_private_folder`."""
    folder = Path(tempfile.mkdtemp(prefix="a2grader-sandbox-"))
    mounted = isolation.mode == "namespaces" and mount_bounded(folder, limits)
    try:
        folder.chmod(PUBLIC_DIR_MODE)
        scripts = folder / SCRIPTS_FOLDER
        scripts.mkdir()
        scripts.chmod(PUBLIC_DIR_MODE)
        for source in worker_files():
            shutil.copyfile(source, scripts / source.name)
            (scripts / source.name).chmod(PUBLIC_FILE_MODE)
        prepare_matplotlib(folder / MATPLOTLIB_FOLDER, submission, isolation, python)
        if isolation.switches_user:
            copy_submission(submission, folder / RUN_FOLDER, isolation)
    except BaseException:
        remove_private_folder(str(folder), isolation, mounted)
        raise
    return folder, mounted


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
