"""Parse and judge written answers in a child process with a time limit per request.

Writeups are untrusted *data*: nothing in them is executed, but parsing hostile text could still
take long or use much memory. So the trusted grader sends each request (``locate``: find the
sections; ``check``: judge one question; ``fingerprint``: a formula's values at fixed points, for
the answer groups of :mod:`grader.classroom.groups`) to a child process that runs :func:`main` of this
module, our own code only. The child's process, its limits, the framing of requests and replies
and what a timeout or a crash costs are the process boundary's
(:class:`grader.sandbox.reader_process.ReaderProcess`, the same mechanics as the sandbox's
worker); this module holds only what the child answers.

:class:`ChildProcess` is that runner; :class:`InProcess` answers the same requests in this
process (unit tests, speed). Both are :class:`grader.sandbox.Runner`\\ s.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Mapping
from typing import Any

import numpy as np

from grader.sandbox.reader_process import MAX_REPLY_BYTES, MAX_REQUEST_BYTES, REQUEST_REFUSED, ReaderProcess
from grader.sandbox.runner import DEFAULT_CALL_TIMEOUT_S, ProbeError, ProbeResult
from grader.untrusted import wire

INTERNAL = "InternalError"
"""Error type of a reply that reports a bug in a written checker, not in the student's text."""
MODULE = "a2.written.process"


class UnknownRequest(Exception):
    """The request names no operation of this module, or has the wrong shape."""


def handle(probe: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """Answer one request (runs in the child, or in process for :class:`InProcess`)."""
    from a2.written.checker_registry import WrittenContext
    from a2.written.checkers import all_written_checkers
    from a2.written.documents import locate
    from a2.written.evidence import reconsider
    from a2.written.sections import Section
    from grader.run.check_api import check_rng

    if probe == "locate":
        found = locate([(str(n), str(t)) for n, t in args["files"]], set(args["questions"]))
        return {"notes": found.notes, "sections": {q: s.__dict__ for q, s in found.sections.items()}}
    if probe == "check":
        checker = all_written_checkers()[args["checker"]]
        section = Section(**args["section"])
        ctx = WrittenContext(args["question"], check_rng(int(args["seed"]), args["question"]), int(args["seed"]))
        with np.errstate(all="ignore"):
            verdict = reconsider(checker, section, ctx, checker(section, ctx))
        return {"verdict": verdict.to_dict()}
    if probe == "fingerprint":
        from a2.written.fingerprint import fingerprint

        with np.errstate(all="ignore"):
            return fingerprint(str(args["checker"]), str(args["question"]), str(args["raw"]))
    if probe == "ping":
        return {}
    raise UnknownRequest(f"unknown request {probe!r}")


def _error(kind: str, message: str, lines: list[str] | None = None) -> dict[str, Any]:
    return {"type": kind, "message": message, "traceback": lines or []}


def answer(request: Any) -> dict[str, Any]:
    """The reply to one decoded request: ``{"id", "ok": true, "result"}`` or ``{"id", "ok": false,
    "error": {"type", "message", "traceback"}}``, as the sandbox's worker replies."""
    request_id = request.get("id") if isinstance(request, dict) else None
    try:
        if not (isinstance(request, dict) and isinstance(request.get("probe"), str)
                and isinstance(request.get("args"), dict)):
            raise UnknownRequest("a request is {'id': int, 'probe': str, 'args': dict}")
        return {"id": request_id, "ok": True, "result": handle(request["probe"], request["args"])}
    except RecursionError:
        error = _error("RecursionError", "the answer is nested too deeply to read")
    except MemoryError:
        error = _error("MemoryError", "reading the answer ran out of memory")
    except UnknownRequest as exc:
        error = _error("UnknownRequest", str(exc))
    except Exception:  # a bug in a written checker, not in the student's text
        lines = traceback.format_exc(limit=-4).strip().splitlines()
        error = _error(INTERNAL, lines[-1], lines[-6:])
    return {"id": request_id, "ok": False, "error": error}


def _frame(reply: dict[str, Any]) -> bytes:
    try:
        return wire.encode_message(reply, max_bytes=MAX_REPLY_BYTES)
    except wire.WireError as exc:
        return wire.encode_message({"id": reply.get("id"), "ok": False,
                                    "error": _error("ResultTooLarge", f"the reply cannot be sent: {exc}")})


class ChildProcess(ReaderProcess):
    """Answers requests in a child process (``python -m a2.written.process``), each within
    its time limit."""

    def __init__(self) -> None:
        super().__init__(MODULE)


class InProcess:
    """Answers requests in this process (no time limit): for tests and trusted text."""

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        started = time.monotonic()
        try:
            frame = wire.encode_message({"id": 1, "probe": probe, "args": dict(args or {})}, max_bytes=MAX_REQUEST_BYTES)
        except wire.WireError as exc:
            return ProbeResult("error", error=ProbeError(REQUEST_REFUSED, f"the text is too large to read ({exc})"))
        request = wire.decode_message(frame[wire.FRAME_HEADER.size:])
        reply = wire.decode_message(_frame(answer(request))[wire.FRAME_HEADER.size:])
        elapsed = time.monotonic() - started
        if reply["ok"]:
            return ProbeResult("ok", reply["result"], elapsed=elapsed)
        error = reply["error"]
        return ProbeResult("error", error=ProbeError(error["type"], error["message"], tuple(error["traceback"])),
                           elapsed=elapsed)

    def close(self) -> None:
        pass


def main(argv: list[str]) -> None:
    """The child: one request frame at a time on REQUEST_FD, one reply frame on REPLY_FD."""
    fd_in, fd_out = int(argv[0]), int(argv[1])
    sys.setrecursionlimit(4000)
    reader = wire.FrameReader(max_bytes=MAX_REQUEST_BYTES)
    while True:
        try:
            request = wire.read_message(fd_in, reader)
        except EOFError:
            return
        except wire.WireError as exc:  # the stream is lost
            wire.write_all(fd_out, _frame({"id": None, "ok": False, "error": _error("ProtocolError", str(exc))}))
            return
        wire.write_all(fd_out, _frame(answer(request)))


if __name__ == "__main__":
    main(sys.argv[1:])
