"""The worker's main program: runs probes, on the trusted grader's requests, next to student code.

Runs next to untrusted student code; never imported by the trusted process except wire.py
(the one exception is ``grader.sandbox.InProcessRunner``, which reuses :func:`handle_request`
for code known to be safe).

``grader.sandbox.Sandbox`` copies the ``*.py`` files of this folder and of the assignment's
probes (``grader.sandbox.folders.worker_files``) into a private folder and
starts ``python -s -B <copy>/worker.py FD_IN FD_OUT MAX_BYTES`` with the submission folder as
the working directory and fd 1 and 2 on pipes the trusted side drains with a cap, so student
prints never reach the protocol channel. The protocol (frames of :mod:`wire`):

    worker -> grader   {"ready": true}                                   once, at start
    grader -> worker   {"id": N, "probe": NAME, "args": {...}}           then, in turn:
    worker -> grader   {"id": N, "ok": true, "result": VALUE}
                     | {"id": N, "ok": false, "error": {"type", "message", "traceback": [lines]}}
                       either with "leaving": [reasons] when the worker exits after it

Anything a probe raises, ``SystemExit`` and ``KeyboardInterrupt`` included, is an error reply; the
traceback keeps only frames in the submission folder (paths relative to it) and the final
exception line. The worker exits when the request stream ends, and right after a reply when the
call left something behind that could change later calls (see :func:`leftovers`: a thread
still running, a child process, most of its file descriptors in use): the grader then starts a
fresh worker for the next call, so what one student function did costs only its own check.
"""

from __future__ import annotations

import ctypes
import errno
import faulthandler
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
import traceback
from typing import Any, NoReturn

if sys.platform != "win32":
    import resource

    def _fd_limit() -> int:
        return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
else:  # the student kit's portable runner on Windows: no descriptor limit to read
    def _fd_limit() -> int:
        return 0

PACKAGE = "untrusted"
"""The package this folder is imported as when ``worker.py`` is started as a script (the sandbox's
private copy, the fork server, the portable runner); in the repository it is ``grader.untrusted``.
Either way the worker's modules import each other one way: relatively."""


FOLDERS_VARIABLE = "GRADER_WORKER_FOLDERS"
"""More folders of the package (os.pathsep between them): the assignment's probes, where they are not
copied next to this file (the student kit's portable runner sets it; the sandbox copies them)."""


def _start_as_package() -> None:
    """Started as a script: make this file's folder (and :data:`FOLDERS_VARIABLE`'s) the package
    :data:`PACKAGE` (a namespace package: its ``__path__`` the folders, which need not hold
    ``__init__.py``; nothing goes on sys.path), then serve with that package's worker module. Never
    returns: :func:`run` ends the process."""
    spec = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
    more = [folder for folder in os.environ.get(FOLDERS_VARIABLE, "").split(os.pathsep) if folder]
    spec.submodule_search_locations = [os.path.dirname(os.path.abspath(__file__)), *more]
    sys.modules[PACKAGE] = importlib.util.module_from_spec(spec)
    importlib.import_module(f"{PACKAGE}.worker").run(sys.argv[1:])


if __name__ == "__main__" and not __package__:   # started as a script; a file merely loaded by path serves nothing
    _start_as_package()

# Everything the worker needs is imported above and here, before the submission folder goes on
# sys.path, so that a student file named like a module (json.py, numpy.py) cannot replace it.
from . import probes, wire  # noqa: E402 - after the start as a package

MAX_MESSAGE_CHARS = 1000
"""Longest exception message sent back (longer ones are cut with a note)."""

MAX_TRACEBACK_FRAMES = 20
"""Most submission frames kept in a traceback: the innermost ones, e.g. of a deep recursion."""

PR_SET_CHILD_SUBREAPER = 36
"""prctl option: orphaned descendants are re-parented to this process, not to init."""

EXIT_INTERNAL_ERROR = 70
STDERR_FD = 2
LEAVING_KEY = "leaving"
"""Reply key listing what the call left behind, when the worker exits after the reply."""
FD_SHARE_BEFORE_RECYCLING = 0.5
"""A worker with more than this share of its descriptor limit open is replaced after the call."""


# -- replies -----------------------------------------------------------------------------------


