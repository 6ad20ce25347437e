"""The :class:`Sandbox`: runs probes in a worker process, next to student code, under limits.

Whatever student code does (hang, crash, ``sys.exit``, ``os._exit``, exhaust memory, fork, print
without end) costs only the call it happens in: the result says ``timeout``, ``crashed``,
``error`` or ``protocol_error``, the worker's whole process tree is killed, and the next call
starts a fresh worker. It raises only for the grader's own bugs (:class:`SandboxError`,
:class:`~grader.untrusted.wire.WireError` for arguments that cannot be sent, ``ValueError`` for
bad options).

The worker is ``grader/untrusted/worker.py``, copied with the probes into a private folder
(:mod:`grader.sandbox.folders`), started with the limits and environment of
:mod:`grader.sandbox.limits`; the calls go through :mod:`grader.sandbox.channel`. When the grader
runs as root, the worker is confined as :mod:`grader.sandbox.isolation` decides (once per
process): it runs as the unprivileged sandbox user, in a private copy of the submission folder
(``Sandbox.run_dir``, the only place it can write), started by :mod:`grader.sandbox.confine`, and
where the kernel allows in its own mount, network and PID namespaces that hide the grader's files
and end every process it started when it ends. ``RLIMIT_NPROC`` then bounds its processes (it is
counted per user; as root, which is exempt, it is not set and a fork bomb is bounded only by the
call's timeout and the kill of the process tree).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import sys
import time
import weakref
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from grader.sandbox import channel as channel_mod
from grader.sandbox import forkserver, uids
from grader.sandbox import isolation as isolation_mod
from grader.sandbox.channel import Channel, Command
from grader.sandbox.folders import (
    MATPLOTLIB_FOLDER,
    RUN_FOLDER,
    SCRIPTS_FOLDER,
    WORKER_SCRIPT,
    make_private_folder,
    remove_private_folder,
    submission_folder,
)
from grader.sandbox.frames import Capture, check_timeout, request_frame
from grader.sandbox.isolation import Isolation
from grader.sandbox.limits import limit_setter, resource_plan, worker_environment
from grader.sandbox.proctree import cpu_seconds, exited, grandchild
from grader.sandbox.runner import DEFAULT_CALL_TIMEOUT_S, Limits, ProbeResult, SandboxError
from grader.untrusted import wire

_LOG = logging.getLogger(__name__)


class Sandbox:
    """Runs probes in a worker process under limits; see the module docstring.

    Use as a context manager, or call :meth:`close`. Not thread-safe: one call at a time.

        with Sandbox(folder) as box:
            result = box.call("call", {"module": "word2vec", "function": "sigmoid",
                                       "args": [x]}, timeout=5)

    ``isolation`` says how the worker is confined (default: :func:`grader.sandbox.isolation.detect`,
    the strongest this machine allows). When it runs as the sandbox user, the worker runs in a
    private copy of ``submission`` (:attr:`run_dir`, made on first use, never following
    links) and ``submission`` itself is never changed; otherwise it runs in ``submission``.
    """

    def __init__(self, submission: str | os.PathLike[str], *, limits: Limits = Limits(),
                 python: str = sys.executable, isolation: Isolation | None = None,
                 preload: tuple[str, ...] = (), fork: bool | None = None) -> None:
        self.submission = submission_folder(submission)
        self.limits = limits
        self.python = python
        if not all(name.replace(".", "").replace("_", "").isalnum() for name in preload):
            raise ValueError(f"preload names modules to import, e.g. ('torch',); got {preload!r}")
        self.preload = tuple(preload)
        self.fork = forkserver.wanted() if fork is None else fork
        """Whether workers are forked by the fork server where it can serve (default: unless
        $A2GRADER_WORKER_START is ``cold``); False starts each one cold."""
        if isolation is not None and isolation.switches_user and os.geteuid() != 0:
            raise ValueError(f"isolation mode {isolation.mode!r} runs the worker as another "
                             "user, which needs root; use grader.sandbox.isolation.detect()")
        self._isolation = isolation
        self._lease: uids.Lease | None = None
        self._worker: Channel | None = None
        self._starting: Channel | None = None  # started by prestart(), not yet known to be ready
        self._private_dir: Path | None = None
        self._remove_private_dir: weakref.finalize[[str, Isolation, bool], Sandbox] | None = None
        self._closed = False
        self._request_ids = itertools.count(1)
        self.deadline: float | None = None
        """When set (monotonic seconds), a worker's start waits no longer than this either: the
        grading's budget (:mod:`grader.run.budget`) sets it before each call."""

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def worker_pid(self) -> int | None:
        """The pid of the current worker process, if one is running."""
        return None if self._worker is None else self._worker.pid

    @property
    def isolation(self) -> Isolation:
        """How the worker is confined (decided on first use)."""
        if self._isolation is None:
            detected = isolation_mod.detect()
            if detected.switches_user:
                # A user of its own for this sandbox's workers (see grader.sandbox.uids): process
                # limits, signals and folders are then per grading, whatever runs beside it.
                lease = uids.lease()
                weakref.finalize(self, lease.release)
                self._lease = lease
                detected = replace(detected, uid=lease.uid, gid=lease.gid)
            self._isolation = detected
        return self._isolation

    @property
    def run_dir(self) -> Path:
        """The folder the worker runs in and may write: a private copy of the submission when
        it runs as the sandbox user, else the submission folder itself."""
        private = self._private_folder()
        return private / RUN_FOLDER if self.isolation.switches_user else self.submission

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        """Run ``probe`` in the worker on ``args``, waiting at most ``timeout`` seconds.

        Starting a worker (first call, or after one was killed) is not counted in the timeout.
        """
        if self._closed:
            raise SandboxError("the sandbox is closed; make a new Sandbox")
        check_timeout(timeout, at_most=self.limits.cpu_seconds)
        request = next(self._request_ids)
        frame = request_frame(request, probe, args, self.limits.message_bytes)
        worker = self._ready_worker(timeout)
        worker.stdout, worker.stderr = (Capture(self.limits.output_bytes),
                                        Capture(self.limits.output_bytes))
        started = time.monotonic()
        waited = channel_mod.exchange(worker, frame, started + timeout)
        elapsed = time.monotonic() - started
        status, value, error, usable = channel_mod.conclude(worker, waited, request, timeout)
        if not usable:
            self._discard_worker()
        return ProbeResult(status=status, value=value, error=error, stdout=worker.stdout.text(),
                           stderr=worker.stderr.text(), elapsed=elapsed)

    def renew(self) -> None:
        """Stop the current worker, so that its memory goes back to the system; the next call
        starts a fresh one in the same private folder (what the old one saved there stays)."""
        self._discard_worker()

    def close(self) -> None:
        """Kill the worker and everything it started, and remove its private folder."""
        self._closed = True
        self._discard_worker()
        if self._remove_private_dir is not None:
            self._remove_private_dir()
            self._private_dir = self._remove_private_dir = None
        if self._lease is not None:  # after the folder is gone: the user is free for another worker
            self._lease.release()

    # -- the worker's life ---------------------------------------------------------------------

    def _ready_worker(self, timeout: float) -> Channel:
        """The running worker, replaced first if it died or lacks CPU time for ``timeout``."""
        worker = self._worker
        if worker is not None and (exited(worker.proc) or
                                   cpu_seconds(worker.pid) + timeout
                                   > self.limits.cpu_seconds):
            self._discard_worker()
        if self._worker is None:
            starting, self._starting = self._starting, None
            self._worker = self._become_ready(starting) if starting is not None else self._start()
        return self._worker

    def prestart(self) -> None:
        """Start the worker now without waiting for it, so that it gets ready (and imports
        ``preload``) while the caller does other work; the first call waits for it."""
        if self._closed:
            raise SandboxError("the sandbox is closed; make a new Sandbox")
        if self._worker is None and self._starting is None:
            if self._forks():
                # The fork server imports meanwhile; the first call forks the worker from it.
                forkserver.server_for(self.python, self.preload, worker_environment(Path("/")))
                return
            self._starting = self._spawn()

    def _discard_worker(self) -> None:
        worker, self._worker = self._worker, None
        starting, self._starting = self._starting, None
        for stopping in (worker, starting):
            if stopping is not None:
                channel_mod.stop(stopping)

    def _private_folder(self) -> Path:
        """The sandbox's private folder (see :func:`grader.sandbox.folders.make_private_folder`),
        made on first use."""
        if self._private_dir is None:
            if self._closed:
                raise SandboxError("the sandbox is closed; make a new Sandbox")
            folder, mounted = make_private_folder(self.submission, self.isolation, self.python, self.limits)
            self._private_dir = folder
            # Removed by close(), or when the Sandbox is dropped, or at interpreter exit.
            self._remove_private_dir = weakref.finalize(self, remove_private_folder, str(folder),
                                                        self.isolation, mounted)
        return self._private_dir

    def _start(self) -> Channel:
        """Start a worker and wait for it to say it is ready; SandboxError if it does not."""
        return self._become_ready(self._spawn())

    def _become_ready(self, worker: Channel) -> Channel:
        """Wait for a spawned worker's ready message (SandboxError without one)."""
        self._await_ready(worker)
        if self.isolation.mode == "namespaces":
            worker.pid = grandchild(worker.proc.pid) or worker.proc.pid
        return worker

    def _spawn(self) -> Channel:
        """Start a worker process (forked by the fork server where it serves, else cold); it
        reports ready on its own time."""
        server = self._fork_server()
        if server is not None:
            try:
                plan = self._plan(*forkserver.FORKED_PROTOCOL_FDS)
                return channel_mod.start_forked(server, plan, message_bytes=self.limits.message_bytes,
                                                output_bytes=self.limits.output_bytes)
            except SandboxError as exc:
                if server.alive():
                    raise
                _LOG.warning("the fork server ended; this worker starts cold: %s", exc)
        return channel_mod.start(self._command, message_bytes=self.limits.message_bytes,
                                 output_bytes=self.limits.output_bytes,
                                 errors=(isolation_mod.IsolationError,))

    def _forks(self) -> bool:
        """Whether this sandbox's workers come from the fork server: asked for, run as the sandbox
        user (the confinement the child applies), and preloading what the server preloaded."""
        return self.fork and self.isolation.switches_user and self.preload == forkserver.PRELOAD

    def _fork_server(self) -> forkserver.ForkServer | None:
        """The fork server to fork this worker from, or None for a cold start (see
        :mod:`grader.sandbox.forkserver`)."""
        if not self._forks():
            return None
        server = forkserver.server_for(self.python, self.preload, worker_environment(Path("/")))
        if server is None or not server.ready():
            return None
        if server.vm_size + forkserver.MEMORY_MARGIN_BYTES > self.limits.memory_bytes:
            return None
        return server

    def _command(self, request_fd: int, reply_fd: int) -> Command:
        """How to start the worker: directly under limits, or through the confining launcher."""
        if not self.isolation.switches_user:
            argv, env = self._argv(request_fd, reply_fd), self._environment()
            return Command(argv, self.run_dir, env, limit_setter(resource_plan(self.limits)))
        return Command(isolation_mod.launcher_command(self._plan(request_fd, reply_fd)), "/", {})

    def _argv(self, request_fd: int, reply_fd: int) -> list[str]:
        script = self._private_folder() / SCRIPTS_FOLDER / WORKER_SCRIPT
        # -s: no user site-packages; -B: no .pyc files. Not -I: it implies -E, which would
        # ignore the PYTHONHASHSEED set in the (otherwise empty) environment.
        return [self.python, "-s", "-B", str(script), str(request_fd), str(reply_fd),
                str(self.limits.message_bytes), ",".join(self.preload)]

    def _environment(self) -> dict[str, str]:
        return worker_environment(self.run_dir, self._private_folder() / MATPLOTLIB_FOLDER)

    def _plan(self, request_fd: int, reply_fd: int) -> dict[str, Any]:
        """confine.py's plan for a worker run as the sandbox user."""
        if not os.access(self.python, os.X_OK):
            raise OSError(f"{self.python} is not an executable file")
        isolation = self.isolation
        return isolation_mod.confine_plan(
            isolation, private_dir=str(self._private_folder()), cwd=str(self.run_dir),
            argv=self._argv(request_fd, reply_fd), env=self._environment(),
            rlimits=resource_plan(self.limits, uid=isolation.uid))

    def _await_ready(self, worker: Channel) -> None:
        """Wait for the worker's ready message; stop it and raise SandboxError without one."""
        end = time.monotonic() + self.limits.startup_seconds
        if self.deadline is not None:
            end = min(end, self.deadline)
        waited = channel_mod.exchange(worker, b"", end)
        if waited.kind == "reply":
            with contextlib.suppress(wire.WireError):
                if wire.decode_message(waited.body) == {"ready": True}:
                    return
        channel_mod.stop(worker)
        raise SandboxError(f"the worker did not start ({waited.kind} {waited.detail}); its "
                           f"output: {worker.stderr.text()[-2000:]!r}")
