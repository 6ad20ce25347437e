"""Removing what student code left: a folder tree deleted without recursion, within a time bound,
and (run as a script by the sandbox user) that user's System V IPC objects.

Student code can leave a tree no recursive delete survives (a chain of folders 3,001 levels
deep makes ``shutil.rmtree`` raise RecursionError, and its paths pass PATH_MAX), folders it made
unreadable (mode 000), and, without an IPC namespace, shared memory, message queues and
semaphores that the next grading could read. :func:`remove_tree` walks a tree with one open
folder at a time (descending by name relative to it, climbing with ``..``), so neither depth
nor path length matters, and gives up at a deadline instead of running on.

:func:`sweep` runs as the sandbox user, in a child the grader forks
(:func:`grader.sandbox.folders.sweep_as`): what it deletes is deleted with that user's rights
only, so a tree student code is still changing (a link swapped in for a folder) cannot make it
delete anything of the grader's. Standard library only (the student kit ships it).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import stat
import sys
import time

DEFAULT_SECONDS = 60.0
"""How long one removal may take before it gives up (what is left is reported, not fatal)."""
OPEN_FOLDER = os.O_RDONLY | sum(getattr(os, flag, 0) for flag in ("O_DIRECTORY", "O_NOFOLLOW", "O_CLOEXEC"))
OWNER_ALL = 0o700
IPC_RMID = 0
SYSV_TABLES = ("shm", "msg", "sem")
"""/proc/sysvipc tables, each removed with its own ctl call."""


class SweepTimeout(Exception):
    """The removal ran out of time; part of the tree is left."""


def _enter(parent: int, name: str) -> int:
    """Open the folder ``name`` of ``parent`` (never through a link), making it ours to list."""
    try:
        return os.open(name, OPEN_FOLDER, dir_fd=parent)
    except PermissionError:
        os.chmod(name, OWNER_ALL, dir_fd=parent)
        return os.open(name, OPEN_FOLDER, dir_fd=parent)


def _first_folder_emptying(fd: int) -> str | None:
    """Unlink every non-folder entry of ``fd``; return the name of a sub-folder, if any."""
    with os.scandir(fd) as entries:
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    return entry.name
                os.unlink(entry.name, dir_fd=fd)
            except FileNotFoundError:
                continue
    return None


def empty_tree(folder: str | os.PathLike[str], *, seconds: float = DEFAULT_SECONDS) -> None:
    """Remove everything inside ``folder`` (kept itself) without recursion; SweepTimeout after
    ``seconds``; FileNotFoundError if ``folder`` does not exist."""
    if sys.platform == "win32":  # the student kit on Windows: no dir_fd; its paths are short
        shutil.rmtree(folder)
        os.mkdir(folder)
        return
    deadline = time.monotonic() + seconds
    try:
        fd = os.open(folder, OPEN_FOLDER)
    except PermissionError:
        os.chmod(folder, OWNER_ALL)
        fd = os.open(folder, OPEN_FOLDER)
    names: list[str] = []  # the path from ``folder`` down to ``fd``
    try:
        while True:
            if time.monotonic() > deadline:
                raise SweepTimeout(f"{folder}: not emptied within {seconds:g} s ({len(names)} levels down)")
            try:
                os.fchmod(fd, OWNER_ALL)
            except PermissionError:
                pass  # not ours (the top folder of root's): listing may still work
            sub = _first_folder_emptying(fd)
            if sub is not None:
                child = _enter(fd, sub)
                os.close(fd)
                fd = child
                names.append(sub)
                continue
            if not names:
                return
            parent = os.open("..", OPEN_FOLDER, dir_fd=fd)
            os.close(fd)
            fd = parent
            with contextlib.suppress(FileNotFoundError):
                os.rmdir(names.pop(), dir_fd=fd)
    finally:
        os.close(fd)


def remove_tree(folder: str | os.PathLike[str], *, seconds: float = DEFAULT_SECONDS) -> bool:
    """Remove ``folder`` and everything in it, without recursion and within ``seconds``; never
    raises. True when it is gone (or never existed)."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        if stat.S_ISDIR(info.st_mode):
            empty_tree(folder, seconds=seconds)
            os.rmdir(folder)
        else:
            os.unlink(folder)
    except FileNotFoundError:
        return True
    except (OSError, SweepTimeout, RecursionError, MemoryError):
        return False
    return True


def remove_ipc_objects(uid: int) -> list[str]:
    """Remove every System V shared memory segment, message queue and semaphore set ``uid``
    owns (run as that user: owners may remove their own); return what could not be removed."""
    if sys.platform == "win32":
        return []
    libc = ctypes.CDLL(None, use_errno=True)
    calls = {"shm": libc.shmctl, "msg": libc.msgctl, "sem": libc.semctl}
    left = []
    for table in SYSV_TABLES:
        try:
            with open(f"/proc/sysvipc/{table}", "rb") as listing:  # bytes: no codec to import
                rows = [line.split() for line in listing.read().splitlines()[1:]]
        except OSError:
            continue
        uid_column = 4 if table == "sem" else 7
        for row in rows:
            try:
                ident, owner = int(row[1]), int(row[uid_column])
            except (IndexError, ValueError):
                continue
            if owner != uid:
                continue
            args = (ident, 0, IPC_RMID, None) if table == "sem" else (ident, IPC_RMID, None)
            if calls[table](*args) != 0:
                left.append(f"{table} {ident}")
    return left


def sweep(folders: list[str], *, ipc_uid: int | None = None, seconds: float = DEFAULT_SECONDS) -> list[str]:
    """Empty every folder of ``folders`` (each kept itself: its parent may be root's) and, with
    ``ipc_uid``, remove that user's System V objects; return what was left. Run as the sandbox
    user by :func:`grader.sandbox.folders.sweep_as` (so imports nothing: that user may not be able
    to read this Python's library)."""
    failed = []
    for folder in folders:
        try:
            empty_tree(folder, seconds=seconds)
        except FileNotFoundError:
            continue
        except (OSError, SweepTimeout) as exc:
            failed.append(f"{folder}: {exc}")
    if ipc_uid is not None:
        failed += remove_ipc_objects(ipc_uid)
    return failed