def _text(value: Any, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Return ``str(value)`` as a plain, bounded string, whatever ``__str__`` does."""
    try:
        text = str.__str__(str(value))
    except BaseException:  # student __str__ may raise anything
        text = f"<str() of a {type(value).__name__} failed>"
    if len(text) > limit:
        text = text[:limit] + f" [... {len(text) - limit} more characters]"
    return text


def _relative(text: str, submission: str) -> str:
    """Show paths inside the submission folder relative to it (students never saw the copy)."""
    return text.replace(submission + os.sep, "")


def _inside(path: str, submission: str) -> bool:
    real = os.path.realpath(path)
    return real == submission or real.startswith(submission + os.sep)


def student_traceback(exc: BaseException, submission: str) -> list[str]:
    """Return the traceback of ``exc`` trimmed to frames in ``submission``, then its last line.

    Frames of the grader, the standard library and numpy/torch are dropped: a student sees where
    in their own files things went wrong, and the exception itself.
    """
    lines: list[str] = []
    try:
        # "<frozen importlib._bootstrap>" and other "<...>" names are no files: relative to the
        # working folder they would look like the student's own.
        frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
                  if not frame.filename.startswith("<") and _inside(frame.filename, submission)]
        if len(frames) > MAX_TRACEBACK_FRAMES:
            lines.append(f"... ({len(frames) - MAX_TRACEBACK_FRAMES} earlier frames not shown)")
            frames = frames[-MAX_TRACEBACK_FRAMES:]
        for frame in frames:
            path = os.path.relpath(os.path.realpath(frame.filename), submission)
            lines.append(f'File "{path}", line {frame.lineno}, in {frame.name}')
            if frame.line:
                lines.append(f"    {frame.line.strip()}")
        final = "".join(traceback.format_exception_only(type(exc), exc))
    except BaseException:  # formatting student exceptions may raise anything
        final = f"{type(exc).__name__}: {_text(exc)}"
    lines.extend(_relative(_text(line), submission) for line in final.rstrip("\n").splitlines())
    return lines


def error_reply(exc: BaseException, submission: str) -> dict[str, Any]:
    """Return the error reply describing ``exc``."""
    return {"ok": False, "error": {
        "type": _text(type(exc).__name__, 200),
        "message": _relative(_text(exc), submission),
        "traceback": student_traceback(exc, submission),
    }}


def _plain_error(kind: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"type": kind, "message": message, "traceback": []}}


def handle_request(request: Any, submission: str) -> dict[str, Any]:
    """Run the probe a request names, with its args as keyword arguments, and return the
    reply; never raises.

    ``submission`` is the real path of the submission folder, for trimming tracebacks.
    """
    if (not isinstance(request, dict) or not isinstance(request.get("probe"), str)
            or not isinstance(request.get("args"), dict)):
        return _plain_error("BadRequest", "a request is {'id': int, 'probe': str, 'args': dict}")
    name = request["probe"]
    function = probes.PROBES.get(name)
    if function is None:
        return _plain_error("UnknownProbe", f"no probe named {name!r}; the worker knows "
                            f"{sorted(probes.PROBES)}")
    try:
        result = probes.to_plain(function(**request["args"]), what=f"probe {name}")
    except BaseException as exc:  # SystemExit etc. from student code are results
        return error_reply(exc, submission)
    return {"ok": True, "result": result}


def request_id(request: Any) -> int | None:
    """The id the grader gave a request (echoed in the reply, so that replies cannot be
    mistaken for one another), or None."""
    value = request.get("id") if isinstance(request, dict) else None
    return value if type(value) is int else None


def reply_frame(reply: dict[str, Any], max_bytes: int, request: int | None) -> bytes:
    """Encode ``reply`` to request ``request``; if it cannot be sent, encode an error reply
    that says why instead."""
    try:
        return wire.encode_message({"id": request, **reply}, max_bytes=max_bytes)
    except wire.FrameTooLarge as exc:
        fallback = _plain_error("ResultTooLarge", f"the reply is too large to send: {exc}")
    except wire.WireError as exc:
        fallback = _plain_error("UnsupportedValue", f"the reply cannot be sent: {exc}")
    return wire.encode_message({"id": request, **fallback})


# -- the process -------------------------------------------------------------------------------


def _become_subreaper() -> None:
    """Keep orphaned descendants (double forks) under this process, so the grader finds them."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError, TypeError):
        pass  # not Linux: the grader still kills the process group


def release_freed_memory() -> None:
    """Hand the memory the last call freed back to the system (glibc's ``malloc_trim(0)``: the free
    pages anywhere in the heap, not only at its top), once per call, after its reply. A training
    leaves its minibatches' tensors freed but resident otherwise, and the grading's peak is the
    sum over its processes (bench/gradescope.py). Once a call, not per allocation: the allocator
    keeps its default thresholds, so a student's per-row loop does not map and fault in a fresh
    block for every row's gradient (grader.sandbox.limits.worker_environment). Elsewhere (no glibc)
    nothing happens."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError, TypeError):
        pass


def _children() -> list[int]:
    """Live (or unreaped) child processes of this process, from /proc; [] where unknown."""
    found: list[int] = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as listing:
                found += [int(pid) for pid in listing.read().split()]
    except (OSError, ValueError):
        return []
    return found


def _open_fds() -> int:
    """How many descriptors are open (all of them, if not even one more can be opened)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError as exc:
        return sys.maxsize if exc.errno == errno.EMFILE else 0


#: Modules whose own helper threads are not a student's leftovers: tqdm starts one monitor
#: thread per process for its progress bars (every real run.py uses tqdm), and it harms no
#: later call. Any other thread left running makes the worker exit after its reply.
LIBRARY_THREAD_MODULES = ("tqdm.",)


def _library_thread(thread: threading.Thread) -> bool:
    return type(thread).__module__.startswith(LIBRARY_THREAD_MODULES)


def leftovers(fd_limit: int) -> list[str]:
    """What the last call left running or held that a later call could trip over."""
    found = []
    threads = [t.name for t in threading.enumerate() if t is not threading.main_thread()
               and t.is_alive() and not _library_thread(t)]
    if threads:
        found.append(f"threads {threads[:5]}")
    children = _children()
    if children:
        found.append(f"{len(children)} child process(es)")
    if fd_limit > 0 and _open_fds() > fd_limit * FD_SHARE_BEFORE_RECYCLING:
        found.append(f"{_open_fds()} open file descriptors")
    return found


def _flush_std_streams() -> None:
    """Push buffered student prints into the output pipes before the reply is sent."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except BaseException:  # student code may have replaced the streams
            pass


def _preload(modules: list[str]) -> None:
    """Import libraries the coming probes need (torch takes a second) while the grader is still
    getting ready, before the submission is on sys.path (so no student file can stand in)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the probe that needs it will say what is wrong
            pass


def _prepare(submission: str, protocol_fds: tuple[int, int], preload: list[str]) -> None:
    faulthandler.enable(file=STDERR_FD, all_threads=True)  # a segfault prints a traceback
    _become_subreaper()
    for fd in protocol_fds:
        os.set_inheritable(fd, False)  # programs that student code starts do not get them
    student_traceback(ValueError("warm-up"), submission)  # import what formatting needs, now
    _preload(preload)
    sys.path.insert(0, submission)
    sys.argv = ["probe"]


def _stdio_protocol() -> tuple[int, int]:
    """The student kit's portable runner speaks over this process's stdin and stdout: move them
    to fresh descriptors, give fd 0 the null device and send fd 1 (student prints) to stderr."""
    fd_in, fd_out = os.dup(0), os.dup(1)
    if sys.platform == "win32":
        import msvcrt  # Windows only

        for fd in (fd_in, fd_out):
            msvcrt.setmode(fd, os.O_BINARY)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(STDERR_FD, 1)
    return fd_in, fd_out


def main(argv: list[str]) -> int:
    """Serve requests until the grader closes the request stream; return the exit code.

    ``FD_IN FD_OUT MAX_BYTES [PRELOAD]`` (the Sandbox's pipes), or ``stdio MAX_BYTES [PRELOAD]``
    (the portable runner: the protocol on stdin and stdout).
    """
    if argv[:1] == ["stdio"]:
        fd_in, fd_out = _stdio_protocol()
        argv = [str(fd_in), str(fd_out), *argv[1:]]
    fd_in, fd_out, max_bytes = (int(arg) for arg in argv[:3])
    preload = [name for name in (argv[3] if len(argv) > 3 else "").split(",") if name]
    fd_limit = _fd_limit()
    submission = os.path.realpath(os.getcwd())
    _prepare(submission, (fd_in, fd_out), preload)
    reader = wire.FrameReader(max_bytes=max_bytes)
    wire.write_all(fd_out, wire.encode_message({"ready": True}))
    while True:
        try:
            request = wire.read_message(fd_in, reader)
        except EOFError:
            return 0
        except wire.WireError as exc:  # the grader sent an invalid frame: the stream is lost
            error = _plain_error("ProtocolError", str(exc))
            wire.write_all(fd_out, reply_frame(error, max_bytes, None))
            return EXIT_INTERNAL_ERROR
        reply = handle_request(request, submission)
        _flush_std_streams()
        left = leftovers(fd_limit)
        if left:
            reply[LEAVING_KEY] = left
        wire.write_all(fd_out, reply_frame(reply, max_bytes, request_id(request)))
        if left:
            return 0  # the grader starts a fresh worker for the next call
        del request, reply  # freed before the trim
        release_freed_memory()


def run(argv: list[str]) -> NoReturn:
    """Serve (:func:`main`), then end the process at once, without waiting for student threads."""
    code = EXIT_INTERNAL_ERROR
    try:
        code = main(argv)
    except BaseException:  # report, then leave without waiting for student threads
        traceback.print_exc()
    finally:
        _flush_std_streams()
        os._exit(code)


if __name__ == "__main__":  # python -m grader.untrusted.worker
    run(sys.argv[1:])
