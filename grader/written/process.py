"""Parse and judge written answers in a child process with a time limit per request.

Writeups are untrusted *data*: nothing in them is executed, but parsing hostile text (a formula
nested thousands deep, an exponent tower, a regex-hostile line, a giant file) could still take
long or use much memory. So the trusted grader sends each request (find the sections; judge one
question) to a child process — ``python -m grader.written.process``, our own code only — as one
JSON line, and reads one JSON line back. A request that runs past its time limit, or a child
that dies, costs that request: the child is killed and the next request starts a fresh one.
The child's address space is capped (:data:`MEMORY_LIMIT`).

:class:`InProcess` answers the same requests in this process (unit tests, speed).
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Protocol

import numpy as np

MEMORY_LIMIT = 2 * 1024**3
"""Address-space limit of the child (bytes)."""
STARTUP_S = 20.0
"""Extra time allowed for the child's first request (it imports SymPy and the LaTeX parser)."""
MAX_REPLY_BYTES = 16 * 1024**2
"""Largest reply read from the child."""


class Reply(dict):
    """A reply: ``{"ok": True, ...}`` or ``{"ok": False, "status": "timeout"|"crashed"|"error", "error": ...}``."""


def handle(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one request (runs in the child, or in process for :class:`InProcess`)."""
    from grader.checks.api import check_rng
    from grader.written.checkers import all_written_checkers
    from grader.written.registry import WrittenContext
    from grader.written.sections import Section, locate

    op = request.get("op")
    if op == "locate":
        found = locate([(str(n), str(t)) for n, t in request["files"]], set(request["questions"]))
        return {"ok": True, "notes": found.notes,
                "sections": {q: s.__dict__ for q, s in found.sections.items()}}
    if op == "check":
        checker = all_written_checkers()[request["checker"]]
        section = Section(**request["section"])
        ctx = WrittenContext(request["question"], check_rng(int(request["seed"]), request["question"]),
                             int(request["seed"]))
        with np.errstate(all="ignore"):
            verdict = checker(section, ctx)
        return {"ok": True, "verdict": verdict.to_dict()}
    if op == "ping":
        return {"ok": True}
    return {"ok": False, "status": "error", "error": f"unknown request {op!r}"}


def _safe_handle(request: dict[str, Any]) -> dict[str, Any]:
    try:
        return handle(request)
    except RecursionError:
        return {"ok": False, "status": "error", "error": "the answer is nested too deeply to read"}
    except MemoryError:
        return {"ok": False, "status": "crashed", "error": "reading the answer ran out of memory"}
    except Exception:  # a bug in a written checker, not in the student's text
        return {"ok": False, "status": "error", "internal": True,
                "error": traceback.format_exc(limit=-4).strip().splitlines()[-1],
                "detail": traceback.format_exc(limit=-4).strip().splitlines()[-6:]}


class Runner(Protocol):
    def request(self, request: dict[str, Any], *, timeout: float) -> dict[str, Any]: ...

    def close(self) -> None: ...


class InProcess:
    """Answers requests in this process (no time limit): for tests and trusted text."""

    def request(self, request: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        return _safe_handle(json.loads(json.dumps(request)))

    def close(self) -> None:
        pass


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class ChildProcess:
    """Answers requests in a child process, each within its time limit."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""

    def _start(self) -> subprocess.Popen[bytes]:
        # The child imports this package from where the parent found it, installed or not.
        root = str(Path(__file__).resolve().parents[2])
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   PYTHONHASHSEED="0", PYTHONPATH=path)
        self._buffer = b""
        # -P: the working directory (perhaps a student's upload) is never put on sys.path.
        return subprocess.Popen([sys.executable, "-P", "-m", "grader.written.process"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=root,
                                start_new_session=True)

    def request(self, request: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        fresh = self._proc is None
        proc = self._proc if self._proc is not None else self._start()
        self._proc = proc
        assert proc.stdin is not None and proc.stdout is not None
        deadline = time.monotonic() + timeout + (STARTUP_S if fresh else 0.0)
        try:
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._kill()
            return {"ok": False, "status": "crashed", "error": "the reader process ended"}
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self._kill()
                return {"ok": False, "status": "timeout", "error": f"reading took longer than {timeout:g} s"}
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if not ready:
                if proc.poll() is not None:
                    self._kill()
                    return {"ok": False, "status": "crashed", "error": "the reader process ended"}
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                self._kill()
                return {"ok": False, "status": "crashed", "error": "the reader process ended"}
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                self._kill()
                return {"ok": False, "status": "crashed", "error": "the reply was too large"}
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            self._kill()
            return {"ok": False, "status": "crashed", "error": "an unreadable reply"}
        return reply if isinstance(reply, dict) else {"ok": False, "status": "crashed", "error": "a bad reply"}

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        proc.wait()

    def close(self) -> None:
        self._kill()


def main() -> None:
    """The child: one JSON request per line on stdin, one JSON reply per line on the saved stdout."""
    _limits()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)                 # stray prints of libraries go to stderr, never into the protocol
    sys.stdout = sys.stderr
    sys.setrecursionlimit(4000)
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            reply: dict[str, Any] = {"ok": False, "status": "error", "error": "a request that is not JSON"}
        else:
            reply = _safe_handle(request)
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
