"""The trusted side of the fork server (:mod:`grader.sandbox.zygote`): started once per grader
process, on first use, it forks workers that start without Python's start and torch's import.

Only where the worker is confined as the sandbox user (the grader runs as root): each worker is
then confined in the forked child by confine.py's own steps before any student code. Elsewhere,
when the fork server cannot start or cannot serve (its preload differs from the worker's, a memory
limit below what it has mapped, threads in it), or with ``A2GRADER_WORKER_START=cold``, workers
start cold, as a new ``python worker.py`` through the launcher.

A forked worker is not this process's child: :class:`ForkedProcess` stands in for its Popen.
The fork server keeps it unreaped until asked (``reap``), so its pid and process group cannot be
reused while the grader may still signal them.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader.sandbox.proctree import running

ZYGOTE_SCRIPT = Path(__file__).resolve().with_name("zygote.py")
START_VARIABLE = "A2GRADER_WORKER_START"
"""``cold`` starts every worker as a new process (no fork server); ``fork`` (default) forks them."""
READY_TIMEOUT_S = 60.0
REPLY_TIMEOUT_S = 10.0
PRELOAD = ("numpy", "torch")
"""What the fork server imports: what the workers of torch's checks preload (grader/run/workers.py)."""
FORKED_PROTOCOL_FDS = (3, 4)
"""Where a forked worker finds its request and reply pipes (see zygote.py)."""
MEMORY_MARGIN_BYTES = 512 * 2**20
"""A forked worker must have at least this much address space left under its RLIMIT_AS."""

_LOG = logging.getLogger(__name__)


class ForkServerError(RuntimeError):
    """The fork server cannot start or answer; workers start cold."""


def wanted() -> bool:
    return os.environ.get(START_VARIABLE, "fork") != "cold"


class ForkServer:
    """One fork server process and this side's end of its socket; calls are serialized."""

    def __init__(self, python: str, preload: tuple[str, ...], env: Mapping[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [python, "-s", "-B", str(ZYGOTE_SCRIPT), str(theirs.fileno()), ",".join(preload)],
                cwd="/", env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),), start_new_session=True)
        except OSError as exc:
            ours.close()
            raise ForkServerError(f"cannot start the fork server: {exc}") from exc
        finally:
            theirs.close()
        self.socket = ours
        self.lock = threading.Lock()
        self.preload = preload
        self.vm_size = 0
        self._ready: bool | None = None  # not yet known: it imports while the grader works on

    def ready(self) -> bool:
        """Wait (once) for the fork server to have imported its preload; False (logged) if it
        cannot serve, and it is then stopped."""
        with self.lock:
            if self._ready is None:
                try:
                    hello = self._receive(READY_TIMEOUT_S)
                    if hello.get("preload") != list(self.preload) or hello.get("tasks") != 1:
                        raise ForkServerError(f"the fork server cannot fork safely: {hello}")
                    self.vm_size = int(hello.get("vm_size", 0))
                    self._ready = True
                except (ForkServerError, ValueError) as exc:
                    _LOG.warning("workers start cold: %s", exc)
                    self._ready = False
                    self.close()
        return self._ready

    def _receive(self, seconds: float) -> dict[str, Any]:
        self.socket.settimeout(seconds)
        try:
            data = self.socket.recv(1 << 16)
        except OSError as exc:
            raise ForkServerError(f"the fork server did not answer: {exc}") from exc
        if not data:
            raise ForkServerError("the fork server ended")
        return json.loads(data)

    def spawn(self, plan: Mapping[str, Any], fds: tuple[int, int, int, int]) -> ForkedProcess:
        with self.lock:
            try:
                socket.send_fds(self.socket, [json.dumps({"op": "spawn", "plan": plan}).encode()], list(fds))
            except OSError as exc:
                raise ForkServerError(f"the fork server is gone: {exc}") from exc
            reply = self._receive(REPLY_TIMEOUT_S)
        if "pid" not in reply:
            raise ForkServerError(f"the fork server could not fork: {reply.get('error')}")
        return ForkedProcess(self, int(reply["pid"]))

    def reap(self, pid: int, seconds: float) -> int | None:
        with self.lock:
            self.socket.sendall(json.dumps({"op": "reap", "pid": pid, "seconds": seconds}).encode())
            status = self._receive(seconds + REPLY_TIMEOUT_S).get("status")
        return None if status is None else int(status)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.socket.close()
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)


class ForkedProcess:
    """A worker the fork server forked, with the part of Popen's interface the channel uses."""

    def __init__(self, server: ForkServer, pid: int) -> None:
        self.server = server
        self.pid = pid
        self.returncode: int | None = None

    def exited(self) -> bool:
        """Whether it ended (it stays a zombie, its pid its own, until reaped)."""
        return self.returncode is not None or not running(self.pid)

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            try:
                status = self.server.reap(self.pid, 5.0 if timeout is None else timeout)
            except (ForkServerError, OSError, ValueError):
                status = None
                if self.server.alive():
                    raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0) from None
            if status is None and self.server.alive():
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0)
            # Without the server the child died with it (PR_SET_PDEATHSIG): killed.
            self.returncode = -signal.SIGKILL if status is None else os.waitstatus_to_exitcode(status)
        return self.returncode


_SERVERS: dict[tuple[str, tuple[str, ...]], ForkServer | None] = {}
_SERVERS_LOCK = threading.Lock()


def server_for(python: str, preload: tuple[str, ...], env: Mapping[str, str]) -> ForkServer | None:
    """This process's fork server for ``preload``, started on first use (and again if it ended
    after serving), without waiting for it (see :meth:`ForkServer.ready`); None (workers start
    cold) when it cannot start or could not serve, which is logged once."""
    key = (python, preload)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if key in _SERVERS and server is None:
            return None  # it could not start: cold from now on
        if server is not None and server._ready is False:
            _SERVERS[key] = None
            return None
        if server is None or not server.alive():
            try:
                server = ForkServer(python, preload, env)
            except ForkServerError as exc:
                _LOG.warning("workers start cold: %s", exc)
                server = None
            _SERVERS[key] = server
        return server


def shutdown() -> None:
    """Stop every fork server of this process (at exit; their workers die with them)."""
    with _SERVERS_LOCK:
        for server in _SERVERS.values():
            if server is not None:
                server.close()
        _SERVERS.clear()


if sys.platform.startswith("linux"):
    import atexit

    atexit.register(shutdown)
