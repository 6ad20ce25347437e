"""What the sandbox's tests share: a submission of small student modules that simulate student
behaviour (hangs, exits, crashes, bombs, leftovers), the calls into it, and bounded waits on
processes (every wait is bounded by the test itself)."""

from __future__ import annotations

import os
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grader.sandbox import (
    ProbeResult,
    Runner,
    Sandbox,
    isolation,
)
from grader.sandbox.proctree import running

CALL_TIMEOUT = 5.0
WAIT_LIMIT = 5.0
SMALL_OUTPUT = 4096

STUDENT = '''
import ctypes
import os
import resource
import sys
import threading
import time

import numpy as np

import helper


def values():
    return {"matrix": np.arange(6.0).reshape(2, 3), "half": 0.5, "count": 3, "word": "parsed",
            "pair": (1, [2.0, np.float32(0.25)]), "nan": float("nan"), "nothing": None}


def add(x, y):
    return x + y


def chatty(lines):
    for i in range(lines):
        print("line", i, "x" * 100)
    sys.stderr.write("e" * 200_000)
    os.write(1, b"written to fd 1 directly\\n")
    return 42


def spin():
    while True:
        pass


def leave():
    sys.exit(0)


def leave_hard():
    os._exit(0)


def interrupt():
    raise KeyboardInterrupt


def base_exception():
    raise BaseException("not an Exception")


def memory_bomb():
    block = np.zeros(10 * 2**30, dtype=np.uint8)  # 10 GB, never touched
    return block.nbytes


def recurse(depth=0):
    return recurse(depth + 1)


def segfault():
    ctypes.string_at(0)


def nested():
    return helper.reshape_wrong()


def unsupported():
    return object()


def big(n):
    return np.zeros(n, dtype=np.uint8)


def tensor():
    import torch
    return torch.ones(2, 3, requires_grad=True) * 2


def leak_descriptors(unused):
    kept = []
    while True:
        try:
            kept.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            return len(kept)


def immortal_thread(path):
    def beat():
        while True:
            with open(path, "a") as out:
                out.write(".")
            time.sleep(0.01)
    threading.Thread(target=beat).start()  # not a daemon: it would block a normal exit
    return "started"


def _sleeper(path, leave_session):
    try:
        if leave_session:
            os.setsid()
        with open(path, "a") as out:
            out.write(f"{os.getpid()} {int(leave_session)}\\n")
        time.sleep(1000)
    finally:
        os._exit(0)


def fork_and_sleep(path, children, then):
    for _ in range(children):
        if os.fork() == 0:
            _sleeper(path, leave_session=False)
    if os.fork() == 0:  # a double fork into a new session: the orphan is re-parented
        if os.fork() == 0:
            _sleeper(path, leave_session=True)
        os._exit(0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (
            not os.path.exists(path) or len(open(path).readlines()) < children + 1):
        time.sleep(0.01)
    if then == "exit":
        os._exit(3)
    while then == "spin":
        pass
    return "forked"


def fork_bomb():
    while True:
        try:
            os.fork()
        except OSError:
            pass


def scribble(payload):
    data = payload.encode("latin-1")
    for fd in range(3, 64):
        try:
            os.write(fd, data)
        except OSError:
            pass
    return "scribbled"


def inspect():
    return {
        "cwd": os.getcwd(),
        "path0": sys.path[0],
        "env": dict(os.environ),
        "wire_file": sys.modules["untrusted.wire"].__file__,
        "top_level_wire": "wire" in sys.modules,
        "grader_imported": "grader" in sys.modules,
        "uid": os.getuid(),
        "limits": {name: list(resource.getrlimit(getattr(resource, name)))
                   for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE",
                                "RLIMIT_CORE", "RLIMIT_NPROC")},
    }
'''

FILES = {
    "student.py": STUDENT,
    "helper.py": "import numpy as np\n\n\ndef reshape_wrong():\n"
                 "    return np.arange(3).reshape(2, 2)\n",
    "broken.py": "def f(:\n    pass\n",
    "exit_at_import.py": "import sys\nsys.exit(0)\n",
    "hard_exit_at_import.py": "import os\nos._exit(0)\n",
}


def write_submission(folder: Path) -> Path:
    """``folder`` with the simulated student's files (:data:`FILES`)."""
    for name, text in FILES.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


def student(runner: Runner, function: str, *args: Any,
            timeout: float = CALL_TIMEOUT) -> ProbeResult:
    return runner.call("call", {"module": "student", "function": function, "args": list(args)},
                       timeout=timeout)


def worker_pid(box: Sandbox, timeout: float = CALL_TIMEOUT) -> int:
    """The host pid of the box's worker (ping's own pid is the one inside its namespace)."""
    result = box.call("ping", {}, timeout=timeout)
    assert result.ok, result
    assert box.worker_pid is not None
    return box.worker_pid


def namespace_of(pid: int) -> str | None:
    """The PID namespace a process is in, or None if it is gone."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def members(namespace: str) -> list[int]:
    """The live processes of a PID namespace."""
    return [int(entry) for entry in os.listdir("/proc")
            if entry.isdigit() and namespace_of(int(entry)) == namespace and alive(int(entry))]


NAMESPACED = isolation.detect().mode == "namespaces"
SWITCHES_USER = isolation.detect().switches_user


def wait_until(condition: Callable[[], bool], limit: float = WAIT_LIMIT) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (this VM's init never reaps): the sandbox's own test."""
    return running(pid)


def recorded_pids(path: Path, count: int) -> dict[int, bool]:
    """The pids that student processes wrote to ``path``, each with whether it left the
    worker's session."""
    assert wait_until(lambda: path.exists() and len(path.read_text().splitlines()) >= count), \
        f"expected {count} pids in {path}"
    return {int(pid): left == "1" for pid, left in
            (line.split() for line in path.read_text().splitlines())}
