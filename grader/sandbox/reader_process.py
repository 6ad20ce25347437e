"""The writeup reader's child process: a :class:`Runner` whose requests a module of ours answers
in a child process, each within its time limit.

Writeups are untrusted *data*: nothing in them is executed, but parsing hostile text (a formula
nested thousands deep, an exponent tower, a regex-hostile line, a giant file) could still take
long or use much memory. So the reader runs ``python -P -m MODULE REQUEST_FD REPLY_FD`` (our own
code only, so it is not confined: no sandbox user, no namespaces) with its address space capped
(:data:`MEMORY_LIMIT`), and talks to it as the sandbox talks to its worker
(:mod:`grader.sandbox.channel`, wire frames, the same reply shape). A request that runs past its
time limit, a child that dies or a reply of the wrong shape costs that request: the child's
process tree is killed and the next request starts a fresh child.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader.sandbox import channel as channel_mod
from grader.sandbox.channel import Channel, Command
from grader.sandbox.frames import Capture, check_timeout, request_frame
from grader.sandbox.limits import clamp, limit_setter
from grader.sandbox.runner import DEFAULT_CALL_TIMEOUT_S, GIB, MIB, ProbeError, ProbeResult
from grader.untrusted import wire

MEMORY_LIMIT = 2 * GIB
"""Address-space limit of the child (bytes)."""
STARTUP_S = 20.0
"""Extra time allowed for a fresh child's first request (it imports SymPy and the LaTeX parser)."""
MAX_REPLY_BYTES = 16 * MIB
"""Largest reply read from the child."""
MAX_REQUEST_BYTES = 128 * MIB
"""Largest request sent to the child (20 writeups of up to 4 MB each fit)."""
OUTPUT_BYTES = 4096
"""What the child prints is not shown to anyone; its head is kept for debugging."""
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
GRADER_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the ``grader`` package; the child imports it from there, installed or not."""
CRASHED = "the reader process ended"
REQUEST_REFUSED = "RequestRefused"
"""Error type of a request that was not sent: its text is over :data:`MAX_REQUEST_BYTES` once encoded."""


class ReaderProcess:
    """Answers requests in a child process running ``python -m module``; one request at a time."""

    def __init__(self, module: str) -> None:
        self.module = module
        self._child: Channel | None = None
        self._request = 0

    def __enter__(self) -> ReaderProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _command(self, request_fd: int, reply_fd: int) -> Command:
        root = str(GRADER_ROOT)
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=path, **dict.fromkeys(THREAD_VARIABLES, "1"))
        plan = clamp([(resource.RLIMIT_AS, MEMORY_LIMIT, MEMORY_LIMIT), (resource.RLIMIT_CORE, 0, 0)])
        # -P: the working directory (perhaps a student's upload) is never put on sys.path.
        return Command([sys.executable, "-P", "-m", self.module, str(request_fd), str(reply_fd)], root, env,
                       limit_setter(plan))

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        """Send one request; a fresh child gets :data:`STARTUP_S` more to start."""
        check_timeout(timeout)
        self._request += 1
        try:
            frame = request_frame(self._request, probe, args, MAX_REQUEST_BYTES)
        except wire.WireError as exc:  # the text read is too large (or not sendable): this request's problem
            return ProbeResult(status="error", error=ProbeError(REQUEST_REFUSED, f"the text is too large to read ({exc})"))
        fresh = self._child is None
        if self._child is None:
            self._child = channel_mod.start(self._command, message_bytes=MAX_REPLY_BYTES,
                                            output_bytes=OUTPUT_BYTES, name="writeup reader")
        child = self._child
        child.stdout, child.stderr = Capture(OUTPUT_BYTES), Capture(OUTPUT_BYTES)
        started = time.monotonic()
        waited = channel_mod.exchange(child, frame, started + timeout + (STARTUP_S if fresh else 0.0))
        status, value, error, usable = channel_mod.conclude(child, waited, self._request, timeout)
        if not usable:
            self._child = None
        if status == "crashed":
            error = ProbeError("ReaderCrashed", CRASHED)
        return ProbeResult(status=status, value=value, error=error, elapsed=time.monotonic() - started)

    def close(self) -> None:
        """Stop the child (and everything it started)."""
        child, self._child = self._child, None
        if child is not None:
            channel_mod.stop(child)
