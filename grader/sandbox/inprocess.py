"""The :class:`InProcessRunner`: the same probes, run in this process, for code known to be safe
(the reference, unit tests, the benchmark floor). No process boundary: never for student code."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
import sysconfig
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from grader import assignment
from grader.sandbox.folders import submission_folder
from grader.sandbox.frames import Capture, check_timeout, read_reply_body, request_frame
from grader.sandbox.runner import DEFAULT_CALL_TIMEOUT_S, DEFAULT_OUTPUT_BYTES, ProbeResult
from grader.untrusted import wire

GRADER_DIR = Path(__file__).resolve().parents[1]


def _worker_module() -> Any:
    """The worker's request handler, imported here as ``grader.untrusted.worker``, its package's
    folders the framework's and the assignment's probes' (the sandbox copies both into one)."""
    package = importlib.import_module("grader.untrusted")
    extra = str(assignment.untrusted_folder())
    if extra not in package.__path__:
        package.__path__.append(extra)
    importlib.import_module("grader.untrusted.probes").load_probe_modules()   # in case it was imported before
    return importlib.import_module("grader.untrusted.worker")


def _protected_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    roots |= {str(GRADER_DIR), str(assignment.folder())}
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
        self.submission = submission_folder(submission)
        self.output_bytes = output_bytes
        self.message_bytes = message_bytes
        self._handler = _worker_module()
        self._names = _top_level_names(self.submission)
        _forget_modules(self._names)

    def __enter__(self) -> InProcessRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        """Run ``probe`` here on ``args`` (``timeout`` is checked but not enforced)."""
        check_timeout(timeout)
        reader = wire.FrameReader(max_bytes=self.message_bytes)
        reader.feed(request_frame(1, probe, args, self.message_bytes))
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
        reply = read_reply_body(reader.pop() or b"", 1)
        return ProbeResult(status=reply.status, value=reply.value, error=reply.error,
                           stdout=self._captured(stdout), stderr=self._captured(stderr),
                           elapsed=elapsed)

    def _captured(self, stream: io.StringIO) -> str:
        capture = Capture(self.output_bytes)
        capture.add(stream.getvalue().encode("utf-8", errors="replace"))
        return capture.text()

    def close(self) -> None:
        """Forget the submission's modules."""
        _forget_modules(self._names)
