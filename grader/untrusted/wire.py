"""The message codec shared by the trusted grader and the worker.

This is the one module of ``grader/untrusted/`` that the trusted process imports: it must stay
safe to run on bytes written by a hostile process. Decoding never executes anything: no pickle,
no eval; JSON is parsed by :mod:`json` and arrays by :func:`numpy.load` with
``allow_pickle=False`` after their header has been checked against their size.

A **message** is a tree of ``None``, ``bool``, ``int``, ``float``, ``str``, lists (tuples are sent
as lists), dicts with ``str`` keys, and numpy arrays of numbers, booleans or strings. Numpy
scalars travel as 0-d arrays so that their dtype survives. Non-finite floats, which JSON cannot
hold, travel as ``{"__float__": "nan" | "inf" | "-inf"}``; arrays travel after the JSON and are
referred to by ``{"__ndarray__": index}``. A dict whose only key is one of these tags is refused
on sending, so that a tag always means what it says.

A **frame** on the byte stream is::

    b"A2W1"  u64 body length (big-endian)  body
    body = u32 JSON length, JSON (ASCII), then per array: u64 length, .npy bytes

The reading side refuses any frame whose body is longer than its ``max_bytes`` as soon as the
length is known, before buffering it, so a hostile writer cannot exhaust the reader's memory.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import struct
from typing import Any

import numpy as np

MAGIC = b"A2W1"
FRAME_HEADER = struct.Struct(">4sQ")
JSON_LENGTH = struct.Struct(">I")
ARRAY_LENGTH = struct.Struct(">Q")

DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""Largest frame body either side accepts: ample for the arrays the checks exchange."""

MAX_DEPTH = 64
"""Deepest nesting of lists and dicts a message may have (bounds every recursive walk)."""

MAX_JSON_VALUES = 200_000
"""Most lists, dicts and items the JSON of one message may hold. The bytes of a frame are bounded,
but not what they decode to: 60 MiB of ``[[]],[[]],...`` are 30 million lists, gigabytes once
decoded. The checks' largest replies hold about 500; at this bound a reply decodes to some tens
of MiB at most (strings count as one value each, their size bounded by the frame's)."""

_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')

READ_CHUNK_BYTES = 1 << 20

ARRAY_TAG = "__ndarray__"
FLOAT_TAG = "__float__"
RESERVED_KEYS = frozenset({ARRAY_TAG, FLOAT_TAG})

ALLOWED_DTYPE_KINDS = frozenset("biufcUS")
"""numpy dtype kinds a message may carry: bool, ints, floats, complex, str and bytes."""

_NONFINITE_NAMES = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class WireError(ValueError):
    """A value cannot be sent, or received bytes are not a valid message."""


class FrameTooLarge(WireError):
    """A frame is longer than the reader's (or the sender's) limit."""


# -- encoding ----------------------------------------------------------------------------------


def check_dtype(dtype: np.dtype[Any]) -> None:
    """Refuse dtypes that are not plain numbers, booleans or strings (object, structured, ...)."""
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        raise WireError(f"arrays of dtype {dtype} cannot be sent: only numbers, booleans and "
                        "strings can (convert with np.asarray(x, dtype=float))")
    if dtype.kind not in ALLOWED_DTYPE_KINDS:
        raise WireError(f"arrays of dtype {dtype} (kind {dtype.kind!r}) cannot be sent: only "
                        "numbers, booleans and strings can")


def _encode_float(value: float) -> Any:
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return {FLOAT_TAG: "nan"}
    return {FLOAT_TAG: "inf" if value > 0 else "-inf"}


def _encode_array(array: np.ndarray[Any, Any], arrays: list[bytes]) -> dict[str, int]:
    plain = np.asarray(array)
    check_dtype(plain.dtype)
    buffer = io.BytesIO()
    np.save(buffer, plain, allow_pickle=False)
    arrays.append(buffer.getvalue())
    return {ARRAY_TAG: len(arrays) - 1}


