"""Where the worker's own Python would import the grader or the assignment from, so that the sandbox
hides it.

Hiding the running checkout and the course repository is not enough: a Python environment can map
``grader`` or ``a2`` anywhere else (a virtual environment with the grader installed editable from
another checkout: its ``__editable__`` finder or ``.pth`` file points there; a ``PYTHONPATH`` baked
into a ``.pth``). So the worker's Python itself is asked, once per interpreter, where
:func:`importlib.util.find_spec` finds those packages with the worker's own flags and environment
(site on, no user site, no working folder), and every such folder is hidden from student code:
the checkout that holds it when that is not part of the Python installation (it holds the
solution and the answer keys next to the package), else the package folder alone, covered after
the installation is bound back. The untrusted files the sandbox copies into the worker's private
folder are not packages of those names, and stay.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from grader import assignment
from grader.sandbox.limits import worker_environment

QUERY_TIMEOUT_S = 60.0
_QUERY = """\
import importlib.util, json, sys
sys.path[:] = [p for p in sys.path if p not in ("", ".")]
found = []
for name in sys.argv[1:]:
    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        continue
    if spec is not None:
        found += list(spec.submodule_search_locations or ()) or [spec.origin or ""]
print(json.dumps([p for p in found if p and p not in ("built-in", "frozen")]))
"""


def trusted_packages() -> tuple[str, ...]:
    """The packages student code must not import: the framework and the assignment."""
    try:
        return ("grader", assignment.package_name())
    except assignment.AssignmentError:
        return ("grader",)


@functools.cache
def import_locations(python: str, names: tuple[str, ...], env: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The real folders (or module files) from which ``python``, started as the worker starts,
    imports any of ``names``; raises RuntimeError when the interpreter cannot be asked."""
    try:
        done = subprocess.run([python, "-s", "-B", "-c", _QUERY, *names], cwd="/", env=dict(env),
                              capture_output=True, text=True, timeout=QUERY_TIMEOUT_S, check=False)
        found = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        raise RuntimeError(f"cannot ask {python} where it imports {', '.join(names)} from: {exc}") from None
    if not isinstance(found, list):
        raise RuntimeError(f"cannot ask {python} where it imports {', '.join(names)} from: {done.stderr[-500:]}")
    return tuple(dict.fromkeys(os.path.realpath(p) for p in found if isinstance(p, str)))


def locations_for(python: str) -> tuple[str, ...]:
    """:func:`import_locations` for the worker's Python (started with the worker's environment);
    a command that is not a Python (a shell that may start one) asks the grader's own Python."""
    env = tuple(sorted(worker_environment(Path("/")).items()))
    names = trusted_packages()
    try:
        return import_locations(os.path.abspath(python), names, env)
    except RuntimeError:
        if os.path.realpath(python) == os.path.realpath(sys.executable):
            raise
        return import_locations(sys.executable, names, env)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def to_hide(locations: Sequence[str], installation: Sequence[str]) -> tuple[list[str], list[str]]:
    """(hide, cover): folders to cover before the installation is bound back (a checkout outside
    it, whole), and package folders inside the installation, covered after it is bound back."""
    hide: list[str] = []
    cover: list[str] = []
    for location in locations:
        if os.path.isdir(location) or Path(location).stem == "__init__":
            package = location if os.path.isdir(location) else os.path.dirname(location)
        elif any(_inside(location, folder) for folder in installation):
            continue  # a one-file module inside the installation: no folder of its own to cover
        else:
            package = location  # a one-file module elsewhere: its folder is hidden below
        parent = os.path.dirname(package)
        if any(_inside(package, folder) for folder in installation):
            cover.append(package)
        elif parent != "/" and not any(_inside(parent, folder) for folder in installation):
            hide.append(parent)
        elif os.path.isdir(package):
            hide.append(package)
    return hide, cover
