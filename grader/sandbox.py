"""The process boundary between the trusted grader and student code.

A :class:`Runner` runs a named probe (see ``grader/untrusted/probes.py``) on wire-encodable
arguments and returns a :class:`ProbeResult`. Two runners share that interface:

* :class:`Sandbox` runs probes in a worker process under resource limits. Whatever student code
  does (hang, crash, ``sys.exit``, ``os._exit``, exhaust memory, fork, print without end) costs
  only the call it happens in: the result says ``timeout``, ``crashed``, ``error`` or
  ``protocol_error``, the worker's whole process tree is killed, and the next call starts a
  fresh worker. It raises only for the grader's own bugs (:class:`SandboxError`,
  :class:`~grader.untrusted.wire.WireError` for arguments that cannot be sent, ``ValueError``
  for bad options).
* :class:`InProcessRunner` runs the same probes in this process, through the same encoding, for
  code known to be safe (the reference, unit tests, the benchmark floor).

The trusted process never imports student code and never unpickles or evals what the worker
sends: replies are decoded by :mod:`grader.untrusted.wire` (JSON and ``.npy`` without pickle)
and checked for shape before use. The caller prepares the submission folder, a private copy.

Limits (see :class:`Limits`) are set in the worker with ``setrlimit`` before it starts.

When the grader runs as root, the worker is confined as :mod:`grader.isolation` decides (once per
process): it runs as the unprivileged sandbox user, in a private copy of the submission folder
(``Sandbox.run_dir``, the only place it can write), started by :mod:`grader.confine`, and where
the kernel allows in its own mount, network and PID namespaces that hide the grader's files and
end every process it started when it ends. ``RLIMIT_NPROC`` then bounds its processes (it is
counted per user; as root, which is exempt, it is not set and a fork bomb is bounded only by the
call's timeout and the kill of the process tree).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import itertools
import math
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from grader import isolation as isolation_mod
from grader.isolation import Isolation
from grader.untrusted import wire

UNTRUSTED_DIR = Path(__file__).resolve().parent / "untrusted"
WORKER_SCRIPT = "worker.py"
"""The worker's main program; it and every other ``*.py`` of ``grader/untrusted/`` (wire.py,
probes.py and the checks' probe modules) are copied into the worker's private folder: the worker
imports nothing else of ours."""

Status = Literal["ok", "error", "timeout", "crashed", "protocol_error"]

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

DEFAULT_CALL_TIMEOUT_S = 10.0
DEFAULT_OUTPUT_BYTES = 64 * KIB
POLL_TICK_S = 0.05
"""Longest wait between checks that the worker is still alive while waiting for a reply."""
EXIT_GRACE_S = 0.5
"""After the worker closes the reply channel, how long it has to exit before it is a protocol
error rather than a crash."""
FINAL_DRAIN_S = 0.2
"""Longest time spent collecting output once a call has ended (a background thread may print
without end)."""
EXIT_POLL_S = 0.01
KILL_WAIT_S = 5.0
CPU_HARD_GRACE_S = 5
"""Seconds between the CPU soft limit (SIGXCPU) and the hard limit (SIGKILL)."""
FREEZE_ROUNDS = 8
"""Rescans of /proc for descendants to stop before the kill (each catches late forks)."""

MAX_ERROR_TYPE_CHARS = 200
MAX_ERROR_MESSAGE_CHARS = 4000
MAX_TRACEBACK_LINES = 60
MAX_TRACEBACK_LINE_CHARS = 500
READ_CHUNK_BYTES = 1 << 20

LEAVING_KEY = "leaving"
"""Reply key by which the worker says it exits after this reply (the call left threads, child
processes or open files behind); the next call then starts a fresh worker."""
SCRIPTS_FOLDER = "worker"
RUN_FOLDER = "run"
PUBLIC_DIR_MODE = 0o755
PUBLIC_FILE_MODE = 0o644
PRIVATE_DIR_MODE = 0o700

WORKER_PATH = "/usr/local/bin:/usr/bin:/bin"
WORKER_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                           "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


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
    """

    memory_bytes: int = 4 * GIB
    cpu_seconds: int = 600
    file_size_bytes: int = 256 * MIB
    open_files: int = 256
    processes: int = 64
    output_bytes: int = DEFAULT_OUTPUT_BYTES
    message_bytes: int = wire.DEFAULT_MAX_MESSAGE_BYTES
    startup_seconds: float = 30.0

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


