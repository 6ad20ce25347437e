"""Requests and replies of the worker protocol, checked on the trusted side; shared by every runner.

Requests are framed by :mod:`grader.untrusted.wire`. A reply is decoded there (JSON and ``.npy``
without pickle) and then checked here for shape before anything uses it: a reply of any other
shape is a ``protocol_error`` result, never an exception. Every string of a reply (in the value,
its dict keys, the error) and of captured output is made printable and bounded
(:mod:`grader.common.shown`) before the trusted side holds it. :class:`Capture` keeps the head of an
output stream.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grader.common.shown import MAX_REPLY_STRING_CHARS, printable, safe
from grader.sandbox.runner import ProbeError, Status
from grader.untrusted import wire

MAX_ERROR_TYPE_CHARS = 200
MAX_ERROR_MESSAGE_CHARS = 4000
MAX_TRACEBACK_LINES = 60
MAX_TRACEBACK_LINE_CHARS = 500

LEAVING_KEY = "leaving"
"""Reply key by which the worker says it exits after this reply (the call left threads, child
processes or open files behind); the next call then starts a fresh worker."""


class BadReply(Exception):
    """A decoded reply does not have the shape of the protocol."""


def cut(text: str, limit: int) -> str:
    """A string of the worker's, printable and at most ``limit`` characters (saying what was cut)."""
    return safe(text, limit)


def clean_strings(value: Any) -> Any:
    """``value`` (a decoded reply: lists, dicts, scalars, arrays) with every string and dict key
    made printable and cut to MAX_REPLY_STRING_CHARS, in place; no recursion."""
    if isinstance(value, str):
        return cut(value, MAX_REPLY_STRING_CHARS)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, str):
                    node[index] = cut(item, MAX_REPLY_STRING_CHARS)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
        elif isinstance(node, dict):
            for key in list(node):
                item = node[key]
                if isinstance(item, str):
                    item = cut(item, MAX_REPLY_STRING_CHARS)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
                shown = cut(key, MAX_REPLY_STRING_CHARS) if isinstance(key, str) else key
                if shown != key:
                    del node[key]
                node[shown] = item
    return value


def check_timeout(timeout: float, *, at_most: float = math.inf) -> None:
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
    if timeout > at_most:
        raise ValueError(f"timeout {timeout} s exceeds the worker's CPU limit of {at_most} s; "
                         "raise Limits.cpu_seconds or lower the timeout")


def request_frame(request: int, probe: str, args: Mapping[str, Any] | None,
                   max_bytes: int) -> bytes:
    if not isinstance(probe, str):
        raise TypeError(f"probe must be a probe name (str); got {probe!r}")
    return wire.encode_message({"id": request, "probe": probe, "args": dict(args or {})},
                               max_bytes=max_bytes)


def parse_error(error: Any) -> ProbeError:
    if not isinstance(error, dict):
        raise BadReply("an error reply needs an 'error' dict")
    kind, message, lines = error.get("type"), error.get("message"), error.get("traceback")
    if not (isinstance(kind, str) and isinstance(message, str) and isinstance(lines, list)
            and all(isinstance(line, str) for line in lines)):
        raise BadReply("an error is {'type': str, 'message': str, 'traceback': [str]}")
    return ProbeError(type=cut(kind, MAX_ERROR_TYPE_CHARS),
                      message=cut(message, MAX_ERROR_MESSAGE_CHARS),
                      traceback=tuple(cut(line, MAX_TRACEBACK_LINE_CHARS)
                                      for line in lines[-MAX_TRACEBACK_LINES:]))


@dataclass(frozen=True)
class Reply:
    """A checked reply: the call's result, and whether the worker is leaving after it."""

    status: Status
    value: Any = None
    error: ProbeError | None = None
    leaving: bool = False


def parse_reply(reply: Any, request: int) -> Reply:
    """Check a decoded reply to request number ``request``; raise BadReply for any other
    shape. A reply may say ``"leaving": [reasons]``: the worker exits after it."""
    if not isinstance(reply, dict) or type(reply.get("ok")) is not bool:
        raise BadReply("a reply is a dict with a bool 'ok'")
    if type(reply.get("id")) is not int or reply["id"] != request:
        raise BadReply(f"the reply answers request {reply.get('id')!r:.20}, not {request}")
    leaving = reply.get(LEAVING_KEY, [])
    if not (isinstance(leaving, list) and all(isinstance(item, str) for item in leaving)):
        raise BadReply(f"'{LEAVING_KEY}' is a list of reasons (str)")
    if reply["ok"]:
        if set(reply) - {LEAVING_KEY} != {"id", "ok", "result"}:
            raise BadReply("a success reply is {'id': int, 'ok': true, 'result': value}")
        return Reply("ok", clean_strings(reply["result"]), leaving=bool(leaving))
    return Reply("error", error=parse_error(reply.get("error")), leaving=bool(leaving))


def read_reply_body(body: bytes, request: int) -> Reply:
    """Decode and check a reply body; a violation is a protocol_error result."""
    try:
        return parse_reply(wire.decode_message(body), request)
    except (wire.WireError, BadReply) as exc:
        return Reply("protocol_error",
                      error=ProbeError("ProtocolError", f"invalid reply: {exc}"))


class Capture:
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
        text = printable(self.head.decode("utf-8", errors="replace"))
        if self.dropped:
            text += f"\n[... truncated {self.dropped} bytes]"
        return text

