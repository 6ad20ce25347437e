"""How far student code is kept from the grader: the sandbox user, namespaces, and the plan
that :mod:`grader.sandbox.confine` carries out when a worker starts.

Three modes, the strongest the machine allows, chosen once per process by :func:`detect`:

``namespaces``  (root, and the kernel lets us make mount, network and PID namespaces) the
                worker runs as :data:`SANDBOX_USER` in namespaces of its own: the grader's
                files (:func:`protected_folders`) and the shared scratch folders
                (:func:`scratch_folders`) are covered by empty tmpfs mounts, only the Python
                environment (read-only) and the sandbox's private folder (read-write) are bound
                back, there is no network, and every process it starts dies with it.
``user``        (root, no namespaces) the worker runs as :data:`SANDBOX_USER`: it cannot write
                the grader's files, signal or trace the grader, and ``RLIMIT_NPROC`` bounds its
                processes; files that every user may read stay readable, and the network is on.
``none``        (not root, or no sandbox user) the worker runs as the grader's own user, with
                resource limits only.

Anything short of ``namespaces`` is logged once: as root, a warning on the grader's stderr
(which Gradescope shows to instructors only); not as root, where ``none`` is expected (a
student's own ``grader check``), at INFO level. The sandbox user is created on first use when missing
(``useradd --system``); Gradescope's setup.sh creates it ahead with the same name.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from grader.common.paths import INSTALL_ROOT, REPO_ROOT, RUBRIC_PATH
from grader.sandbox import importable

SANDBOX_USER = "a2sandbox"
"""The unprivileged account student code runs as when the grader runs as root."""

CONFINE_SCRIPT = Path(__file__).resolve().with_name("confine.py")
USERADD = ("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
           SANDBOX_USER)
USERADD_TIMEOUT_S = 30.0
PROBE_TIMEOUT_S = 60.0
"""How long the one-time trial start of a confined Python (importing numpy) may take."""

GRADESCOPE_ROOT = Path("/autograder")
"""Gradescope's folder of the autograder source, the submission and the results."""
EXTRA_HIDDEN_VARIABLE = "A2GRADER_HIDE"
"""Environment variable: more folders to hide from student code, separated by os.pathsep."""
SCRATCH_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")
"""Folders every user may write to: hidden too, so the run folder is the only writable place."""

Mode = Literal["none", "user", "namespaces"]
MODES: tuple[Mode, ...] = ("none", "user", "namespaces")

_LOG = logging.getLogger(__name__)


class IsolationError(RuntimeError):
    """The requested isolation cannot be set up on this machine."""


@dataclass(frozen=True)
class Isolation:
    """How a worker is confined; see the module docstring.

    uid, gid  the sandbox user's ids (-1 in mode ``none``).
    note      what is not protected in this mode and why; empty in mode ``namespaces``.
    """

    mode: Mode
    uid: int = -1
    gid: int = -1
    note: str = ""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"isolation mode must be one of {MODES}; got {self.mode!r}")
        if self.mode != "none" and min(self.uid, self.gid) <= 0:
            raise ValueError(f"isolation mode {self.mode!r} needs the sandbox user's uid and "
                             f"gid (both > 0); got uid={self.uid}, gid={self.gid}")

    @property
    def switches_user(self) -> bool:
        """Whether the worker runs as the sandbox user (so its run folder must be its own)."""
        return self.mode != "none"

    @classmethod
    def unconfined(cls, note: str = "") -> Isolation:
        return cls("none", note=note)


# -- the sandbox user --------------------------------------------------------------------------


