"""The one door from the framework to the assignment it grades.

The framework (everything in grader/) knows no assignment. rubric.yaml names the assignment's
package (``assignment: a2``); that package's ``registry`` module says everything the framework asks
of it: its check modules, its written checkers and reader, its reference, its course environment,
its probes' folder and what its kit ships. Only this module imports it, by that name
(tests/test_static.py enforces it), and this module imports nothing of the framework but its paths.
So another assignment, or next year's version of this one, is a new package plus a rubric, with the
framework untouched. ARCHITECTURE.md draws the whole layout.
"""

from __future__ import annotations

import functools
import importlib
import re
from pathlib import Path
from types import ModuleType

from grader.common import paths

REGISTRY_MODULE = "registry"
"""The module of an assignment package that the framework reads (``a2.registry``)."""
_NAME = re.compile(r"^assignment:\s*([A-Za-z_]\w*)\s*(?:#.*)?$", re.M)


class AssignmentError(RuntimeError):
    """rubric.yaml names no assignment package, or one that cannot be imported."""


def package_name(rubric: Path | None = None) -> str:
    """The assignment package named by ``assignment:`` in ``rubric`` (default: the course's rubric.yaml)."""
    path = rubric or paths.RUBRIC_PATH
    try:
        found = _NAME.search(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AssignmentError(f"cannot read {path}: {exc}") from exc
    if not found:
        raise AssignmentError(f"{path} names no assignment: add a top-level line `assignment: <package>` "
                              "naming the Python package that holds the assignment's checks (e.g. `assignment: a2`)")
    return found.group(1)


@functools.cache
def registry() -> ModuleType:
    """The assignment's registry module (``<package>.registry``), imported once."""
    name = f"{package_name()}.{REGISTRY_MODULE}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name not in (name, package_name()):
            raise
        raise AssignmentError(f"rubric.yaml names the assignment {package_name()!r}, but {name} cannot be imported: "
                              f"install the package that holds it (pip install -e .) or fix the name") from exc


def folder() -> Path:
    """The assignment package's folder."""
    return Path(registry().__file__ or ".").resolve().parent


def untrusted_folder() -> Path:
    """The assignment's probes (its registry's ``UNTRUSTED``): run next to student code with the
    framework's worker (grader/untrusted/), and, like it, importing nothing trusted."""
    return Path(registry().UNTRUSTED)


def student_files() -> tuple[str, ...]:
    """The files a student edits and uploads (``word2vec.py``...), in the assignment's order."""
    return tuple(registry().STUDENT_FILES)


def written_files() -> tuple[str, ...]:
    """The names of the written part's files (``answers.md``...); ``.tex`` files are read too."""
    return tuple(registry().WRITTEN_FILES)


def support_dirs() -> tuple[str, ...]:
    """The template's support folders, which the grader provides (a student's own copy is ignored)."""
    return tuple(registry().SUPPORT_DIRS)
