"""One process the grader talks to, and how one call to it ends: the process mechanics that the
worker (:mod:`grader.sandbox.worker_process`) and the writeup reader
(:mod:`grader.sandbox.reader_process`) share.

A :class:`Channel` is a started process in a session of its own and the trusted side's ends of
four pipes: requests (wire frames), replies (wire frames), stdout and stderr (captured, cut to a
limit). :func:`exchange` sends a request and waits, never past a deadline, for a whole reply, the
process's end or the deadline; :func:`conclude` turns how that ended into a result, stopping the
process (its whole tree) unless it is still usable. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from grader.sandbox.frames import Capture, Reply, read_reply_body
from grader.sandbox.proctree import EXIT_POLL_S, describe_exit, exited, kill_tree
from grader.sandbox.runner import ProbeError, SandboxError, Status
from grader.untrusted import wire

POLL_TICK_S = 0.05
"""Longest wait between checks that the process is still alive while waiting for a reply."""
EXIT_GRACE_S = 0.5
"""After the process closes the reply channel, how long it has to exit before it is a protocol
error rather than a crash."""
FINAL_DRAIN_S = 0.2
"""Longest time spent collecting output once a call has ended (a background thread may print
without end)."""
READ_CHUNK_BYTES = 1 << 20


@dataclass
class Channel:
    """A running process and the trusted side's ends of its four pipes."""

    proc: subprocess.Popen[bytes]
    request_fd: int
    reply_fd: int
    stdout_fd: int
    stderr_fd: int
    reader: wire.FrameReader
    stdout: Capture
    stderr: Capture
    pid: int = 0
    """The process's own pid (proc is the launcher when the worker runs in a PID namespace)."""
    release: weakref.finalize[[subprocess.Popen[bytes], tuple[int, ...]], Channel] = field(
        init=False, repr=False)

    def __post_init__(self) -> None:
        self.pid = self.pid or self.proc.pid
        # Kills the tree and closes the pipes once: when stopped, when its owner is dropped
        # without close(), or at interpreter exit, so no process outlives a crashed grader.
        self.release = weakref.finalize(self, _release, self.proc, self.fds())

    def fds(self) -> tuple[int, ...]:
        return (self.request_fd, self.reply_fd, self.stdout_fd, self.stderr_fd)


@dataclass(frozen=True)
class Waited:
    """How waiting for a reply ended: a reply body, or why there is none."""

    kind: Literal["reply", "timeout", "exited", "closed", "invalid"]
    body: bytes = b""
    detail: str = ""


@dataclass(frozen=True)
class Command:
    """How to start a process: its argv, folder, whole environment and, optionally, what runs
    in the child between fork and exec (only setrlimit calls)."""

    argv: list[str]
    cwd: str | os.PathLike[str]
    env: Mapping[str, str]
    preexec_fn: Callable[[], None] | None = None


def start(command: Callable[[int, int], Command], *, message_bytes: int, output_bytes: int,
          name: str = "worker", errors: tuple[type[Exception], ...] = ()) -> Channel:
    """Start the process ``command(request_fd, reply_fd)`` describes (it is told the numbers of
    its ends of the two protocol pipes) in a session of its own, with stdin closed.

    SandboxError if it cannot be started (an OSError, or one of ``errors`` from ``command``).
    """
    def launch(request_r: int, reply_w: int, stdout_w: int, stderr_w: int) -> Any:
        how = command(request_r, reply_w)
        return subprocess.Popen(how.argv, cwd=how.cwd, env=how.env, preexec_fn=how.preexec_fn,
                                stdin=subprocess.DEVNULL, stdout=stdout_w, stderr=stderr_w,
                                pass_fds=(request_r, reply_w), start_new_session=True)

    return _open(launch, (OSError, subprocess.SubprocessError) + errors, f"cannot start the {name}",
                 message_bytes=message_bytes, output_bytes=output_bytes)


def start_forked(server: Any, plan: Mapping[str, Any], *, message_bytes: int, output_bytes: int) -> Channel:
    """Like :func:`start`, but the fork server (:mod:`grader.sandbox.forkserver`) forks the worker
    ``plan`` describes, its protocol pipes at descriptors 3 and 4; SandboxError if it cannot."""
    return _open(lambda *fds: server.spawn(plan, fds), (OSError, RuntimeError),
                 "the fork server could not start a worker", message_bytes=message_bytes, output_bytes=output_bytes)


def _open(launch: Callable[[int, int, int, int], Any], errors: tuple[type[BaseException], ...], failed: str, *,
          message_bytes: int, output_bytes: int) -> Channel:
    """The four pipes of a channel around ``launch(request_r, reply_w, stdout_w, stderr_w)`` (the
    process it starts): the child's ends closed here whatever happens, ours made non-blocking."""
    request_r, request_w = os.pipe()
    reply_r, reply_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    ours = (request_w, reply_r, stdout_r, stderr_r)
    try:
        proc = launch(request_r, reply_w, stdout_w, stderr_w)
    except errors as exc:
        for fd in ours:
            os.close(fd)
        raise SandboxError(f"{failed}: {exc}") from exc
    finally:
        for fd in (request_r, reply_w, stdout_w, stderr_w):
            os.close(fd)
    for fd in ours:
        os.set_blocking(fd, False)
    startup_output = Capture(output_bytes)  # both streams, for the error
    return Channel(proc, *ours, wire.FrameReader(max_bytes=message_bytes),
                   stdout=startup_output, stderr=startup_output)