# -- pieces shared by both runners -------------------------------------------------------------


class _BadReply(Exception):
    """A decoded reply does not have the shape of the protocol."""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit} more]"


def _check_timeout(timeout: float, *, at_most: float = math.inf) -> None:
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
    if timeout > at_most:
        raise ValueError(f"timeout {timeout} s exceeds the worker's CPU limit of {at_most} s; "
                         "raise Limits.cpu_seconds or lower the timeout")


def _request_frame(request: int, probe: str, args: Mapping[str, Any] | None,
                   max_bytes: int) -> bytes:
    if not isinstance(probe, str):
        raise TypeError(f"probe must be a probe name (str); got {probe!r}")
    return wire.encode_message({"id": request, "probe": probe, "args": dict(args or {})},
                               max_bytes=max_bytes)


def _parse_error(error: Any) -> ProbeError:
    if not isinstance(error, dict):
        raise _BadReply("an error reply needs an 'error' dict")
    kind, message, lines = error.get("type"), error.get("message"), error.get("traceback")
    if not (isinstance(kind, str) and isinstance(message, str) and isinstance(lines, list)
            and all(isinstance(line, str) for line in lines)):
        raise _BadReply("an error is {'type': str, 'message': str, 'traceback': [str]}")
    return ProbeError(type=_cut(kind, MAX_ERROR_TYPE_CHARS),
                      message=_cut(message, MAX_ERROR_MESSAGE_CHARS),
                      traceback=tuple(_cut(line, MAX_TRACEBACK_LINE_CHARS)
                                      for line in lines[-MAX_TRACEBACK_LINES:]))


@dataclass(frozen=True)
class _Reply:
    """A checked reply: the call's result, and whether the worker is leaving after it."""

    status: Status
    value: Any = None
    error: ProbeError | None = None
    leaving: bool = False


def _parse_reply(reply: Any, request: int) -> _Reply:
    """Check a decoded reply to request number ``request``; raise _BadReply for any other
    shape. A reply may say ``"leaving": [reasons]``: the worker exits after it."""
    if not isinstance(reply, dict) or type(reply.get("ok")) is not bool:
        raise _BadReply("a reply is a dict with a bool 'ok'")
    if type(reply.get("id")) is not int or reply["id"] != request:
        raise _BadReply(f"the reply answers request {reply.get('id')!r:.20}, not {request}")
    leaving = reply.get(LEAVING_KEY, [])
    if not (isinstance(leaving, list) and all(isinstance(item, str) for item in leaving)):
        raise _BadReply(f"'{LEAVING_KEY}' is a list of reasons (str)")
    if reply["ok"]:
        if set(reply) - {LEAVING_KEY} != {"id", "ok", "result"}:
            raise _BadReply("a success reply is {'id': int, 'ok': true, 'result': value}")
        return _Reply("ok", reply["result"], leaving=bool(leaving))
    return _Reply("error", error=_parse_error(reply.get("error")), leaving=bool(leaving))


def _read_reply_body(body: bytes, request: int) -> _Reply:
    """Decode and check a reply body; a violation is a protocol_error result."""
    try:
        return _parse_reply(wire.decode_message(body), request)
    except (wire.WireError, _BadReply) as exc:
        return _Reply("protocol_error",
                      error=ProbeError("ProtocolError", f"invalid reply: {exc}"))


