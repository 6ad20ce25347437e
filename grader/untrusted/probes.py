"""The probes a worker can run: small functions that call student code and return plain data.

Runs next to untrusted student code; never imported by the trusted process except wire.py
(the one exception is ``grader.sandbox.InProcessRunner``, which exists to run code known to be
safe, such as the reference, without a process boundary).

A probe is called with the request's ``args`` as keyword arguments and returns plain data.
Whatever student code returns is turned into plain data here, in the worker, by
:func:`to_plain` (the worker applies it to every probe's result as well); anything that cannot
be is an :class:`UnsupportedValue` error naming the function and the type it returned.
Register a probe with ``@probe("name")`` or ``register(mapping)``; :data:`PROBES` is the one
registry the worker looks names up in. The assignment's probes are its own modules named
``probes_*.py`` (:data:`PROBE_PREFIX`), loaded here.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from . import wire

Probe = Callable[..., Any]

PROBES: dict[str, Probe] = {}
"""Every probe the worker can run, by name."""


class UnsupportedValue(TypeError):
    """Student code returned something that cannot be turned into plain data."""


class BadRequest(ValueError):
    """The grader sent a probe arguments it does not accept (a grader bug)."""


def register(probes: dict[str, Probe]) -> None:
    """Add ``probes`` (name -> function) to :data:`PROBES`; a name may be registered once."""
    for name, function in probes.items():
        if name in PROBES:
            raise ValueError(f"probe {name!r} is registered twice")
        PROBES[name] = function


def probe(name: str) -> Callable[[Probe], Probe]:
    """Register the decorated function in :data:`PROBES` under ``name``."""
    def decorate(function: Probe) -> Probe:
        register({name: function})
        return function
    return decorate


# -- turning student values into plain data ----------------------------------------------------


def _plain_array(value: np.ndarray[Any, Any], what: str, where: str) -> np.ndarray[Any, Any]:
    array = np.array(value, copy=True, subok=False)  # a base-class copy: no subclass behaviour
    try:
        wire.check_dtype(array.dtype)
    except wire.WireError:
        raise UnsupportedValue(f"{what} returned an array of dtype {array.dtype}{where}; "
                               "expected numbers") from None
    return array


def _tensor_to_numpy(value: Any, what: str, where: str) -> np.ndarray[Any, Any]:
    try:
        array = value.detach().cpu().numpy()
    except (TypeError, RuntimeError) as exc:
        raise UnsupportedValue(f"{what} returned a tensor that numpy cannot hold{where} "
                               f"({exc}); expected a float tensor") from None
    return _plain_array(array, what, where)


def _is_tensor(value: Any) -> bool:
    torch = sys.modules.get("torch")  # never import torch just to look
    tensor_type = getattr(torch, "Tensor", None)
    return isinstance(tensor_type, type) and isinstance(value, tensor_type)


def to_plain(value: Any, *, what: str = "the function", path: str = "", depth: int = 0) -> Any:
    """Return ``value`` as wire data: arrays, numbers, str, None, lists and str-keyed dicts.

    Subclasses become their base type (so no student ``__eq__`` survives), numpy scalars become
    0-d arrays, tuples become lists and torch tensors become arrays (only if student code has
    imported torch). Raise :class:`UnsupportedValue` for anything else, naming ``what`` and where
    in the value the problem is.
    """
    where = f" at {path}" if path else ""
    if depth > wire.MAX_DEPTH:
        raise UnsupportedValue(f"{what} returned a value nested deeper than {wire.MAX_DEPTH}"
                               f"{where}; is there a cycle?")
    if value is None or isinstance(value, bool):  # bool cannot be subclassed
        return value
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return _plain_array(np.asarray(value), what, where)
    if _is_tensor(value):
        return _tensor_to_numpy(value, what, where)
    if isinstance(value, (list, tuple)):
        return [to_plain(item, what=what, path=f"{path}[{index}]", depth=depth + 1)
                for index, item in enumerate(value)]
    if isinstance(value, dict):
        return _plain_dict(value, what, path, depth)
    raise UnsupportedValue(f"{what} returned {type(value).__qualname__}{where}; "
                           "expected an array or a number")


def _plain_dict(value: dict[Any, Any], what: str, path: str, depth: int) -> dict[str, Any]:
    plain: dict[str, Any] = {}
    for key, item in dict.items(value):
        if not isinstance(key, str):
            raise UnsupportedValue(f"{what} returned a dict with a {type(key).__qualname__} key"
                                   f"{' at ' + path if path else ''}; expected str keys")
        key = str.__str__(key)
        plain[key] = to_plain(item, what=what, path=f"{path}[{key!r}]", depth=depth + 1)
    if len(plain) == 1 and next(iter(plain)) in wire.RESERVED_KEYS:
        raise UnsupportedValue(f"{what} returned a dict whose only key is reserved")
    return plain


# -- generic probes ----------------------------------------------------------------------------


def _resolve(root: Any, dotted: str) -> Any:
    target = root
    for part in dotted.split("."):
        target = getattr(target, part)
    return target


def _require(value: Any, kind: type, name: str) -> None:
    if not isinstance(value, kind):
        raise BadRequest(f"probe argument {name!r} must be a {kind.__name__}; got {value!r:.80}")


@probe("ping")
def ping(*, echo: Any = None) -> dict[str, Any]:
    """Return ``echo`` unchanged and the worker's pid: proves the channel works."""
    return {"echo": echo, "pid": os.getpid()}


