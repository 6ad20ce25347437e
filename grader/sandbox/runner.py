"""The interface checks depend on: a :class:`Runner` runs a named probe and returns a
:class:`ProbeResult`; :class:`Limits` bounds one worker. Nothing here starts a process.

A probe (see ``grader/untrusted/probes.py``) takes wire-encodable arguments. Every runner
(:class:`~grader.sandbox.worker_process.Sandbox`, :class:`~grader.sandbox.inprocess.InProcessRunner`)
returns, whatever student code does, a result whose status says how the call ended; it raises
only for the grader's own bugs (:class:`SandboxError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from grader.untrusted import wire

Status = Literal["ok", "error", "timeout", "crashed", "protocol_error"]

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

DEFAULT_CALL_TIMEOUT_S = 10.0
DEFAULT_OUTPUT_BYTES = 64 * KIB


class SandboxError(RuntimeError):
    """The grader misused the sandbox, or the worker could not be started (not student code)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one worker process and of what a call may send back.

    memory_bytes      address space (RLIMIT_AS) of the worker and each child. 4 GiB: importing
                      torch needs under 1 GiB and training the small parser far less than 4.
    cpu_seconds       CPU time (RLIMIT_CPU) of one worker over its life; a worker is replaced
                      before a call whose timeout could exceed what it has left. Every call's
                      timeout must be at most this.
    file_size_bytes   largest file the worker may write (RLIMIT_FSIZE); a saved parser
                      state_dict is a few MB.
    open_files        open file descriptors (RLIMIT_NOFILE); torch and the data files need tens.
    processes         processes and threads the worker may add to its user's count
                      (RLIMIT_NPROC); not set as root, where the kernel ignores it.
    output_bytes      captured stdout and stderr kept per call and stream; the rest is read
                      and dropped, with a "[... truncated N bytes]" note.
    message_bytes     largest reply (and request) frame; a larger reply is a protocol error.
    startup_seconds   how long a new worker has to report ready.
    folder_bytes      size of the worker's private folder (its copy of the submission and all
                      it writes) where it is a tmpfs of its own (mode ``namespaces``).
    folder_inodes     files and folders it may hold there.
    """

    memory_bytes: int = 4 * GIB
    cpu_seconds: int = 600
    file_size_bytes: int = 256 * MIB
    open_files: int = 256
    processes: int = 64
    output_bytes: int = DEFAULT_OUTPUT_BYTES
    message_bytes: int = wire.DEFAULT_MAX_MESSAGE_BYTES
    startup_seconds: float = 30.0
    folder_bytes: int = 512 * MIB
    folder_inodes: int = 20_000

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not value > 0:
                raise ValueError(f"Limits.{name} must be positive; got {value!r}")


@dataclass(frozen=True)
class ProbeError:
    """Why a call did not return a value: an exception type, its message and the student's
    traceback (frames in their files only, then the exception line)."""

    type: str
    message: str
    traceback: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProbeResult:
    """The outcome of one probe call.

    status is ``ok`` (value holds the result), ``error`` (the probe raised: see error),
    ``timeout`` (no reply in time; the worker was killed), ``crashed`` (the worker died) or
    ``protocol_error`` (the worker sent something invalid; it was killed). stdout and stderr
    hold what the call printed, cut to the output limit; elapsed is wall-clock seconds.
    """

    status: Status
    value: Any = None
    error: ProbeError | None = None
    stdout: str = ""
    stderr: str = ""
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the probe returned a value."""
        return self.status == "ok"


@runtime_checkable
class Runner(Protocol):
    """Runs probes: the one seam between the checks and the way student code is executed."""

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        """Run ``probe`` on ``args``; never raise for anything student code did."""
        ...

    def close(self) -> None:
        """Release every process and file the runner holds."""
        ...

