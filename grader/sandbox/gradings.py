"""The batch's grading processes: ``python -m MODULE`` (the batch's own module) once per submission, each running
the grader's own engine (which starts its own sandboxed worker). Only our code runs in them, so
they are not confined; they are bounded by a time limit and stopped as a group when the batch is
interrupted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

STOP_GRACE_S = 10.0
"""How long a grading process has, after SIGTERM, to close its sandbox before SIGKILL."""
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
"""Set for each grading process: one BLAS/OpenMP thread each, so that N workers use N cores
instead of competing for all of them."""


@dataclass(frozen=True)
class Finished:
    """How a grading process ended: its exit status (None if it was stopped), whether it ran out
    of time, and what it wrote to stderr."""

    returncode: int | None
    timed_out: bool
    stderr: bytes


class GradingProcesses:
    """The grading processes running now, so that an interrupted batch can stop them."""

    def __init__(self, module: str) -> None:
        self.module = module
        """The module each grading process runs (``python -m module ARGS``): the batch's own."""
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self.stopping = False

    def run(self, args: list[str], *, timeout: float) -> Finished:
        """Run ``python -m MODULE ARGS`` to its end or for ``timeout`` seconds, then stop it
        (SIGTERM, SIGKILL if it lingers). Called from one thread per grading."""
        proc = subprocess.Popen([sys.executable, "-m", self.module, *args], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_environment())
        self._add(proc)
        try:
            try:
                _, stderr = proc.communicate(timeout=timeout)
                return Finished(proc.returncode, False, stderr or b"")
            except subprocess.TimeoutExpired:
                return Finished(None, True, _stop(proc))
        finally:
            self._remove(proc)

    def _add(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.add(proc)
        if self.stopping:
            _signal(proc, signal.SIGTERM)

    def _remove(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.discard(proc)

    def running(self) -> list[subprocess.Popen[bytes]]:
        with self._lock:
            return list(self._running)

    def stop_all(self) -> None:
        """SIGTERM every grading process (each then closes its sandbox); SIGKILL the ones still
        there after STOP_GRACE_S. The threads waiting on them collect them."""
        self.stopping = True
        for proc in self.running():
            _signal(proc, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        while time.monotonic() < deadline and any(p.poll() is None for p in self.running()):
            time.sleep(0.1)
        for proc in self.running():
            _signal(proc, signal.SIGKILL)


def _signal(proc: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signum)


def _stop(proc: subprocess.Popen[bytes]) -> bytes:
    """Stop a grading process that ran out of time: SIGTERM (it then closes its sandbox), SIGKILL
    if it lingers. Returns what it wrote to stderr."""
    _signal(proc, signal.SIGTERM)
    try:
        _, stderr = proc.communicate(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        _signal(proc, signal.SIGKILL)
        _, stderr = proc.communicate()
    return stderr or b""


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    env.setdefault("MPLBACKEND", "Agg")
    return env