def _encode_tree(value: Any, arrays: list[bytes], depth: int) -> Any:
    """Return ``value`` as JSON-ready data, moving arrays into ``arrays``."""
    if depth > MAX_DEPTH:
        raise WireError(f"a message may nest lists and dicts at most {MAX_DEPTH} deep "
                        "(is there a cycle?)")
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return _encode_float(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return _encode_array(np.asarray(value), arrays)
    if kind is list or kind is tuple:
        return [_encode_tree(item, arrays, depth + 1) for item in value]
    if kind is dict:
        return _encode_dict(value, arrays, depth)
    raise WireError(f"cannot send a {kind.__qualname__}: a message holds only None, bool, int, "
                    "float, str, lists, tuples, dicts with str keys and numpy arrays")


def _encode_dict(value: dict[Any, Any], arrays: list[bytes], depth: int) -> dict[str, Any]:
    for key in value:
        if type(key) is not str:
            raise WireError(f"dict keys must be str to be sent; got the key {key!r:.60} of "
                            f"type {type(key).__qualname__}")
    if len(value) == 1 and next(iter(value)) in RESERVED_KEYS:
        raise WireError(f"a dict whose only key is {next(iter(value))!r} cannot be sent: that "
                        "key is reserved by the wire format")
    return {key: _encode_tree(item, arrays, depth + 1) for key, item in value.items()}


def json_bound(tree: Any) -> float:
    """At most how many bytes the JSON of ``tree`` (as :func:`_encode_tree` returns it) takes:
    a character is at most 12 (a character outside the BMP is two ``\\uXXXX``), an int's digits
    at most a third of its bits plus its sign, a float 24 (``repr``), with quotes, commas, colons
    and brackets counted. A tree this bound keeps under the limit is encoded in one call; any other
    is written piece by piece and refused as soon as it passes the limit."""
    kind = type(tree)
    if kind is str:
        return 12 * len(tree) + 2
    if tree is None or kind is bool:
        return 5
    if kind is int:
        return tree.bit_length() // 3 + 2
    if kind is float:
        return 24
    if kind is list:
        return 2 + sum(json_bound(item) + 1 for item in tree)
    if kind is dict:
        return 2 + sum(12 * len(key) + 4 + json_bound(item) for key, item in tree.items())
    return math.inf        # not a JSON-ready tree: the careful way


def encode_message(value: Any, *, max_bytes: int | None = None) -> bytes:
    """Return the frame (magic, length, body) carrying ``value``.

    Raises :class:`WireError` for a value outside the message types, and
    :class:`FrameTooLarge` when ``max_bytes`` is given and the body exceeds it: the JSON is
    written piece by piece and refused as soon as it passes ``max_bytes``, so a value whose JSON
    would be gigabytes (JSON writes a control character as six bytes) never is in memory whole.
    """
    arrays: list[bytes] = []
    tree = _encode_tree(value, arrays, 0)
    limit = math.inf if max_bytes is None else max_bytes
    frame = bytearray(FRAME_HEADER.size + JSON_LENGTH.size)
    encoder = json.JSONEncoder(allow_nan=False, separators=(",", ":"))
    try:
        if json_bound(tree) <= limit:     # it cannot pass the limit: written at once, in C
            pieces: Any = (encoder.encode(tree),)
        else:
            pieces = encoder.iterencode(tree)
        for piece in pieces:
            frame += piece.encode("ascii")
            if len(frame) - FRAME_HEADER.size > limit:
                raise FrameTooLarge(f"the message is over {max_bytes} bytes (refused while it was written, at "
                                    f"{len(frame) - FRAME_HEADER.size} bytes); the limit is {max_bytes}")
    except ValueError as exc:  # e.g. an int with more digits than int->str allows
        if isinstance(exc, WireError):
            raise
        raise WireError(f"cannot send this value as JSON: {exc}") from None
    JSON_LENGTH.pack_into(frame, FRAME_HEADER.size, len(frame) - FRAME_HEADER.size - JSON_LENGTH.size)
    for blob in arrays:
        if len(frame) - FRAME_HEADER.size + ARRAY_LENGTH.size + len(blob) > limit:
            raise FrameTooLarge(f"the message is over {max_bytes} bytes with its arrays; the limit is {max_bytes}")
        frame += ARRAY_LENGTH.pack(len(blob))
        frame += blob
    FRAME_HEADER.pack_into(frame, 0, MAGIC, len(frame) - FRAME_HEADER.size)
    return bytes(frame)


# -- decoding ----------------------------------------------------------------------------------


def _refuse_constant(name: str) -> Any:
    raise WireError(f"JSON constant {name} is not allowed (non-finite floats use {FLOAT_TAG!r})")


def _read_npy_header(stream: io.BytesIO) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """Parse an .npy header (numpy parses it with a literal parser, never eval)."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(stream)
        if version == (1, 0):
            shape, _fortran, dtype = fmt.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, _fortran, dtype = fmt.read_array_header_2_0(stream)
        else:
            raise WireError(f"unsupported .npy format version {version}")
    except (ValueError, TypeError, SyntaxError) as exc:
        raise WireError(f"invalid array header: {exc}") from None
    return tuple(shape), dtype


def decode_array(blob: bytes | memoryview) -> np.ndarray[Any, Any]:
    """Load one .npy blob after checking its dtype and that its size matches its header."""
    stream = io.BytesIO(blob)
    shape, dtype = _read_npy_header(stream)
    check_dtype(dtype)
    if any(dim < 0 for dim in shape):
        raise WireError(f"invalid array shape {shape}")
    promised = math.prod(shape) * dtype.itemsize
    present = len(blob) - stream.tell()
    if promised != present:
        raise WireError(f"array data is {present} bytes but its header promises {promised}")
    stream.seek(0)
    try:
        array: np.ndarray[Any, Any] = np.load(stream, allow_pickle=False)
        return array
    except ValueError as exc:
        raise WireError(f"invalid array: {exc}") from None


def json_values(header: bytes) -> int:
    """At most how many values (lists, dicts and items) the JSON text ``header`` decodes to,
    counted without decoding it: the commas, brackets and braces outside strings, plus one."""
    def structural(text: bytes) -> int:
        return sum(text.count(char) for char in (b",", b"[", b"{")) + 1

    header = bytes(header)
    count = structural(header)
    if count <= MAX_JSON_VALUES:
        return count  # strings' commas counted too: an upper bound, enough here
    return structural(_JSON_STRING.sub(b'""', header))


def _split_body(body: bytes) -> tuple[bytes, list[memoryview]]:
    if len(body) < JSON_LENGTH.size:
        raise WireError("message body too short")
    (json_length,) = JSON_LENGTH.unpack_from(body, 0)
    position = JSON_LENGTH.size + json_length
    if position > len(body):
        raise WireError("message body shorter than its JSON length")
    view = memoryview(body)
    header = body[JSON_LENGTH.size:position]
    blobs: list[memoryview] = []
    while position < len(body):
        if position + ARRAY_LENGTH.size > len(body):
            raise WireError("truncated array length")
        (length,) = ARRAY_LENGTH.unpack_from(body, position)
        position += ARRAY_LENGTH.size
        if position + length > len(body):
            raise WireError("truncated array data")
        blobs.append(view[position:position + length])
        position += length
    return header, blobs


def _decode_tag(value: dict[str, Any], arrays: list[np.ndarray[Any, Any]]) -> Any:
    (key, item), = value.items()
    if key == ARRAY_TAG:
        if type(item) is not int or not 0 <= item < len(arrays):
            raise WireError(f"array reference {item!r} out of range (the message has "
                            f"{len(arrays)} arrays)")
        return arrays[item]
    if type(item) is not str or item not in _NONFINITE_NAMES:
        raise WireError(f"unknown non-finite float {item!r}")
    return _NONFINITE_NAMES[item]


def _decode_tree(value: Any, arrays: list[np.ndarray[Any, Any]], depth: int) -> Any:
    """``value`` with its tags replaced, in place (a copy would double the memory of a reply)."""
    if depth > MAX_DEPTH:
        raise WireError(f"message nested deeper than {MAX_DEPTH}")
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (list, dict)):
                value[index] = _decode_tree(item, arrays, depth + 1)
        return value
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in RESERVED_KEYS:
            return _decode_tag(value, arrays)
        for key, item in value.items():
            if isinstance(item, (list, dict)):
                value[key] = _decode_tree(item, arrays, depth + 1)
        return value
    return value


def decode_message(body: bytes) -> Any:
    """Return the value carried by a frame body; raise :class:`WireError` if it is invalid,
    without decoding a JSON text of more than :data:`MAX_JSON_VALUES` values."""
    header, blobs = _split_body(body)
    values = json_values(header)
    if values > MAX_JSON_VALUES:
        raise WireError(f"the message's JSON holds {values} values (lists, dicts and items); at most "
                        f"{MAX_JSON_VALUES} are decoded")
    try:
        tree = json.loads(str(header, "ascii"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise WireError(f"invalid JSON header: {type(exc).__name__}: {exc}"[:300]) from None
    except ValueError as exc:  # an int literal longer than int->str allows
        raise WireError(f"invalid JSON header: {exc}"[:300]) from None
    arrays = [decode_array(blob) for blob in blobs]
    return _decode_tree(tree, arrays, 0)


# -- frames on a byte stream -------------------------------------------------------------------


class FrameReader:
    """Split a byte stream into frame bodies, refusing any body longer than ``max_bytes``.

    Feed it bytes as they arrive and pop complete bodies. The length is checked as soon as a
    frame header is in, so at most one over-long header is ever buffered.
    """

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be positive; got {max_bytes}")
        self.max_bytes = max_bytes
        self._buffer = bytearray()

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned by :meth:`pop`."""
        return len(self._buffer)

    def _body_length(self) -> int | None:
        if len(self._buffer) < FRAME_HEADER.size:
            if not MAGIC.startswith(bytes(self._buffer[:len(MAGIC)])):
                raise WireError("stream does not start with a frame (bad magic)")
            return None
        magic, length = FRAME_HEADER.unpack_from(self._buffer, 0)
        if magic != MAGIC:
            raise WireError("stream does not start with a frame (bad magic)")
        if length > self.max_bytes:
            raise FrameTooLarge(f"incoming frame of {length} bytes exceeds the limit of "
                                f"{self.max_bytes} bytes")
        return int(length)

    def feed(self, data: bytes) -> None:
        """Append received bytes; raise :class:`WireError` as soon as the stream is invalid."""
        self._buffer += data
        self._body_length()

    def pop(self) -> bytes | None:
        """Return the next complete frame body, or None if it has not fully arrived."""
        length = self._body_length()
        if length is None or len(self._buffer) < FRAME_HEADER.size + length:
            return None
        end = FRAME_HEADER.size + length
        with memoryview(self._buffer) as view:
            body = bytes(view[FRAME_HEADER.size:end])  # one copy, however large the frame
        if end == len(self._buffer):
            self._buffer = bytearray()  # gives a large frame's buffer back at once
        else:
            del self._buffer[:end]
        return body


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to a blocking file descriptor."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_message(fd: int, reader: FrameReader) -> Any:
    """Block until ``reader`` has a whole frame from ``fd`` and return its decoded value.

    Raises :class:`EOFError` when the stream ends, and :class:`WireError` for invalid data.
    """
    while True:
        body = reader.pop()
        if body is not None:
            return decode_message(body)
        data = os.read(fd, READ_CHUNK_BYTES)
        if not data:
            raise EOFError("the stream ended" + (" inside a frame" if reader.buffered else ""))
        reader.feed(data)