class _Capture:
    """The first ``limit`` bytes of a stream, and how many more were dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.head = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.limit - len(self.head)
        self.head += data[:max(room, 0)]
        self.dropped += max(len(data) - max(room, 0), 0)

    def text(self) -> str:
        text = self.head.decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n[... truncated {self.dropped} bytes]"
        return text


def _submission_folder(submission: str | os.PathLike[str]) -> Path:
    folder = Path(submission).resolve()
    if not folder.is_dir():
        raise ValueError(f"the submission must be an existing folder; got {str(submission)!r}")
    return folder


# -- processes ---------------------------------------------------------------------------------


def _process_table() -> dict[int, int]:
    """Map pid -> parent pid of every process in /proc (empty where there is no /proc)."""
    parents: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue  # it exited meanwhile
            parents[int(entry.name)] = int(fields[1])
    return parents


def _descendants(root: int) -> set[int]:
    parents = _process_table()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        children = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= children
        frontier = children
    return found


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker, its process group and every descendant, even ones that left it.

    Everything is stopped first so that nothing forks during the kill; the worker is a child
    subreaper, so double-forked orphans are still its descendants while it lives.
    """
    _signal_group(proc.pid, signal.SIGSTOP)
    stopped: set[int] = set()
    # Walk the tree only while the worker is unreaped: until then its pid cannot be reused.
    # (Once it has exited, its orphans belong to init and only the group kill reaches them.)
    for _ in range(FREEZE_ROUNDS if proc.returncode is None else 0):
        fresh = _descendants(proc.pid) - stopped
        if not fresh:
            break
        for pid in fresh:
            _signal(pid, signal.SIGSTOP)
        stopped |= fresh
    for pid in stopped:
        _signal(pid, signal.SIGKILL)
    _signal_group(proc.pid, signal.SIGKILL)
    proc.kill()
    try:
        proc.wait(timeout=KILL_WAIT_S)
    except subprocess.TimeoutExpired:
        raise SandboxError(f"worker {proc.pid} did not die within {KILL_WAIT_S} s of SIGKILL"
                           ) from None
    # The rest die asynchronously (a PID namespace is torn down after its init): wait for them,
    # so that when a call or close() returns, nothing the worker started still runs.
    deadline = time.monotonic() + KILL_WAIT_S
    while any(_running(pid) for pid in stopped) and time.monotonic() < deadline:
        time.sleep(EXIT_POLL_S)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the worker has ended, without reaping it: until it is reaped its pid, and so its
    process group id, cannot be reused, so killing the group later cannot hit a stranger."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a live process has used, or 0.0 if unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _tasks_of_user(uid: int) -> int:
    """Processes and threads the user already has: the count RLIMIT_NPROC is compared with."""
    total = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/status", encoding="utf-8") as status:
                    fields = dict(line.split(":", 1) for line in status if ":" in line)
            except OSError:
                continue
            if int(fields.get("Uid", "-1 ").split()[0]) == uid:
                total += int(fields.get("Threads", "1").strip())
    return total


def describe_exit(returncode: int) -> str:
    """Say, for a student, why the worker process ended."""
    if returncode >= 0:
        return (f"the worker process exited with code {returncode} during the call: "
                "os._exit() or a fatal error in your code ended it")
    signum = -returncode
    name = signal.Signals(signum).name if signum in signal.valid_signals() else str(signum)
    reasons = {
        "SIGKILL": "killed: out of memory, or over the CPU-time limit",
        "SIGXCPU": "over the CPU-time limit",
        "SIGSEGV": "a segmentation fault (e.g. unbounded recursion in C code, or ctypes)",
        "SIGABRT": "aborted by a fatal error (often an allocation that failed)",
        "SIGXFSZ": "over the file-size limit",
    }
    return f"the worker process died from {name}: {reasons.get(name, 'a fatal signal')}"


