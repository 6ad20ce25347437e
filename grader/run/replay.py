"""Record the reference's answers once, replay them without the reference (the student kit).

Checks reach the reference only through ``ctx.ref``. At kit-build time ``RecordingRef`` wraps the
real reference modules: every attribute read and call that a check makes is keyed by what was
asked (the path, the arguments' exact values, and the state of the object asked) and its answer
is stored as plain data. In the kit, ``ReplayRef`` answers the same questions from that table,
with no reference code anywhere. Instances are drawn from ``ctx.rng`` (a function of the seed and
the check id), so on a recorded seed a check asks exactly the recorded questions; a question the
table lacks (one that depends on the student's own output) raises ``ReplayMiss``, which the
engine reports as "judged by the full grader only" instead of guessing.

Values cross as JSON: ndarrays and tensors as dtype, shape and raw bytes (never pickle); objects
that are not plain data (a PartialParse, a ParserModel, a bound method) stay behind a handle whose
key changes with every call or assignment made through it (a call may change its object).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import numpy as np

Table = dict[str, Any]


class ReplayMiss(Exception):
    """The kit holds no recorded answer for this question (it depends on the student's output)."""


class NotPlain(Exception):
    """A value that cannot be stored as plain data (it stays behind a handle)."""


def _array(arr: np.ndarray) -> list[Any]:
    arr = np.asarray(arr, order="C")  # ascontiguousarray would make a 0-d array 1-d
    if arr.dtype.hasobject:
        raise NotPlain("object array")
    return [arr.dtype.str, list(arr.shape), base64.b64encode(arr.tobytes()).decode("ascii")]


def _from_array(spec: list[Any]) -> np.ndarray:
    dtype, shape, data = spec
    return np.frombuffer(base64.b64decode(data), dtype=np.dtype(dtype)).reshape(shape).copy()


def _is_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "detach") and hasattr(value, "numpy")


def encode(value: Any, *, args: bool = False) -> Any:
    """Plain, JSON-ready form of ``value``; NotPlain if it has none (``args``: describe objects
    that are not plain by their type and attributes, for keys only)."""
    if isinstance(value, _Handle):
        return {"h": value._key}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return {"i": str(value)}
    if isinstance(value, float):
        return {"f": value.hex()}
    if isinstance(value, np.generic):
        return {"g": _array(np.asarray(value))}
    if isinstance(value, np.ndarray):
        return {"a": _array(value)}
    if _is_tensor(value):
        return {"T": _array(value.detach().cpu().numpy())}
    if isinstance(value, list):
        return {"l": [encode(v, args=args) for v in value]}
    if isinstance(value, tuple):
        return {"t": [encode(v, args=args) for v in value]}
    if isinstance(value, dict):
        return {"d": [[encode(k, args=args), encode(v, args=args)] for k, v in value.items()]}
    if args and hasattr(value, "__dict__"):
        return {"o": [type(value).__qualname__, encode(dict(vars(value)), args=True)]}
    raise NotPlain(type(value).__name__)


def decode(data: Any) -> Any:
    if data is None or isinstance(data, (bool, str)):
        return data
    (tag, body), = data.items()
    if tag == "i":
        return int(body)
    if tag == "f":
        return float.fromhex(body)
    if tag == "g":
        return _from_array(body)[()]
    if tag == "a":
        return _from_array(body)
    if tag == "T":
        import torch  # noqa: PLC0415 - only model checks record tensors

        return torch.from_numpy(_from_array(body))
    if tag == "l":
        return [decode(v) for v in body]
    if tag == "t":
        return tuple(decode(v) for v in body)
    if tag == "d":
        return {decode(k): decode(v) for k, v in body}
    raise ValueError(f"unknown tag {tag!r} in the kit's recorded data")


def _digest(*parts: Any) -> str:
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


class _Root:
    """The state of one object behind handles: advances with each call or assignment through it."""

    def __init__(self, state: str, *, frozen: bool = False) -> None:
        self.state, self.frozen = state, frozen

    def advance(self, *parts: Any) -> None:
        if not self.frozen:  # a module's functions are taken as pure: keys do not depend on call order
            self.state = _digest(self.state, *parts)


class _Handle:
    """A value of the reference that is not plain data, as a check sees it."""

    def __init__(self, book: _Book, root: _Root, path: tuple[str, ...], real: Any) -> None:
        object.__setattr__(self, "_book", book)
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_real", real)

    @property
    def _key(self) -> str:
        return _digest(self._root.state, self._path)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        key = _digest(self._root.state, self._path, "get", name)
        return self._book.answer(key, lambda: getattr(self._real, name),
                                 lambda real: _Handle(self._book, self._root, (*self._path, name), real))

    def __setattr__(self, name: str, value: Any) -> None:
        if self._real is not None:
            setattr(self._real, name, _unwrap(value))
        self._root.advance(self._path, "set", name, encode(value, args=True))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        asked = encode([list(args), kwargs], args=True)
        key = _digest(self._root.state, self._path, "call", asked)
        answer = self._book.answer(key, lambda: self._real(*map(_unwrap, args),
                                                           **{k: _unwrap(v) for k, v in kwargs.items()}),
                                   lambda real: _Handle(self._book, _Root(key), ("()",), real))
        self._root.advance(self._path, "call", asked)
        return answer


def _unwrap(value: Any) -> Any:
    if isinstance(value, _Handle):
        return value._real
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_unwrap(v) for v in value)
    return value


class _Book:
    """The table of one check and seed: filled while recording, read while replaying."""

    def __init__(self, table: Table | None = None, *, recording: bool) -> None:
        self.table: Table = {} if table is None else table
        self.recording = recording
        self.conflicts: set[str] = set()

    def answer(self, key: str, compute: Any, wrap: Any) -> Any:
        if not self.recording:
            if key not in self.table or self.table[key] == "conflict":
                raise ReplayMiss(key)
            stored = self.table[key]
            return wrap(None) if stored == "handle" else decode(stored)
        real = compute()
        try:
            stored = encode(real)
        except NotPlain:
            stored = "handle"
        if key in self.table and self.table[key] != stored:
            self.conflicts.add(key)
            self.table[key] = "conflict"
        elif key not in self.conflicts:
            self.table[key] = stored
        return wrap(real) if stored == "handle" else real


class _Namespace:
    """``ctx.ref``: one handle per reference module (``ctx.ref.word2vec``...)."""

    kit = False
    #: True while recording for the kit and in the kit: a check asks only what the kit may hold
    #: (the dropout check never asks for its scale there: it is written question 2(b)(i)'s answer).
    for_kit = False

    def __init__(self, book: _Book, modules: dict[str, Any]) -> None:
        self._book = book
        for name, module in modules.items():
            setattr(self, name, _Handle(book, _Root(name, frozen=True), (name,), module))


class RecordingRef(_Namespace):
    """The real reference behind handles, recording every answer into ``self.table``."""

    for_kit = True

    def __init__(self, reference: Any) -> None:
        super().__init__(_Book(recording=True), dict(vars(reference)))

    @property
    def table(self) -> Table:
        return self._book.table


class ReplayRef(_Namespace):
    """The recorded answers of one check and seed, with no reference behind them (the kit)."""

    kit = True
    for_kit = True

    def __init__(self, table: Table, modules: tuple[str, ...]) -> None:
        super().__init__(_Book(table, recording=False), dict.fromkeys(modules))
