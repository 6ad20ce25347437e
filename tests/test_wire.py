"""The wire codec both sides of the process boundary speak (grader/untrusted/wire.py): values,
frames and what is refused before it is decoded."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grader.untrusted import wire

# -- wire --------------------------------------------------------------------------------------


def round_trip(value: Any) -> Any:
    reader = wire.FrameReader()
    reader.feed(wire.encode_message(value))
    body = reader.pop()
    assert body is not None and reader.buffered == 0
    return wire.decode_message(body)


@pytest.mark.parametrize("array", [
    np.linspace(-1, 1, 12).reshape(3, 4),
    np.arange(10, dtype=np.float32),
    np.arange(-5, 5, dtype=np.int64),
    np.arange(7, dtype=np.int32),
    np.arange(255, dtype=np.uint8),
    np.array([True, False, True]),
    np.array([1 + 2j, -3j]),
    np.array(["ROOT", "parsed", "this"]),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    np.arange(20.0).reshape(4, 5)[::2, 1::2],
    np.array(3.5),
    np.zeros((0, 3)),
    np.array([np.nan, np.inf, -np.inf, -0.0]),
], ids=lambda array: f"{array.dtype}-{array.shape}")
def test_arrays_round_trip_with_dtype_shape_and_values(array: np.ndarray) -> None:
    back = round_trip({"x": array})["x"]
    assert type(back) is np.ndarray and back.dtype == array.dtype and back.shape == array.shape
    assert np.array_equal(back, array, equal_nan=array.dtype.kind in "fc")
    assert back.flags.writeable


def test_nested_values_round_trip_and_tuples_become_lists() -> None:
    value = {"a": [1, 2.5, None, True, "é\u2603", {"deep": [[[]]]}], "b": (1, (2, 3)),
             "big": 10**30, "neg_zero": -0.0}
    assert round_trip(value) == {**value, "b": [1, [2, 3]]}
    assert str(round_trip(-0.0)) == "-0.0"


def test_non_finite_floats_round_trip() -> None:
    back = round_trip([float("nan"), float("inf"), float("-inf")])
    assert np.isnan(back[0]) and back[1] == np.inf and back[2] == -np.inf


def test_numpy_scalars_travel_as_zero_d_arrays_keeping_their_dtype() -> None:
    back = round_trip([np.float32(0.25), np.int16(3), np.bool_(True)])
    assert [(item.shape, item.dtype) for item in back] == [
        ((), np.float32), ((), np.int16), ((), np.bool_)]


@pytest.mark.parametrize(("value", "fragment"), [
    (np.array([object(), 1], dtype=object), "dtype object"),
    (np.zeros(2, dtype=[("a", "f8")]), "cannot be sent"),
    (np.array(["2024-01-01"], dtype="datetime64[D]"), "kind 'M'"),
    ({1, 2}, "cannot send a set"),
    ({1: "x"}, "keys must be str"),
    ({"__ndarray__": 0}, "reserved"),
    (object(), "cannot send a object"),
])
def test_encode_refuses_what_it_cannot_carry(value: Any, fragment: str) -> None:
    with pytest.raises(wire.WireError, match=fragment):
        wire.encode_message(value)


def test_encode_refuses_cycles_and_deep_nesting() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(wire.WireError, match="nest"):
        wire.encode_message(cycle)


def body_with(header: Any, *blobs: bytes, raw_json: bytes | None = None) -> bytes:
    text = raw_json if raw_json is not None else json.dumps(header).encode()
    parts = [wire.JSON_LENGTH.pack(len(text)), text]
    for blob in blobs:
        parts += [wire.ARRAY_LENGTH.pack(len(blob)), blob]
    return b"".join(parts)


def test_decode_refuses_object_arrays_without_unpickling(tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"

    class Trap:
        def __reduce__(self) -> tuple[Any, ...]:
            return (Path.touch, (marker,))

    buffer = io.BytesIO()
    np.save(buffer, np.array([Trap()], dtype=object), allow_pickle=True)
    with pytest.raises(wire.WireError, match="dtype object"):
        wire.decode_message(body_with({"__ndarray__": 0}, buffer.getvalue()))
    assert not marker.exists()  # unpickling the array would have created it


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


@pytest.mark.parametrize(("body", "fragment"), [
    (b"\x00", "too short"),
    (body_with(None, raw_json=b"[NaN]"), "NaN is not allowed"),
    (body_with(None, raw_json=b"[" * 100_000 + b"]" * 100_000), "invalid JSON|nested"),
    (body_with(None, raw_json=b"\xff"), "invalid JSON"),
    (body_with({"__ndarray__": 1}, npy(np.ones(2))), "out of range"),
    (body_with({"__ndarray__": True}, npy(np.ones(2))), "out of range"),
    (body_with({"__float__": "lots"}), "unknown non-finite"),
    (body_with({"__ndarray__": 0}, npy(np.ones(4))[:-8]), "promises"),
    (body_with({"__ndarray__": 0}, npy(np.ones(4)) + b"\x00" * 8), "promises"),
    (body_with({"__ndarray__": 0}, b"not an npy file"), "invalid array header"),
    (body_with([])[:-1] + b"\x00\x00", "truncated"),
])
def test_decode_refuses_malformed_bodies(body: bytes, fragment: str) -> None:
    with pytest.raises(wire.WireError, match=fragment):
        wire.decode_message(body)


def test_huge_array_header_is_refused_before_allocating() -> None:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (10**13,)})
    with pytest.raises(wire.WireError, match="promises"):
        wire.decode_message(body_with({"__ndarray__": 0}, buffer.getvalue() + b"\x00" * 8))


def json_body(text: bytes) -> bytes:
    return wire.JSON_LENGTH.pack(len(text)) + text


def test_a_reply_that_would_decode_to_too_many_values_is_refused_before_decoding() -> None:
    n = wire.MAX_JSON_VALUES
    with pytest.raises(wire.WireError, match=f"at most {n} are decoded"):
        wire.decode_message(json_body(b"[" + b"[[]]," * (n // 2) + b"[]]"))
    with pytest.raises(wire.WireError, match="values"):  # strings count once each
        wire.decode_message(json_body(b'["' + b'a","' * n + b'"]'))
    # Commas, brackets and braces inside strings are not values: a long message still decodes.
    text = 'x, [y], {"z"}: \\ \" ' * n
    assert wire.decode_message(json_body(json.dumps({"message": text}).encode())) == {"message": text}
    nested = {"a": [[1, 2], {"b": [3, np.arange(2)]}], "c": [float("nan")]}
    decoded = wire.decode_message(wire.encode_message(nested)[wire.FRAME_HEADER.size:])
    assert decoded["a"][0] == [1, 2] and np.array_equal(decoded["a"][1]["b"][1], np.arange(2))
    assert np.isnan(decoded["c"][0])


def test_frame_reader_refuses_oversized_frames_from_the_header_alone() -> None:
    reader = wire.FrameReader(max_bytes=1000)
    with pytest.raises(wire.FrameTooLarge, match="exceeds the limit of 1000"):
        reader.feed(wire.FRAME_HEADER.pack(wire.MAGIC, 10 * 2**30))
    with pytest.raises(wire.FrameTooLarge):
        wire.encode_message(np.zeros(2000), max_bytes=1000)


def test_frame_reader_refuses_bad_magic_at_once() -> None:
    with pytest.raises(wire.WireError, match="bad magic"):
        wire.FrameReader().feed(b"junk")


def test_frame_reader_reassembles_frames_split_anywhere() -> None:
    frames = wire.encode_message({"a": np.arange(5)}) + wire.encode_message([1, "two"])
    reader = wire.FrameReader()
    bodies = []
    for byte in frames:
        reader.feed(bytes([byte]))
        body = reader.pop()
        if body is not None:
            bodies.append(wire.decode_message(body))
    assert len(bodies) == 2 and bodies[1] == [1, "two"]
    assert np.array_equal(bodies[0]["a"], np.arange(5))


# -- writing a message at once or piece by piece ------------------------------------------------

def _random_tree(rnd: Any, depth: int = 0) -> Any:
    kind = rnd.randrange(7 if depth < 4 else 4)
    if kind == 0:
        return "".join(rnd.choice("ab\"\\\n\x00é😀\u2028") for _ in range(rnd.randrange(8)))
    if kind == 1:
        return rnd.choice([None, True, False])
    if kind == 2:
        return rnd.randrange(-10 ** rnd.randrange(40), 10 ** rnd.randrange(40) + 1)
    if kind == 3:
        return rnd.choice([0.1, -1e-300, 1.7976931348623157e308, 5e-324, 1.23456789e15, -0.0, float("nan")])
    if kind in (4, 5):
        return [_random_tree(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    return {"".join(rnd.choice("k😀\"") for _ in range(rnd.randrange(4))): _random_tree(rnd, depth + 1)
            for _ in range(rnd.randrange(4))}


def test_json_bound_is_never_below_the_json_written() -> None:
    """A tree under the bound is written in one call, unchecked on the way: the bound must hold
    for every character, int and float (astral characters take 12 bytes, ints a third of their bits)."""
    import random

    rnd = random.Random(7)
    for _ in range(5000):
        tree = wire._encode_tree(_random_tree(rnd), [], 0)
        written = len(json.dumps(tree, allow_nan=False, separators=(",", ":")))
        assert written <= wire.json_bound(tree), tree


def test_a_message_is_the_same_bytes_written_at_once_or_piece_by_piece() -> None:
    """With max_bytes just at its size the message is written piece by piece (its bound is over
    the limit), without a limit at once: both frames are the same bytes, and one byte less is refused."""
    import random

    rnd = random.Random(8)
    pieced = 0
    for _ in range(2000):
        value = _random_tree(rnd)
        whole = wire.encode_message(value)
        size = len(whole) - wire.FRAME_HEADER.size
        tree = wire._encode_tree(value, [], 0)
        if wire.json_bound(tree) > size:
            pieced += 1
        assert wire.encode_message(value, max_bytes=size) == whole
        with pytest.raises(wire.FrameTooLarge):
            wire.encode_message(value, max_bytes=size - 1)
    assert pieced > 1000          # most were written piece by piece: both ways are compared


def test_a_message_under_its_bound_but_over_the_limit_is_still_refused() -> None:
    with pytest.raises(wire.FrameTooLarge):
        wire.encode_message({"text": "x" * 1000}, max_bytes=500)
