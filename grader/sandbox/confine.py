"""The launcher that confines a worker: run as root between the grader's fork and the worker.

Trusted code, but it runs in the worker's process before any student code: the grader starts
``python -I -S -B confine.py PLAN`` (PLAN is the JSON made by :func:`grader.sandbox.isolation.confine_plan`)
and this program, using only the standard library, then

1. with ``namespaces`` set, enters a new mount, network, IPC and PID namespace, covers every folder
   in ``hide`` with an empty root-owned tmpfs (the grader's files, /tmp and the other shared
   scratch folders), and binds back at the same paths the folders in ``expose`` (the Python
   environment read-only, the sandbox's private folder read-write), so that the worker sees the
   same paths but nothing else of them. The network namespace holds only a loopback device that
   is down. A small init process (pid 1 of the namespace, root, doing nothing but reaping) forks
   the worker; when the worker ends, init ends, and the kernel kills every process left in the
   namespace, including ones that left the worker's session. The IPC namespace (System V
   shared memory, message queues and semaphores, POSIX message queues) ends with it too, so
   nothing the worker made there outlives it or reaches the next grading;
2. sets the resource limits, drops to the sandbox user (``setgroups``, ``setgid``, ``setuid``,
   then ``PR_SET_NO_NEW_PRIVS`` so that no set-user-ID program can raise it again), gives it a
   fresh anonymous session keyring and locks the sandbox user's own keyrings (user and
   user-session: every permission removed, which only root can give back), so that no key
   outlives the worker either, and
3. ``execve``'s the worker in ``cwd`` with exactly ``env``.

The process the grader started exits with the worker's status (a signal is re-raised on
itself), so the grader sees one process that ends when the worker ends. Any failure before the
worker starts is printed on stderr as ``confine: ...`` and ends with EXIT_SETUP_FAILED.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
import select
import signal
import struct
import sys
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}
"""keyctl's system call number (glibc has no wrapper; libkeyutils may be missing)."""
KEYCTL_GET_KEYRING_ID = 0
KEYCTL_JOIN_SESSION_KEYRING = 1
KEYCTL_SETPERM = 5
KEY_SPEC_USER_KEYRING = -4
KEY_SPEC_USER_SESSION_KEYRING = -5

HIDING_TMPFS_OPTIONS = "mode=0755,size=1m"
"""Options of the tmpfs laid over a hidden folder: root-owned, not writable by the worker, and
only big enough for the mount points of the folders bound back into it."""

EXIT_SETUP_FAILED = 71
STATUS = struct.Struct("=i")

_libc = ctypes.CDLL(None, use_errno=True)


class ConfineError(Exception):
    """A step of the confinement failed; the worker must not start."""


