"""The fork server: a process that has imported numpy and torch and forks each worker, so that a
worker does not pay Python's start and torch's import (about a second) every time it starts.

Trusted code that never runs student code: the grader (:mod:`grader.sandbox.forkserver`) starts
``python -s -B zygote.py FD`` as root, in the workers' own environment, with FD one end of a
SOCK_SEQPACKET socket pair. It imports the preloaded libraries and :mod:`confine` (by path; the
standard library only) and nothing else of the grader's: no student file, no reference, no
checker. Then it serves, one at a time:

    {"op": "spawn", "plan": PLAN} + 4 descriptors (request_r, reply_w, stdout_w, stderr_w)
        -> {"pid": N}: a child forked to start the worker PLAN describes (see below)
    {"op": "reap", "pid": N, "seconds": S}
        -> {"status": WAIT_STATUS or null}: the child reaped (it was killed first), at most S s

A child is never reaped before the grader asks, so its pid (and process group) stay its own
while the grader may still signal them. The child, before anything else, starts a session of
its own, dies with the fork server (PR_SET_PDEATHSIG), puts the four descriptors at 1, 2, 3, 4
(stdin the null device), closes every other one (the socket to this server included), and then
does exactly what ``confine.py PLAN`` does for a cold start (namespaces, limits, the sandbox user,
keyrings); where that would ``execve`` the worker, it runs the worker's script in-process
instead, as ``__main__``, with the environment, argv and sys.path of a cold start. It never
returns to the server's loop: any failure ends it with confine's EXIT_SETUP_FAILED.
"""

from __future__ import annotations

import fcntl
import gc
import importlib
import importlib.util
import json
import os
import runpy
import signal
import socket
import sys
import time
from typing import Any

MAX_MESSAGE = 1 << 20
FDS_PER_SPAWN = 4
WORKER_FDS = (3, 4, 1, 2)  # requests, replies, stdout, stderr: the order the grader sends them
PR_SET_PDEATHSIG = 1
OWN_MODULES = ("confine", "__zygote__")


def _load_confine() -> Any:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "confine.py")
    spec = importlib.util.spec_from_file_location("confine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["confine"] = module
    spec.loader.exec_module(module)
    return module


def _tasks() -> int:
    return len(os.listdir("/proc/self/task"))


def _vm_size() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _run_worker(plan: dict[str, Any]) -> None:
    """In the confined child: the worker's script as ``__main__``, as a cold start would run it."""
    os.environ.clear()
    os.environ.update(plan["env"])
    for name in OWN_MODULES:
        sys.modules.pop(name, None)
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()  # not the server's state: each worker's own, as a cold start's
    script = plan["argv"][3]
    sys.argv = [script, *plan["argv"][4:]]
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")  # the worker ends with os._exit


def _child(confine: Any, plan: dict[str, Any], fds: list[int], control: socket.socket) -> None:
    """The forked child; never returns."""
    try:
        os.setsid()
        confine._prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
        if os.getppid() == 1:
            raise confine.ConfineError("the fork server ended before the worker started")
        held = control.detach()  # no Python object may close a reused descriptor number later
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 16) for fd in fds]  # above every target number
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        for fd, target in zip(moved, WORKER_FDS, strict=True):
            os.dup2(fd, target)
        os.closerange(5, os.sysconf("SC_OPEN_MAX"))
        del held
        for fd in (3, 4):
            os.set_inheritable(fd, True)
        os.umask(0o022)
        confine.RUN_IN_PROCESS = _run_worker
        if plan["namespaces"]:
            confine._launch_in_namespaces(plan)
        else:
            confine._exec_worker(plan)
    except BaseException as exc:  # report, never fall back into the server's loop
        confine._report(exc)
    os._exit(confine.EXIT_SETUP_FAILED)


def _reap(pid: int, seconds: float) -> int | None:
    end = time.monotonic() + seconds
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return status
        if time.monotonic() >= end:
            return None
        time.sleep(0.005)


def serve(control: socket.socket, confine: Any) -> None:
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(control, MAX_MESSAGE, FDS_PER_SPAWN)
        except OSError:
            return
        if not message:
            return  # the grader closed its end
        request = json.loads(message)
        if request["op"] == "spawn":
            if len(fds) != FDS_PER_SPAWN:
                reply: dict[str, Any] = {"error": f"expected {FDS_PER_SPAWN} descriptors, got {len(fds)}"}
            else:
                pid = os.fork()
                if pid == 0:
                    _child(confine, request["plan"], fds, control)
                reply = {"pid": pid}
        elif request["op"] == "reap":
            reply = {"status": _reap(int(request["pid"]), float(request["seconds"]))}
        else:
            reply = {"error": f"unknown op {request['op']!r}"}
        for fd in fds:
            os.close(fd)
        control.send(json.dumps(reply).encode())


def main(argv: list[str]) -> None:
    grader = os.getppid()
    confine = _load_confine()
    confine._prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    if os.getppid() != grader:
        os._exit(confine.EXIT_SETUP_FAILED)
    control = socket.socket(fileno=int(argv[0]))
    preloaded = []
    for name in (argv[1].split(",") if len(argv) > 1 and argv[1] else []):
        importlib.import_module(name)
        preloaded.append(name)
    gc.freeze()  # the imported objects: never scanned again, so children copy fewer pages of them
    ready = {"ready": True, "preload": preloaded, "tasks": _tasks(), "vm_size": _vm_size()}
    control.send(json.dumps(ready).encode())
    if ready["tasks"] != 1:
        return  # forking a process with other threads is not safe: the grader starts workers cold
    serve(control, confine)


if __name__ == "__main__":
    sys.modules["__zygote__"] = sys.modules["__main__"]
    try:
        main(sys.argv[1:])
    finally:
        os._exit(0)
