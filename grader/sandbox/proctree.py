"""Processes seen from outside: the /proc table, a process tree stopped and killed as a whole,
CPU time used, and what a process's end means for a student.

Used for every process the boundary starts (the worker and the writeup reader): when a call
times out, crashes or breaks the protocol, :func:`kill_tree` ends the process, its group and
every descendant, even ones that left the group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

from grader.sandbox.runner import SandboxError

EXIT_POLL_S = 0.01
KILL_WAIT_S = 5.0
FREEZE_ROUNDS = 8
"""Rescans of /proc for descendants to stop before the kill (each catches late forks)."""


def process_table() -> dict[int, int]:
    """Map pid -> parent pid of every process in /proc (empty where there is no /proc)."""
    parents: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue  # it exited meanwhile
            parents[int(entry.name)] = int(fields[1])
    return parents


def descendants(root: int) -> set[int]:
    parents = process_table()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        children = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= children
        frontier = children
    return found


def signal_pid(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker, its process group and every descendant, even ones that left it.

    Everything is stopped first so that nothing forks during the kill; the worker is a child
    subreaper, so double-forked orphans are still its descendants while it lives.
    """
    signal_group(proc.pid, signal.SIGSTOP)
    stopped: set[int] = set()
    # Walk the tree only while the worker is unreaped: until then its pid cannot be reused.
    # (Once it has exited, its orphans belong to init and only the group kill reaches them.)
    for _ in range(FREEZE_ROUNDS if proc.returncode is None else 0):
        fresh = descendants(proc.pid) - stopped
        if not fresh:
            break
        for pid in fresh:
            signal_pid(pid, signal.SIGSTOP)
        stopped |= fresh
    for pid in stopped:
        signal_pid(pid, signal.SIGKILL)
    signal_group(proc.pid, signal.SIGKILL)
    proc.kill()
    try:
        proc.wait(timeout=KILL_WAIT_S)
    except subprocess.TimeoutExpired:
        raise SandboxError(f"worker {proc.pid} did not die within {KILL_WAIT_S} s of SIGKILL"
                           ) from None
    # The rest die asynchronously (a PID namespace is torn down after its init): wait for them,
    # so that when a call or close() returns, nothing the worker started still runs.
    deadline = time.monotonic() + KILL_WAIT_S
    while any(running(pid) for pid in stopped) and time.monotonic() < deadline:
        time.sleep(EXIT_POLL_S)


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the worker has ended, without reaping it: until it is reaped its pid, and so its
    process group id, cannot be reused, so killing the group later cannot hit a stranger."""
    if proc.returncode is not None:
        return True
    if not isinstance(proc, subprocess.Popen):  # forked by the fork server: ForkedProcess
        return bool(proc.exited())
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a live process has used, or 0.0 if unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def tasks_of_user(uid: int) -> int:
    """Processes and threads the user already has: the count RLIMIT_NPROC is compared with."""
    total = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/status", encoding="utf-8") as status:
                    fields = dict(line.split(":", 1) for line in status if ":" in line)
            except OSError:
                continue
            if int(fields.get("Uid", "-1 ").split()[0]) == uid:
                total += int(fields.get("Threads", "1").strip())
    return total


def describe_exit(returncode: int) -> str:
    """Say, for a student, why the worker process ended."""
    if returncode >= 0:
        return (f"the worker process exited with code {returncode} during the call: "
                "os._exit() or a fatal error in your code ended it")
    signum = -returncode
    name = signal.Signals(signum).name if signum in signal.valid_signals() else str(signum)
    reasons = {
        "SIGKILL": "killed: out of memory, or over the CPU-time limit",
        "SIGXCPU": "over the CPU-time limit",
        "SIGSEGV": "a segmentation fault (e.g. unbounded recursion in C code, or ctypes)",
        "SIGABRT": "aborted by a fatal error (often an allocation that failed)",
        "SIGXFSZ": "over the file-size limit",
    }
    return f"the worker process died from {name}: {reasons.get(name, 'a fatal signal')}"


def grandchild(pid: int) -> int | None:
    """The only child of the only child of ``pid`` (the worker, under the launcher and the
    namespace's init), or None."""
    parents = process_table()
    children = [child for child, parent in parents.items() if parent == pid]
    if len(children) != 1:
        return None
    grandchildren = [child for child, parent in parents.items() if parent == children[0]]
    return grandchildren[0] if len(grandchildren) == 1 else None