def _resource_plan(limits: Limits, *, uid: int | None = None) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) for a worker running as ``uid`` (default: this process's user),
    never above this process's own hard limits."""
    plan = [
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + CPU_HARD_GRACE_S),
        (resource.RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if (os.geteuid() if uid is None else uid) != 0:  # root is exempt; see the module docstring
        # The limit counts every task of the (real) user, so it is set above what the user
        # already runs (other graders' workers included).
        tasks = _tasks_of_user(os.getuid() if uid is None else uid) + limits.processes
        plan.append((resource.RLIMIT_NPROC, tasks, tasks))
    clamped = []
    for kind, soft, hard in plan:
        current_hard = resource.getrlimit(kind)[1]
        if current_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, current_hard), min(hard, current_hard)
        clamped.append((kind, soft, hard))
    return clamped


def _limit_setter(plan: list[tuple[int, int, int]]) -> Callable[[], None]:
    """The preexec_fn: runs in the child between fork and exec, so it only calls setrlimit."""
    def apply() -> None:
        for kind, soft, hard in plan:
            resource.setrlimit(kind, (soft, hard))
    return apply


def worker_environment(submission: Path, matplotlib_dir: Path | None = None) -> dict[str, str]:
    """The worker's whole environment: nothing of the grader's leaks into it.

    Progress bars (every real run.py wraps training in tqdm) are switched off, or where code
    forces one on, redrawn at most every TQDM_MININTERVAL seconds, so they neither flood the
    captured output nor slow training. ``matplotlib_dir`` is matplotlib's config and font-cache
    folder (see :func:`matplotlib_folder`), kept across the workers of one sandbox.
    """
    env = {
        "PATH": WORKER_PATH,
        "HOME": str(submission),
        "TMPDIR": str(submission),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONUTF8": "1",
        "MPLBACKEND": "Agg",
        "TQDM_DISABLE": "1",
        "TQDM_MININTERVAL": "30",
    }
    if matplotlib_dir is not None:
        env["MPLCONFIGDIR"] = str(matplotlib_dir)
    env.update(dict.fromkeys(WORKER_THREAD_VARIABLES, "1"))
    return env


MATPLOTLIB_FOLDER = "matplotlib"
MATPLOTLIB_BUILD_TIMEOUT_S = 120.0


@functools.cache
def prepared_matplotlib_cache(python: str) -> Path | None:
    """A matplotlib config folder whose font cache is already built, made once per machine
    (a few seconds; a fresh worker importing matplotlib would otherwise rebuild it), or None
    if matplotlib cannot build one. Only the grader's own code runs to make it."""
    folder = Path(tempfile.gettempdir()) / f"a2grader-matplotlib-{os.getuid()}"
    if any(folder.glob("fontlist-*.json")):
        return folder
    building = Path(tempfile.mkdtemp(prefix="a2grader-matplotlib-"))
    try:
        subprocess.run([python, "-s", "-c", "import matplotlib.font_manager"], cwd=building,
                       env={"MPLCONFIGDIR": str(building), "MPLBACKEND": "Agg", "PATH": WORKER_PATH},
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=MATPLOTLIB_BUILD_TIMEOUT_S,
                       check=True)
        if not any(building.glob("fontlist-*.json")):
            return None
        with contextlib.suppress(OSError):  # another grader may have made it meanwhile
            building.rename(folder)
        return folder if any(folder.glob("fontlist-*.json")) else None
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        _remove_tree(str(building))


def _uses_matplotlib(folder: Path) -> bool:
    """Whether a Python file of the submission mentions matplotlib (read as bytes, not run)."""
    for path in folder.glob("*.py"):
        with contextlib.suppress(OSError):
            if path.is_file() and not path.is_symlink() and b"matplotlib" in path.read_bytes():
                return True
    return False


# -- the sandbox -------------------------------------------------------------------------------


@dataclass
class _Worker:
    """A running worker and the trusted side's ends of its four pipes."""

    proc: subprocess.Popen[bytes]
    request_fd: int
    reply_fd: int
    stdout_fd: int
    stderr_fd: int
    reader: wire.FrameReader
    stdout: _Capture
    stderr: _Capture
    pid: int = 0
    """The worker's own pid (proc is the launcher when the worker runs in a PID namespace)."""
    release: weakref.finalize[[subprocess.Popen[bytes], tuple[int, ...]], _Worker] = field(
        init=False, repr=False)

    def __post_init__(self) -> None:
        self.pid = self.pid or self.proc.pid
        # Kills the tree and closes the pipes once: when stopped, when the Sandbox is dropped
        # without close(), or at interpreter exit, so no worker outlives a crashed grader.
        self.release = weakref.finalize(self, _release, self.proc, self.fds())

    def fds(self) -> tuple[int, ...]:
        return (self.request_fd, self.reply_fd, self.stdout_fd, self.stderr_fd)


@dataclass(frozen=True)
class _Outcome:
    """How waiting for a reply ended: a reply body, or why there is none."""

    kind: Literal["reply", "timeout", "exited", "closed", "invalid"]
    body: bytes = b""
    detail: str = ""


def _read_some(fd: int) -> bytes | None:
    """Read what is available: bytes, b"" at end of stream, None if nothing is there yet."""
    try:
        return os.read(fd, READ_CHUNK_BYTES)
    except BlockingIOError:
        return None


def _grandchild(pid: int) -> int | None:
    """The only child of the only child of ``pid`` (the worker, under the launcher and the
    namespace's init), or None."""
    parents = _process_table()
    children = [child for child, parent in parents.items() if parent == pid]
    if len(children) != 1:
        return None
    grandchildren = [child for child, parent in parents.items() if parent == children[0]]
    return grandchildren[0] if len(grandchildren) == 1 else None


def _remove_tree(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def _release(proc: subprocess.Popen[bytes], fds: tuple[int, ...]) -> None:
    try:
        _kill_tree(proc)
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def _stop(worker: _Worker) -> None:
    """Kill the worker's process tree, keep its last output, and close our pipe ends."""
    try:
        _kill_tree(worker.proc)
        _drain(worker.stdout_fd, worker.stdout.add, FINAL_DRAIN_S)
        _drain(worker.stderr_fd, worker.stderr.add, FINAL_DRAIN_S)
    finally:
        worker.release()


def _send_some(fd: int, pending: memoryview) -> tuple[memoryview, bool]:
    """Write what the pipe takes now; return what is left and whether the reader is there."""
    try:
        return pending[os.write(fd, pending):], True
    except BlockingIOError:
        return pending, True
    except BrokenPipeError:
        return pending[:0], False


def _receive(worker: _Worker, fd: int) -> bool:
    """Move what ``fd`` holds to the reply reader or an output capture; False at its end."""
    data = _read_some(fd)
    if data is None:
        return True
    if not data:
        return False
    if fd == worker.reply_fd:
        worker.reader.feed(data)
    else:
        (worker.stdout if fd == worker.stdout_fd else worker.stderr).add(data)
    return True


def _drain(fd: int, sink: Callable[[bytes], None], budget_s: float) -> None:
    """Pass what ``fd`` holds to ``sink`` until it is empty, ends, or the budget is spent."""
    end = time.monotonic() + budget_s
    while time.monotonic() < end:
        try:
            data = _read_some(fd)
        except OSError:
            return
        if not data:
            return
        sink(data)


class Sandbox:
    """Runs probes in a worker process under limits; see the module docstring.

    Use as a context manager, or call :meth:`close`. Not thread-safe: one call at a time.

        with Sandbox(folder) as box:
            result = box.call("call", {"module": "word2vec", "function": "sigmoid",
                                       "args": [x]}, timeout=5)

    ``isolation`` says how the worker is confined (default: :func:`grader.isolation.detect`,
    the strongest this machine allows). When it runs as the sandbox user, the worker runs in a
    private copy of ``submission`` (:attr:`run_dir`, made on first use, never following
    links) and ``submission`` itself is never changed; otherwise it runs in ``submission``.
    """

    def __init__(self, submission: str | os.PathLike[str], *, limits: Limits = Limits(),
                 python: str = sys.executable, isolation: Isolation | None = None,
                 preload: tuple[str, ...] = ()) -> None:
        self.submission = _submission_folder(submission)
        self.limits = limits
        self.python = python
        if not all(name.replace(".", "").replace("_", "").isalnum() for name in preload):
            raise ValueError(f"preload names modules to import, e.g. ('torch',); got {preload!r}")
        self.preload = tuple(preload)
        if isolation is not None and isolation.switches_user and os.geteuid() != 0:
            raise ValueError(f"isolation mode {isolation.mode!r} runs the worker as another "
                             "user, which needs root; use grader.isolation.detect()")
        self._isolation = isolation
        self._worker: _Worker | None = None
        self._starting: _Worker | None = None  # started by prestart(), not yet known to be ready
        self._private_dir: Path | None = None
        self._remove_private_dir: weakref.finalize[[str], Sandbox] | None = None
        self._closed = False
        self._request_ids = itertools.count(1)

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
            self._isolation = isolation_mod.detect()
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
        _check_timeout(timeout, at_most=self.limits.cpu_seconds)
        request = next(self._request_ids)
        frame = _request_frame(request, probe, args, self.limits.message_bytes)
        worker = self._ready_worker(timeout)
        worker.stdout, worker.stderr = (_Capture(self.limits.output_bytes),
                                        _Capture(self.limits.output_bytes))
        started = time.monotonic()
        outcome = self._pump(worker, frame, started + timeout)
        elapsed = time.monotonic() - started
        status, value, error = self._conclude(worker, outcome, request, timeout)
        return ProbeResult(status=status, value=value, error=error, stdout=worker.stdout.text(),
                           stderr=worker.stderr.text(), elapsed=elapsed)

    def close(self) -> None:
        """Kill the worker and everything it started, and remove its private folder."""
        self._closed = True
        self._discard_worker()
        if self._remove_private_dir is not None:
            self._remove_private_dir()
            self._private_dir = self._remove_private_dir = None

    # -- one call ------------------------------------------------------------------------------

    def _conclude(self, worker: _Worker, outcome: _Outcome, request: int,
                  timeout: float) -> tuple[Status, Any, ProbeError | None]:
        """Turn how the wait ended into a result; kill the worker unless it is still usable."""
        if outcome.kind == "reply":
            _drain(worker.stdout_fd, worker.stdout.add, FINAL_DRAIN_S)
            _drain(worker.stderr_fd, worker.stderr.add, FINAL_DRAIN_S)
            reply = _read_reply_body(outcome.body, request)
            if reply.status != "protocol_error" and worker.reader.buffered:
                reply = _Reply("protocol_error", error=ProbeError(
                    "ProtocolError", "unexpected bytes after the reply: something wrote to the "
                    "worker's protocol channel"))
            if reply.status == "protocol_error" or reply.leaving:
                self._discard_worker()
            return reply.status, reply.value, reply.error
        self._discard_worker()  # reaps the worker: its returncode is now known
        returncode = worker.proc.returncode
        if outcome.kind == "timeout":
            return "timeout", None, ProbeError("Timeout", (
                f"no reply within {timeout:g} s, so the call was stopped: an endless loop, "
                "or work too slow for the time limit?"))
        if outcome.kind == "exited":
            return "crashed", None, ProbeError("WorkerCrashed", describe_exit(
                returncode if returncode is not None else -signal.SIGKILL))
        return "protocol_error", None, ProbeError("ProtocolError", outcome.detail)

    def _pump(self, worker: _Worker, outgoing: bytes, deadline: float) -> _Outcome:
        """Send ``outgoing`` and read until a whole reply frame, the deadline or the worker's end,
        collecting its output meanwhile. Every wait is bounded by ``deadline``."""
        pending = memoryview(outgoing)
        poller = select.poll()
        for fd in (worker.reply_fd, worker.stdout_fd, worker.stderr_fd):
            poller.register(fd, select.POLLIN)
        if pending:
            poller.register(worker.request_fd, select.POLLOUT)
        channel_open = True
        try:
            while True:
                body = worker.reader.pop()
                if body is not None:
                    return _Outcome("reply", body)
                if not channel_open:
                    return self._after_channel_closed(worker)
                if _exited(worker.proc):
                    return self._after_exit(worker)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return _Outcome("timeout")
                for fd, _event in poller.poll(min(remaining, POLL_TICK_S) * 1000):
                    if fd == worker.request_fd:
                        pending, channel_open = _send_some(fd, pending)
                        if not pending:
                            poller.unregister(fd)
                    elif not _receive(worker, fd):
                        poller.unregister(fd)
                        channel_open = channel_open and fd != worker.reply_fd
        except wire.WireError as exc:
            return _Outcome("invalid", detail=f"invalid reply: {exc}")

    def _after_exit(self, worker: _Worker) -> _Outcome:
        """The worker is gone: take a reply it completed just before, else it crashed."""
        _drain(worker.reply_fd, worker.reader.feed, FINAL_DRAIN_S)
        body = worker.reader.pop()
        return _Outcome("reply", body) if body is not None else _Outcome("exited")

    def _after_channel_closed(self, worker: _Worker) -> _Outcome:
        """The worker closed a protocol pipe: a crash if it exits now, else tampering."""
        deadline = time.monotonic() + EXIT_GRACE_S
        while not _exited(worker.proc):
            if time.monotonic() >= deadline:
                return _Outcome("closed", detail="the worker closed its protocol channel "
                                "without replying (did the code close file descriptors it did "
                                "not open?)")
            time.sleep(EXIT_POLL_S)
        return _Outcome("exited")

    # -- the worker's life ---------------------------------------------------------------------

    def _ready_worker(self, timeout: float) -> _Worker:
        """The running worker, replaced first if it died or lacks CPU time for ``timeout``."""
        worker = self._worker
        if worker is not None and (_exited(worker.proc) or
                                   _cpu_seconds(worker.pid) + timeout
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
            self._starting = self._spawn()

    def _discard_worker(self) -> None:
        worker, self._worker = self._worker, None
        starting, self._starting = self._starting, None
        for stopping in (worker, starting):
            if stopping is not None:
                _stop(stopping)


    def _private_folder(self) -> Path:
        """The sandbox's private folder: ``worker/``, a copy of grader/untrusted/*.py (so the
        worker imports nothing from the grader's own location; read-only to a sandbox user),
        and, when the worker runs as the sandbox user, ``run/``, its copy of the submission."""
        if self._private_dir is None:
            if self._closed:
                raise SandboxError("the sandbox is closed; make a new Sandbox")
            folder = Path(tempfile.mkdtemp(prefix="a2grader-sandbox-"))
            self._private_dir = folder
            # Removed by close(), or when the Sandbox is dropped, or at interpreter exit.
            self._remove_private_dir = weakref.finalize(self, _remove_tree, str(folder))
            folder.chmod(PUBLIC_DIR_MODE)
            scripts = folder / SCRIPTS_FOLDER
            scripts.mkdir()
            scripts.chmod(PUBLIC_DIR_MODE)
            for source in sorted(UNTRUSTED_DIR.glob("*.py")):
                if source.name != "__init__.py":
                    shutil.copyfile(source, scripts / source.name)
                    (scripts / source.name).chmod(PUBLIC_FILE_MODE)
            self._prepare_matplotlib(folder / MATPLOTLIB_FOLDER)
            if self.isolation.switches_user:
                self._copy_submission(folder / RUN_FOLDER)
        return self._private_dir

    def _prepare_matplotlib(self, target: Path) -> None:
        """matplotlib's folder for the workers: the machine's prepared font cache when the
        submission uses matplotlib, else empty; the worker's own either way."""
        target.mkdir(mode=PRIVATE_DIR_MODE)
        prepared = prepared_matplotlib_cache(self.python) if _uses_matplotlib(self.submission) else None
        if prepared is not None:
            for cache in prepared.glob("fontlist-*.json"):
                shutil.copyfile(cache, target / cache.name)
        if self.isolation.switches_user:
            isolation_mod.give_to(str(target), self.isolation.uid, self.isolation.gid)

    def _copy_submission(self, run: Path) -> None:
        """Copy the submission for the sandbox user: links are copied as links (never read
        through as root), and the copy is the user's own."""
        try:
            shutil.copytree(self.submission, run, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
        except (OSError, shutil.Error) as exc:
            raise SandboxError(f"cannot copy the submission {self.submission} for the "
                               f"sandbox user: {exc}") from exc
        run.chmod(PRIVATE_DIR_MODE)
        isolation_mod.give_to(str(run), self.isolation.uid, self.isolation.gid)

    def _start(self) -> _Worker:
        """Start a worker and wait for it to say it is ready; SandboxError if it does not."""
        return self._become_ready(self._spawn())

    def _become_ready(self, worker: _Worker) -> _Worker:
        """Wait for a spawned worker's ready message (SandboxError without one)."""
        self._await_ready(worker)
        if self.isolation.mode == "namespaces":
            worker.pid = _grandchild(worker.proc.pid) or worker.proc.pid
        return worker

    def _spawn(self) -> _Worker:
        """Start a worker process; it reports ready on its own time."""
        isolation = self.isolation
        run_dir = self.run_dir
        script = self._private_folder() / SCRIPTS_FOLDER / WORKER_SCRIPT
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        ours = (request_w, reply_r, stdout_r, stderr_r)
        # -s: no user site-packages; -B: no .pyc files. Not -I: it implies -E, which would
        # ignore the PYTHONHASHSEED set in the (otherwise empty) environment.
        argv = [self.python, "-s", "-B", str(script), str(request_r), str(reply_w),
                str(self.limits.message_bytes), ",".join(self.preload)]
        env = worker_environment(run_dir, self._private_folder() / MATPLOTLIB_FOLDER)
        try:
            if not isolation.switches_user:
                proc = subprocess.Popen(
                    argv, cwd=run_dir, env=env, stdin=subprocess.DEVNULL, stdout=stdout_w,
                    stderr=stderr_w, pass_fds=(request_r, reply_w), start_new_session=True,
                    preexec_fn=_limit_setter(_resource_plan(self.limits)))
            else:
                if not os.access(self.python, os.X_OK):
                    raise OSError(f"{self.python} is not an executable file")
                plan = isolation_mod.confine_plan(
                    isolation, private_dir=str(self._private_folder()), cwd=str(run_dir),
                    argv=argv, env=env,
                    rlimits=_resource_plan(self.limits, uid=isolation.uid))
                proc = subprocess.Popen(
                    isolation_mod.launcher_command(plan), cwd="/", env={},
                    stdin=subprocess.DEVNULL, stdout=stdout_w, stderr=stderr_w,
                    pass_fds=(request_r, reply_w), start_new_session=True)
        except (OSError, subprocess.SubprocessError, isolation_mod.IsolationError) as exc:
            for fd in ours:
                os.close(fd)
            raise SandboxError(f"cannot start the worker: {exc}") from exc
        finally:
            for fd in (request_r, reply_w, stdout_w, stderr_w):
                os.close(fd)
        for fd in ours:
            os.set_blocking(fd, False)
        startup_output = _Capture(self.limits.output_bytes)  # both streams, for the error
        return _Worker(proc, *ours, wire.FrameReader(max_bytes=self.limits.message_bytes),
                       stdout=startup_output, stderr=startup_output)

    def _await_ready(self, worker: _Worker) -> None:
        """Wait for the worker's ready message; stop it and raise SandboxError without one."""
        outcome = self._pump(worker, b"", time.monotonic() + self.limits.startup_seconds)
        if outcome.kind == "reply":
            with contextlib.suppress(wire.WireError):
                if wire.decode_message(outcome.body) == {"ready": True}:
                    return
        _stop(worker)
        raise SandboxError(f"the worker did not start ({outcome.kind} {outcome.detail}); its "
                           f"output: {worker.stderr.text()[-2000:]!r}")


# -- the in-process runner ---------------------------------------------------------------------


def _protected_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    roots.add(str(Path(__file__).resolve().parent))
    return tuple(os.path.realpath(root) + os.sep for root in roots)


def _top_level_names(folder: Path) -> set[str]:
    """Names a folder provides as top-level modules: its .py files and its packages."""
    names = {path.stem for path in folder.glob("*.py")}
    names |= {path.name for path in folder.iterdir() if path.is_dir() and path.name.isidentifier()}
    return names


def _forget_modules(names: set[str]) -> None:
    """Drop from sys.modules the modules named ``names`` (and their submodules) that come
    from assignment folders, never the standard library, installed packages or the grader."""
    protected = _protected_roots()
    for name in list(sys.modules):
        if name.split(".")[0] not in names:
            continue
        origin = getattr(sys.modules[name], "__file__", None)
        if origin is None or not os.path.realpath(origin).startswith(protected):
            del sys.modules[name]


@contextlib.contextmanager
def _visiting(folder: Path) -> Iterator[None]:
    """Run inside ``folder`` as the worker does: it is the cwd, first on sys.path, and sys.argv
    holds no options (run.py reads its command line when imported, as the starter file does)."""
    cwd, argv = os.getcwd(), sys.argv
    sys.path.insert(0, str(folder))
    os.chdir(folder)
    sys.argv = ["probe"]
    try:
        yield
    finally:
        sys.argv = argv
        os.chdir(cwd)
        with contextlib.suppress(ValueError):
            sys.path.remove(str(folder))


class InProcessRunner:
    """Runs probes in this process, for code known to be safe; same interface as Sandbox.

    Requests and replies still go through the wire encoding and the worker's request handler,
    so results match a Sandbox's. Differences: ``timeout`` is not enforced (a hang hangs the
    grader), only Python-level prints are captured, and the submission's modules share this
    process's sys.modules (they are forgotten on creation and on close, so use one
    InProcessRunner at a time).
    """

    def __init__(self, submission: str | os.PathLike[str], *,
                 output_bytes: int = DEFAULT_OUTPUT_BYTES,
                 message_bytes: int = wire.DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self.submission = _submission_folder(submission)
        self.output_bytes = output_bytes
        self.message_bytes = message_bytes
        self._handler = importlib.import_module("grader.untrusted.worker")
        self._names = _top_level_names(self.submission)
        _forget_modules(self._names)

    def __enter__(self) -> InProcessRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        """Run ``probe`` here on ``args`` (``timeout`` is checked but not enforced)."""
        _check_timeout(timeout)
        reader = wire.FrameReader(max_bytes=self.message_bytes)
        reader.feed(_request_frame(1, probe, args, self.message_bytes))
        request = wire.decode_message(reader.pop() or b"")
        stdout, stderr = io.StringIO(), io.StringIO()
        started = time.monotonic()
        with _visiting(self.submission), contextlib.redirect_stdout(stdout), \
                contextlib.redirect_stderr(stderr):
            reply = self._handler.handle_request(request, str(self.submission))
            frame = self._handler.reply_frame(reply, self.message_bytes,
                                              self._handler.request_id(request))
        elapsed = time.monotonic() - started
        reader.feed(frame)
        reply = _read_reply_body(reader.pop() or b"", 1)
        return ProbeResult(status=reply.status, value=reply.value, error=reply.error,
                           stdout=self._captured(stdout), stderr=self._captured(stderr),
                           elapsed=elapsed)

    def _captured(self, stream: io.StringIO) -> str:
        capture = _Capture(self.output_bytes)
        capture.add(stream.getvalue().encode("utf-8", errors="replace"))
        return capture.text()

    def close(self) -> None:
        """Forget the submission's modules."""
        _forget_modules(self._names)