@probe("import_module")
def import_module(*, module: str, attributes: list[str] | None = None) -> dict[str, Any]:
    """Import ``module``; report which of ``attributes`` it lacks and what it offers.

    Returns ``{"missing": [names], "callables": [public callable names, sorted]}``. An import
    failure (syntax error, missing file, exception at import) is the probe's error.
    """
    _require(module, str, "module")
    namespace = vars(importlib.import_module(module))
    missing = [str(name) for name in attributes or [] if name not in namespace]
    callables = sorted(name for name, value in namespace.items()
                       if isinstance(name, str) and not name.startswith("_") and callable(value))
    return {"missing": missing, "callables": callables}


@probe("call")
def call(*, module: str, function: str, args: list[Any] | None = None,
         kwargs: dict[str, Any] | None = None) -> Any:
    """Import ``module``, call ``function`` (a dotted path) on ``args`` and ``kwargs``, and
    return its result converted by :func:`to_plain`."""
    _require(module, str, "module")
    _require(function, str, "function")
    target = _resolve(importlib.import_module(module), function)
    result = target(*(args or []), **(kwargs or {}))
    return to_plain(result, what=f"{module}.{function}")


# -- the checks' probe modules -----------------------------------------------------------------

PROBE_PREFIX = "probes_"
"""The assignment's probe modules are the files named ``probes_*.py`` in this package's folders: the
sandbox copies the framework's worker and the assignment's untrusted/ into one folder; in the
repository the trusted process adds the assignment's folder to ``grader.untrusted.__path__``. Each
one's ``PROBES`` dict (name -> function) joins the registry."""


def probe_modules() -> list[str]:
    """The names of the probe modules this package holds (``probes_word2vec``...), sorted."""
    folders = getattr(sys.modules[__package__ or ""], "__path__", [])
    return sorted({name[:-3] for folder in folders for name in os.listdir(folder)
                   if name.startswith(PROBE_PREFIX) and name.endswith(".py")})


_LOADED: set[str] = set()


def load_probe_modules() -> None:
    """Register the probes of every probe module not registered yet: at import, and again in the
    trusted process's in-process runner, which adds the assignment's folder to ``__path__`` (perhaps
    after this module was first imported)."""
    for name in probe_modules():
        if name not in _LOADED:
            _LOADED.add(name)
            register(importlib.import_module(f".{name}", __package__).PROBES)


load_probe_modules()
