"""The student kit's runner: the worker in a child process on Linux, macOS and Windows alike.

No ``resource`` limits on Windows, no process groups, no ``select.poll`` on pipes and no /proc:
the worker (``grader/untrusted/worker.py stdio``) speaks the same frames as with the
:class:`~grader.sandbox.worker_process.Sandbox`, over its stdin and stdout; a thread reads its
replies and another its output (student prints, capped), and a call that overruns its time is
answered "timeout" and the worker is killed and replaced. Results cross back as plain data
(:mod:`grader.untrusted.wire`), as everywhere. Where ``resource`` exists, the worker also gets an
CPU-time limit, and on Linux an address-space limit (``posix_limits``); student code on the
student's own laptop needs no more than that, and ``LIMITS_NOTE`` says so where only time limits apply.
"""

from __future__ import annotations

import itertools
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from grader import assignment
from grader.sandbox.frames import Capture, check_timeout, read_reply_body, request_frame
from grader.sandbox.runner import DEFAULT_CALL_TIMEOUT_S, Limits, ProbeError, ProbeResult, SandboxError

WORKER = Path(__file__).resolve().parent.parent / "untrusted" / "worker.py"
WORKER_FOLDERS_VARIABLE = "GRADER_WORKER_FOLDERS"
"""Where the worker started from :data:`WORKER` finds the assignment's probes (the worker's
``FOLDERS_VARIABLE``; tests/test_sandbox_cleanup.py checks the two agree)."""
LIMITS_NOTE = ("Your code runs in a separate process with time limits only (on this system there are "
               "no memory or process limits): a check that runs away is stopped at its time limit.")
_CHUNK = 1 << 16
OUTPUT_DRAIN_S = 0.2
"""After a reply, how long to wait at most for the thread that reads the worker's prints to take
what was printed before it (the Linux sandbox drains its pipes for as long: channel.FINAL_DRAIN_S)."""


def _posix_limits(limits: Limits) -> Any:
    if sys.platform == "win32":
        raise SandboxError("there are no resource limits on Windows")
    import resource  # POSIX only

    wanted = [(resource.RLIMIT_CPU, limits.cpu_seconds)]
    if sys.platform.startswith("linux"):  # macOS reserves far more address space than it uses
        wanted.append((resource.RLIMIT_AS, limits.memory_bytes))

    def apply() -> None:
        for which, value in wanted:
            try:
                _soft, hard = resource.getrlimit(which)
                cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.setrlimit(which, (cap, hard))
            except (ValueError, OSError):
                pass  # a system that refuses a limit still runs the checks, with time limits

    return apply


