"""One sandbox user per concurrent worker: a small pool of accounts, each leased by one Sandbox at
a time across every grader process of the machine.

Everything the kernel counts or checks per user would otherwise be shared by all the workers that
run at once (``grader batch --workers N``, other graders on the machine): ``RLIMIT_NPROC`` counts
every task of the user, so one worker filling its process allowance would lower the others'; a
worker could signal the others' processes, reach their run folders in mode ``user``, and the sweep
of System V objects after one grading would take the others' too. So each :class:`Sandbox`
leases one account of the pool (:data:`POOL_SIZE` of them: ``a2sandbox``, ``a2sandbox1``, ...)
for its life: the lease is an exclusive ``flock`` on the account's lock file in a root-only
folder, which the kernel releases when the holder ends, however it ends. An account is created on
first lease (``useradd --system``). When every account is leased, the Sandbox waits for one (at
most :data:`WAIT_S`), then shares the first, saying so in the log.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import pwd
import shutil
import subprocess
import time
from dataclasses import dataclass

from grader.sandbox.isolation import SANDBOX_USER, USERADD, USERADD_TIMEOUT_S, IsolationError

POOL_SIZE = int(os.environ.get("A2GRADER_SANDBOX_USERS", "16"))
"""Accounts in the pool (at most this many workers run as users of their own at once)."""
LOCK_FOLDER = "/run/a2grader-sandbox-users"
"""Root-only folder of the lock files, one per account."""
WAIT_S = 30.0
POLL_S = 0.2

_LOG = logging.getLogger(__name__)


def user_name(slot: int) -> str:
    """The pool's account ``slot``: the sandbox user itself first (Gradescope's setup.sh makes it)."""
    return SANDBOX_USER if slot == 0 else f"{SANDBOX_USER}{slot}"


def _ids(name: str) -> tuple[int, int] | None:
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def ensure_user(slot: int) -> tuple[int, int]:
    """(uid, gid) of the pool's account ``slot``, created first when missing (root only)."""
    name = user_name(slot)
    ids = _ids(name)
    if ids is None:
        if shutil.which(USERADD[0]) is None:
            raise IsolationError(f"there is no user {name!r} and no {USERADD[0]} to create it")
        command = [*USERADD[:-1], name]
        done = subprocess.run(command, capture_output=True, text=True, timeout=USERADD_TIMEOUT_S, check=False)
        ids = _ids(name)  # another grader may have made it meanwhile
        if ids is None:
            raise IsolationError(f"{' '.join(command)} failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    if min(ids) <= 0:
        raise IsolationError(f"user {name!r} has uid {ids[0]}, gid {ids[1]}; it must not be root or in root's group")
    return ids


@dataclass
class Lease:
    """One account of the pool, held until :meth:`release` (or until this process ends)."""

    slot: int
    uid: int
    gid: int
    fd: int | None

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)  # closing the lock file's only descriptor releases the flock


def _try(slot: int) -> int | None:
    os.makedirs(LOCK_FOLDER, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(LOCK_FOLDER, f"{user_name(slot)}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def lease(*, size: int = POOL_SIZE, wait: float = WAIT_S) -> Lease:
    """An account of the pool no other worker holds (waiting up to ``wait`` seconds for one)."""
    end = time.monotonic() + wait
    while True:
        for slot in range(max(1, size)):
            fd = _try(slot)
            if fd is None:
                continue
            try:
                uid, gid = ensure_user(slot)
            except (IsolationError, OSError, subprocess.SubprocessError) as exc:
                os.close(fd)
                if slot == 0:
                    raise IsolationError(str(exc)) from None
                _LOG.warning("sandbox user %s is unavailable (%s); workers share the others", user_name(slot), exc)
                size = slot  # the pool ends before the account that cannot be made
                break
            return Lease(slot, uid, gid, fd)
        if time.monotonic() >= end:
            _LOG.warning("all %d sandbox users are busy; this worker shares %s with another", size, SANDBOX_USER)
            uid, gid = ensure_user(0)
            return Lease(0, uid, gid, None)
        time.sleep(POLL_S)