def sandbox_ids() -> tuple[int, int] | None:
    """(uid, gid) of :data:`SANDBOX_USER`, or None if there is no such user."""
    try:
        entry = pwd.getpwnam(SANDBOX_USER)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def ensure_sandbox_user() -> tuple[int, int]:
    """(uid, gid) of :data:`SANDBOX_USER`, creating the user first if it is missing (root only).

    Raise IsolationError when there is no such user and it cannot be made.
    """
    ids = sandbox_ids()
    if ids is not None:
        return ids
    if os.geteuid() != 0:
        raise IsolationError(f"there is no user {SANDBOX_USER!r} and only root can create it")
    if shutil.which(USERADD[0]) is None:
        raise IsolationError(f"there is no user {SANDBOX_USER!r} and no {USERADD[0]} to create "
                             f"it; create it with: {' '.join(USERADD)}")
    try:
        done = subprocess.run(USERADD, capture_output=True, text=True, timeout=USERADD_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise IsolationError(f"{' '.join(USERADD)} failed: {exc}") from exc
    ids = sandbox_ids()  # another grader may have created it meanwhile: that is fine too
    if ids is None:
        raise IsolationError(f"{' '.join(USERADD)} failed (exit {done.returncode}): "
                             f"{done.stderr.strip()[-500:]}")
    if min(ids) <= 0:
        raise IsolationError(f"user {SANDBOX_USER!r} has uid {ids[0]}, gid {ids[1]}; it must "
                             "not be root or in root's group")
    return ids


# -- what the worker may see -------------------------------------------------------------------


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(path)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def protected_folders() -> list[str]:
    """The grader's own folders: the course repository (reference/, rubric.yaml, grader/, tests/,
    student_template/, .git) and the checkout the grader runs from when it is another,
    Gradescope's /autograder (source, submission, results), and
    any listed in $A2GRADER_HIDE."""
    folders = [REPO_ROOT, INSTALL_ROOT, GRADESCOPE_ROOT]
    folders += [Path(p) for p in os.environ.get(EXTRA_HIDDEN_VARIABLE, "").split(os.pathsep) if p]
    return _existing_folders(folders)


def scratch_folders() -> list[str]:
    """World-writable folders (the temporary folder and the usual shared ones)."""
    return _existing_folders([tempfile.gettempdir(), *SCRATCH_FOLDERS])


def _existing_folders(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    found: list[str] = []
    for path in paths:
        real = _real(path)
        if real != "/" and os.path.isdir(real) and real not in found:
            found.append(real)
    return found


def python_folders(python: str) -> list[str]:
    """The folders a worker's Python needs: its installation and environment (prefixes)."""
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    folders.add(str(Path(_real(python)).parent.parent))
    folders.add(os.path.dirname(os.path.dirname(os.path.abspath(python))))
    return _outermost(_existing_folders(folders))


def _outermost(folders: Iterable[str]) -> list[str]:
    """The folders not inside another of them."""
    ordered = sorted(set(folders), key=len)
    kept: list[str] = []
    for folder in ordered:
        if not any(_inside(folder, outer) for outer in kept):
            kept.append(folder)
    return kept


def _closed_ancestors(path: str) -> list[str]:
    """Ancestors of ``path`` that other users may not search (e.g. /root, mode 0700)."""
    closed = []
    for parent in Path(path).parents:
        if str(parent) == "/":
            continue
        try:
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                closed.append(str(parent))
        except OSError:
            continue
    return closed


def view(private_dir: str, python: str) -> tuple[list[str], list[tuple[str, bool]]]:
    """(hide, expose) of a namespaced worker: the folders covered by empty tmpfs mounts, and
    the folders bound back into them, each with whether the worker may write it.

    The private folder (the run copy and the worker's scripts) is the only writable one.
    Folders the Python installation lies in that other users could not search (like /root)
    are hidden too, with the installation bound back, so that the sandbox user can run it.
    """
    private_dir = _real(private_dir)
    exposed = [(private_dir, True)] + [(folder, False) for folder in python_folders(python)
                                       if not _inside(private_dir, folder)]
    hidden = protected_folders() + scratch_folders() + importable_folders(python)[0]
    for folder in hidden:
        if any(_inside(folder, path) for path, _ in exposed):
            raise IsolationError(f"cannot hide {folder}: the worker needs it (it is, or is "
                                 "inside, its Python installation or its private folder)")
    for folder, _ in exposed:
        hidden += _closed_ancestors(folder)
    hidden = _outermost(hidden)
    needed = [(path, writable) for path, writable in exposed
              if any(_inside(path, folder) for folder in hidden)]
    return hidden, needed


def importable_folders(python: str) -> tuple[list[str], list[str]]:
    """(hide, cover) for every folder from which ``python``, started as the worker is, would import
    the grader or the assignment (see :mod:`grader.sandbox.importable`)."""
    try:
        return importable.to_hide(importable.locations_for(python), python_folders(python))
    except RuntimeError as exc:
        raise IsolationError(str(exc)) from None


def confine_plan(isolation: Isolation, *, private_dir: str, cwd: str, argv: Sequence[str],
                 env: Mapping[str, str], rlimits: Sequence[tuple[int, int, int]]
                 ) -> dict[str, Any]:
    """The JSON plan :mod:`grader.sandbox.confine` carries out to start ``argv`` confined."""
    if not isolation.switches_user:
        raise ValueError("a confine plan needs isolation mode 'user' or 'namespaces'")
    # Without "..": a path through a hidden folder (tests/../.venv) would not resolve in the
    # worker's view. Symbolic links are kept: a virtual environment is found by its own path.
    argv = [os.path.abspath(argv[0]), *argv[1:]]
    plan: dict[str, Any] = {
        "uid": isolation.uid, "gid": isolation.gid,
        "rlimits": [list(limit) for limit in rlimits],
        "namespaces": isolation.mode == "namespaces", "hide": [], "expose": [], "cover": [],
        "cwd": cwd, "argv": list(argv), "env": dict(env),
    }
    if plan["namespaces"]:
        hide, expose = view(private_dir, argv[0])
        plan["hide"], plan["expose"] = hide, [list(item) for item in expose]
        plan["cover"] = importable_folders(argv[0])[1]
    return plan


def launcher_command(plan: Mapping[str, Any]) -> list[str]:
    """The command that carries out ``plan``: the grader's own Python, isolated (-I) and
    without site (-S), runs confine.py, which imports only the standard library."""
    return [sys.executable, "-I", "-S", "-B", str(CONFINE_SCRIPT), json.dumps(plan)]


# -- choosing the mode -------------------------------------------------------------------------

_PROBE_CODE = """\
import json, os, sys
import numpy
print(json.dumps({"uid": os.getuid(), "rubric": os.path.exists(sys.argv[1]),
                  "pid": os.getpid()}))
"""


def give_to(folder: str, uid: int, gid: int) -> None:
    """Give ``folder`` and everything in it to uid:gid (links themselves, never their targets)."""
    os.lchown(folder, uid, gid)
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.lchown(os.path.join(root, name), uid, gid)


def trial_start(isolation: Isolation, *, python: str = sys.executable) -> str | None:
    """Start a Python confined as ``isolation`` says and check what it sees; return None if
    it works, else why not."""
    private = tempfile.mkdtemp(prefix="a2grader-probe-")
    try:
        os.chmod(private, 0o755)
        run = os.path.join(private, "run")
        os.mkdir(run, 0o700)
        give_to(run, isolation.uid, isolation.gid)
        plan = confine_plan(isolation, private_dir=private, cwd=run,
                            argv=[python, "-s", "-B", "-c", _PROBE_CODE, str(RUBRIC_PATH)],
                            env={"PATH": "/usr/bin:/bin", "HOME": run, "LC_ALL": "C.UTF-8"},
                            rlimits=[])
        try:
            done = subprocess.run(launcher_command(plan), capture_output=True, text=True,
                                  timeout=PROBE_TIMEOUT_S, cwd="/", env={}, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"the launcher could not run ({exc})"
        if done.returncode != 0:
            return (f"a confined Python failed (exit {done.returncode}): "
                    f"{done.stderr.strip()[-600:]}")
        try:
            seen = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return f"a confined Python printed {done.stdout[-300:]!r}, not its report"
        if seen.get("uid") != isolation.uid:
            return f"a confined Python ran as uid {seen.get('uid')}, not {isolation.uid}"
        if isolation.mode == "namespaces" and seen.get("rubric"):
            return f"a confined Python could still see {RUBRIC_PATH}"
        return None
    finally:
        shutil.rmtree(private, ignore_errors=True)


def close_disposable_folders() -> list[str]:
    """In Gradescope's container (thrown away after grading), take every permission of other
    users off /autograder, so that the sandbox user cannot reach the source, the submission or
    the results in mode ``user``; return what was changed. Never touches anything else (a
    developer's repository keeps its modes)."""
    closed: list[str] = []
    root = str(GRADESCOPE_ROOT)
    if os.geteuid() != 0 or not os.path.isdir(root) or os.path.islink(root):
        return closed
    if any(_inside(folder, root) for folder in python_folders(sys.executable)):
        return closed  # the worker's Python lives there: it must stay reachable
    mode = stat.S_IMODE(os.stat(root).st_mode)
    if mode & 0o007:
        os.chmod(root, mode & ~0o007)
        closed.append(root)
    return closed


def readable_grader_files() -> list[str]:
    """The protected folders whose contents other users can read (they are not hidden in
    mode ``user``): each with a world-searchable path to it."""
    exposed = []
    for folder in protected_folders():
        mode = os.stat(folder).st_mode
        if mode & stat.S_IROTH and mode & stat.S_IXOTH and not _closed_ancestors(folder):
            exposed.append(folder)
    return exposed


@functools.cache
def detect() -> Isolation:
    """The strongest isolation this process can use; decided once, and logged if partial."""
    isolation = _choose()
    if isolation.note and os.geteuid() != 0:  # a student's or developer's own run: expected
        _LOG.info("student code isolation is %r: %s", isolation.mode, isolation.note)
    elif isolation.note:  # as root (Gradescope), weaker isolation is worth an instructor's eye
        _LOG.warning("student code isolation is %r, not 'namespaces': %s", isolation.mode,
                     isolation.note)
    else:
        _LOG.info("student code runs as %s in its own namespaces", SANDBOX_USER)
    return isolation


def _choose() -> Isolation:
    if os.geteuid() != 0:
        return Isolation.unconfined(
            "the grader is not running as root, so student code runs as this same user: it "
            "can read and write whatever this user can, has the network, and only resource "
            "limits apply (run the grader as root, as on Gradescope, for full isolation)")
    try:
        uid, gid = ensure_sandbox_user()
    except IsolationError as exc:
        return Isolation.unconfined(
            f"student code runs AS ROOT because the sandbox user is unavailable: {exc}")
    full = Isolation("namespaces", uid, gid)
    why_not = trial_start(full)
    if why_not is None:
        return full
    closed = close_disposable_folders()
    readable = readable_grader_files()
    partial = Isolation("user", uid, gid, note=(
        f"namespaces are not available ({why_not}); student code runs as {SANDBOX_USER!r}, "
        "so it cannot write the grader's files, but it can reach the network and read any "
        "file other users may read" + (
            f", including {', '.join(readable)} (make them unreadable to others, e.g. "
            "chmod -R o-rwx, in a disposable container)" if readable else "") + (
            f"; closed to other users: {', '.join(closed)}" if closed else "")))
    why_not_user = trial_start(partial)
    if why_not_user is None:
        return partial
    return Isolation.unconfined(
        f"student code runs AS ROOT: namespaces are not available ({why_not}) and a Python "
        f"started as {SANDBOX_USER!r} fails ({why_not_user}); make the Python installation "
        "readable by other users")