class _Worker:
    """One worker process and the two threads that drain its stdout (frames) and stderr (prints)."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], limits: Limits,
                 posix_limits: bool) -> None:
        self.limits = limits
        self.replies: queue.Queue[bytes | None] = queue.Queue()
        self.capture = Capture(limits.output_bytes)
        extra: dict[str, Any] = {}
        if posix_limits:
            extra["preexec_fn"] = _posix_limits(limits)
            extra["start_new_session"] = True
        try:
            self.proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, **extra)
        except OSError as exc:
            raise SandboxError(f"cannot start the worker: {exc}") from exc
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=self._read_frames, args=(self.proc.stdout,), daemon=True).start()
        self._output_idle = False
        threading.Thread(target=self._read_output, args=(self.proc.stderr,), daemon=True).start()

    def _read_frames(self, stream: IO[bytes]) -> None:
        from grader.untrusted import wire

        reader = wire.FrameReader(max_bytes=self.limits.message_bytes)
        try:
            while chunk := stream.read1(_CHUNK):  # type: ignore[attr-defined]
                reader.feed(chunk)
                while (body := reader.pop()) is not None:
                    self.replies.put(body)
        except (OSError, ValueError, wire.WireError):
            pass
        self.replies.put(None)  # the worker's stdout ended: it exited or broke the protocol

    def _read_output(self, stream: IO[bytes]) -> None:
        fd = stream.fileno()
        try:
            while True:
                self._output_idle = True    # everything read so far is in the capture
                chunk = os.read(fd, _CHUNK)  # unbuffered: what is not read is still in the pipe
                self._output_idle = False
                if not chunk:
                    break
                self.capture.add(chunk)
        except (OSError, ValueError):
            pass
        self._output_idle = True

    def settle_output(self, budget_s: float = OUTPUT_DRAIN_S) -> None:
        """Wait (at most ``budget_s``) until what the worker printed before its reply is in the
        capture: the pipe holds nothing and the reading thread is waiting for more. Where pipes
        cannot be polled (Windows), a reply is taken as it comes."""
        if sys.platform == "win32" or self.proc.stderr is None:
            return
        import select  # POSIX pipes only

        fd = self.proc.stderr.fileno()
        deadline = time.monotonic() + budget_s
        while time.monotonic() < deadline:
            try:
                pending = bool(select.select([fd], [], [], 0)[0])
            except (OSError, ValueError):
                return
            if self._output_idle and not pending:
                return
            time.sleep(0.001)

    def send(self, frame: bytes) -> bool:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(frame)
            self.proc.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def kill(self) -> None:
        if self.proc.poll() is None:
            if sys.platform != "win32" and hasattr(os, "killpg"):
                try:
                    os.killpg(self.proc.pid, 9)
                except OSError:
                    self.proc.kill()
            else:
                self.proc.kill()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


class PortableRunner:
    """A :class:`~grader.sandbox.runner.Runner` that needs only ``subprocess`` and threads."""

    def __init__(self, run_dir: Path, *, preload: Sequence[str] = (), limits: Limits = Limits(),
                 posix_limits: bool | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.preload = tuple(preload)
        self.limits = limits
        self.posix_limits = (sys.platform != "win32") if posix_limits is None else posix_limits
        self._ids = itertools.count(1)
        self._worker: _Worker | None = None
        self._closed = False

    @property
    def note(self) -> str:
        """What the student is told about the limits (empty where memory limits apply too)."""
        return "" if self.posix_limits and sys.platform.startswith("linux") else LIMITS_NOTE

    def _start(self) -> _Worker:
        env = dict(os.environ, TQDM_DISABLE="1", TQDM_MININTERVAL="30", PYTHONDONTWRITEBYTECODE="1",
                   PYTHONIOENCODING="utf-8", MPLBACKEND="Agg")
        env[WORKER_FOLDERS_VARIABLE] = str(assignment.untrusted_folder())   # the assignment's probes
        argv = [sys.executable, "-s", "-B", str(WORKER), "stdio", str(self.limits.message_bytes),
                ",".join(self.preload)]
        worker = _Worker(argv, self.run_dir, env, self.limits, self.posix_limits)
        try:
            first = worker.replies.get(timeout=self.limits.startup_seconds)
        except queue.Empty:
            first = None
        if first is None:
            worker.kill()
            raise SandboxError(f"the worker did not start: {worker.capture.text()[-2000:]}")
        return worker

    def prestart(self) -> None:
        if self._worker is None and not self._closed:
            self._worker = self._start()

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        if self._closed:
            raise SandboxError("the runner is closed; make a new one")
        check_timeout(timeout, at_most=self.limits.cpu_seconds)
        request = next(self._ids)
        frame = request_frame(request, probe, args, self.limits.message_bytes)
        if self._worker is None or self._worker.proc.poll() is not None:
            self._discard()
            self._worker = self._start()
        worker = self._worker
        worker.capture = Capture(self.limits.output_bytes)
        started = time.monotonic()
        body: bytes | None = None
        status = "crashed"
        if worker.send(frame):
            try:
                body = worker.replies.get(timeout=timeout)
            except queue.Empty:
                status = "timeout"
        elapsed = time.monotonic() - started
        if body is None:
            self._discard()
            if status == "timeout":
                return ProbeResult(status="timeout", stderr=worker.capture.text(), elapsed=elapsed)
            code = worker.proc.poll()
            return ProbeResult(status="crashed", error=ProbeError("WorkerExited", f"the process exited (code {code})"),
                               stderr=worker.capture.text(), elapsed=elapsed)
        worker.settle_output()
        reply = read_reply_body(body, request)
        if reply.leaving or reply.status == "protocol_error":
            self._discard()
        return ProbeResult(status=reply.status, value=reply.value, error=reply.error,
                           stderr=worker.capture.text(), elapsed=elapsed)

    def _discard(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None

    def close(self) -> None:
        self._closed = True
        self._discard()