def _syscall(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise ConfineError(f"{what}: {os.strerror(errno)} (errno {errno})")


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    def raw(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    _syscall(_libc.mount(raw(source), raw(target), raw(fstype), ctypes.c_ulong(flags),
                         raw(data)), f"mount {fstype or 'bind'} on {target}")


def _prctl(option: int, value: int, what: str) -> None:
    _syscall(_libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), what)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _build_view(hide: list[str], expose: list[tuple[str, bool]], cover: tuple[str, ...] | list[str] = ()) -> None:
    """Cover each folder of ``hide`` with an empty tmpfs, then bind each exposed folder back, then
    cover each folder of ``cover`` (inside an exposed one: a package of the grader's installed in
    the Python environment)."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here leaks to the host
    # Open every exposed folder before anything is covered: the binds use these handles.
    handles = [(os.open(path, os.O_PATH | os.O_DIRECTORY), path, writable)
               for path, writable in sorted(expose, key=lambda item: len(item[0]))]
    covered: list[str] = []
    for folder in sorted(hide, key=len):
        if any(_inside(folder, done) for done in covered) or not os.path.isdir(folder):
            continue
        _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, HIDING_TMPFS_OPTIONS)
        covered.append(folder)
    for handle, path, writable in handles:
        os.makedirs(path, mode=0o755, exist_ok=True)
        _mount(f"/proc/self/fd/{handle}", path, None, MS_BIND | MS_REC)
        flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (0 if writable else MS_RDONLY)
        _mount(None, path, None, flags)
        os.close(handle)
    for folder in sorted(cover, key=len):
        if os.path.isdir(folder):
            _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, HIDING_TMPFS_OPTIONS)


def _drop_privileges(plan: dict[str, Any]) -> None:
    """Apply the limits, become the sandbox user for good, and forbid regaining privileges."""
    for kind, soft, hard in plan["rlimits"]:
        resource.setrlimit(kind, (soft, hard))
    uid, gid = plan["uid"], plan["gid"]
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if (os.getuid(), os.geteuid(), os.getgid(), os.getegid()) != (uid, uid, gid, gid):
        raise ConfineError(f"the worker still runs as uid {os.geteuid()}; expected {uid}")
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise ConfineError("setuid(0) succeeded after dropping privileges")
    _prctl(PR_SET_NO_NEW_PRIVS, 1, "PR_SET_NO_NEW_PRIVS")
    _private_keyrings()


def _keyctl(*args: int) -> int:
    number = SYS_KEYCTL.get(os.uname().machine)
    if number is None:
        raise ConfineError(f"keyctl: no system call number known for {os.uname().machine}")
    return int(_libc.syscall(ctypes.c_long(number), *(ctypes.c_long(arg) for arg in args)))


def _private_keyrings() -> None:
    """Keys the worker adds cannot outlive it: its session keyring is a new anonymous one (gone
    with its last process), and the sandbox user's persistent keyrings (user, user-session) lose
    every permission, so they can neither hold nor show a key (a locked keyring stays locked: the
    user cannot set its permissions back, nor find it any more, so EACCES or ENOKEY means it
    already is)."""
    for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
        serial = _keyctl(KEYCTL_GET_KEYRING_ID, keyring, 1)  # made now if missing, then locked
        if serial < 0 and ctypes.get_errno() in (errno.EACCES, errno.ENOKEY):
            continue  # locked by an earlier worker: the user can no longer find it
        if serial < 0 or (_keyctl(KEYCTL_SETPERM, serial, 0) != 0 and ctypes.get_errno() != errno.EACCES):
            _syscall(-1, "keyctl(SETPERM) of the sandbox user's keyrings")
    if _keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0) < 0:
        _syscall(-1, "keyctl(JOIN_SESSION_KEYRING)")


RUN_IN_PROCESS: Any = None
"""Set by the fork server (:mod:`grader.sandbox.zygote`): called with the plan instead of
``execve`` once the worker is confined, to run the worker in this (forked) process."""


def _exec_worker(plan: dict[str, Any]) -> None:
    os.chdir(plan["cwd"])
    _drop_privileges(plan)
    # The parent's death kills the worker (cleared by setuid, so set after it).
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    if RUN_IN_PROCESS is not None:
        RUN_IN_PROCESS(plan)
        os._exit(EXIT_SETUP_FAILED)
    os.execve(plan["argv"][0], plan["argv"], plan["env"])


def _quiet_stdio(keep: int = -1) -> None:
    """Point 0-2 at /dev/null and close every other descriptor but ``keep``, so the grader sees
    end-of-file on the worker's pipes when the worker itself ends."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    limit = os.sysconf("SC_OPEN_MAX")
    if keep > 2:
        os.closerange(3, keep)
        os.closerange(keep + 1, limit)
    else:
        os.closerange(3, limit)


def _reader_gone(fd: int) -> bool:
    """Whether nobody can read the pipe whose write end is ``fd`` any more."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _init(plan: dict[str, Any], status_fd: int) -> None:
    """Pid 1 of the namespace: start the worker, reap everything, report the worker's status."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    if _reader_gone(status_fd):  # the launcher died before the line above (getppid() is 0 here)
        os._exit(EXIT_SETUP_FAILED)
    try:  # a /proc of this namespace only: the worker cannot see the grader's processes
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except ConfineError:
        pass  # some containers refuse a new proc mount; the host's /proc stays
    _prctl(PR_SET_DUMPABLE, 0, "PR_SET_DUMPABLE")
    worker = os.fork()
    if worker == 0:
        os.close(status_fd)
        _exec_worker(plan)
    _quiet_stdio(keep=status_fd)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        if pid == worker:
            os.write(status_fd, STATUS.pack(status))
            os._exit(0)


def _mirror(status: int | None) -> None:
    """End this process as the worker ended: same exit code, or killed by the same signal."""
    code = -signal.SIGKILL if status is None else os.waitstatus_to_exitcode(status)
    if code >= 0:
        os._exit(code)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(-code, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [-code])
    os.kill(os.getpid(), -code)
    os.kill(os.getpid(), signal.SIGKILL)  # for a signal whose default action is not to end


def _launch_in_namespaces(plan: dict[str, Any]) -> None:
    grader = os.getppid()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    if os.getppid() != grader:
        raise ConfineError("the grader ended before the worker started")
    _syscall(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWPID),
             "unshare(mount, network, IPC, pid namespaces)")
    _build_view(plan["hide"], [(path, bool(writable)) for path, writable in plan["expose"]], plan.get("cover", []))
    status_r, status_w = os.pipe()
    init = os.fork()
    if init == 0:
        try:
            os.close(status_r)
            _init(plan, status_w)
        except BaseException as exc:  # report, never fall through to our code
            _report(exc)
        os._exit(EXIT_SETUP_FAILED)
    os.close(status_w)
    _quiet_stdio(keep=status_r)
    data = b""
    while len(data) < STATUS.size:
        chunk = os.read(status_r, STATUS.size - len(data))
        if not chunk:
            break
        data += chunk
    os.waitpid(init, 0)  # returns once init, and with it the whole namespace, is gone
    _mirror(STATUS.unpack(data)[0] if len(data) == STATUS.size else None)


def _report(exc: BaseException) -> None:
    with open(2, "w", closefd=False) as err:
        err.write(f"confine: {type(exc).__name__}: {exc}\n")


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise ConfineError("usage: confine.py PLAN_JSON")
    plan = json.loads(argv[0])
    os.umask(0o022)
    if plan["namespaces"]:
        _launch_in_namespaces(plan)
    else:
        _exec_worker(plan)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BaseException as error:  # any failure: say what, and do not run the worker
        _report(error)
    os._exit(EXIT_SETUP_FAILED)