def stop(channel: Channel) -> None:
    """Kill the process tree, keep its last output, and close our pipe ends (once)."""
    if not channel.release.alive:
        return
    try:
        kill_tree(channel.proc)
        drain(channel.stdout_fd, channel.stdout.add, FINAL_DRAIN_S)
        drain(channel.stderr_fd, channel.stderr.add, FINAL_DRAIN_S)
    finally:
        channel.release()


def _release(proc: subprocess.Popen[bytes], fds: tuple[int, ...]) -> None:
    try:
        kill_tree(proc)
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def read_some(fd: int) -> bytes | None:
    """Read what is available: bytes, b"" at end of stream, None if nothing is there yet."""
    try:
        return os.read(fd, READ_CHUNK_BYTES)
    except BlockingIOError:
        return None


def _send_some(fd: int, pending: memoryview) -> tuple[memoryview, bool]:
    """Write what the pipe takes now; return what is left and whether the reader is there."""
    try:
        return pending[os.write(fd, pending):], True
    except BlockingIOError:
        return pending, True
    except BrokenPipeError:
        return pending[:0], False


def _receive(channel: Channel, fd: int) -> bool:
    """Move what ``fd`` holds to the reply reader or an output capture; False at its end."""
    data = read_some(fd)
    if data is None:
        return True
    if not data:
        return False
    if fd == channel.reply_fd:
        channel.reader.feed(data)
    else:
        (channel.stdout if fd == channel.stdout_fd else channel.stderr).add(data)
    return True


def drain(fd: int, sink: Callable[[bytes], None], budget_s: float) -> None:
    """Pass what ``fd`` holds to ``sink`` until it is empty, ends, or the budget is spent."""
    end = time.monotonic() + budget_s
    while time.monotonic() < end:
        try:
            data = read_some(fd)
        except OSError:
            return
        if not data:
            return
        sink(data)


def exchange(channel: Channel, outgoing: bytes, deadline: float) -> Waited:
    """Send ``outgoing`` and read until a whole reply frame, the deadline or the process's end,
    collecting its output meanwhile. Every wait is bounded by ``deadline``."""
    pending = memoryview(outgoing)
    poller = select.poll()
    for fd in (channel.reply_fd, channel.stdout_fd, channel.stderr_fd):
        poller.register(fd, select.POLLIN)
    if pending:
        poller.register(channel.request_fd, select.POLLOUT)
    channel_open = True
    try:
        while True:
            body = channel.reader.pop()
            if body is not None:
                return Waited("reply", body)
            if not channel_open:
                return _after_channel_closed(channel)
            if exited(channel.proc):
                return _after_exit(channel)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Waited("timeout")
            for fd, _event in poller.poll(min(remaining, POLL_TICK_S) * 1000):
                if fd == channel.request_fd:
                    pending, channel_open = _send_some(fd, pending)
                    if not pending:
                        poller.unregister(fd)
                elif not _receive(channel, fd):
                    poller.unregister(fd)
                    channel_open = channel_open and fd != channel.reply_fd
    except wire.WireError as exc:
        return Waited("invalid", detail=f"invalid reply: {exc}")


def _after_exit(channel: Channel) -> Waited:
    """The process is gone: take a reply it completed just before, else it crashed."""
    drain(channel.reply_fd, channel.reader.feed, FINAL_DRAIN_S)
    body = channel.reader.pop()
    return Waited("reply", body) if body is not None else Waited("exited")


def _after_channel_closed(channel: Channel) -> Waited:
    """The process closed a protocol pipe: a crash if it exits now, else tampering."""
    deadline = time.monotonic() + EXIT_GRACE_S
    while not exited(channel.proc):
        if time.monotonic() >= deadline:
            return Waited("closed", detail="the worker closed its protocol channel "
                          "without replying (did the code close file descriptors it did "
                          "not open?)")
        time.sleep(EXIT_POLL_S)
    return Waited("exited")


def conclude(channel: Channel, waited: Waited, request: int,
             timeout: float) -> tuple[Status, Any, ProbeError | None, bool]:
    """Turn how the wait ended into (status, value, error, usable); the process is stopped unless
    it is still usable (it replied validly and did not say it is leaving)."""
    if waited.kind == "reply":
        drain(channel.stdout_fd, channel.stdout.add, FINAL_DRAIN_S)
        drain(channel.stderr_fd, channel.stderr.add, FINAL_DRAIN_S)
        reply = read_reply_body(waited.body, request)
        if reply.status != "protocol_error" and channel.reader.buffered:
            reply = Reply("protocol_error", error=ProbeError(
                "ProtocolError", "unexpected bytes after the reply: something wrote to the "
                "worker's protocol channel"))
        usable = not (reply.status == "protocol_error" or reply.leaving)
        if not usable:
            stop(channel)
        return reply.status, reply.value, reply.error, usable
    stop(channel)  # reaps the process: its returncode is now known
    returncode = channel.proc.returncode
    if waited.kind == "timeout":
        return "timeout", None, ProbeError("Timeout", (
            f"no reply within {timeout:g} s, so the call was stopped: an endless loop, "
            "or work too slow for the time limit?")), False
    if waited.kind == "exited":
        return "crashed", None, ProbeError("WorkerCrashed", describe_exit(
            returncode if returncode is not None else -signal.SIGKILL)), False
    return "protocol_error", None, ProbeError("ProtocolError", waited.detail), False
