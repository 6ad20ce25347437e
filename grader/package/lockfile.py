"""The image's pinned requirements: ``gradescope/requirements.lock``, read and checked.

The lock is resolved for the grading image (Linux x86_64, Python 3.11: IMAGE_PYTHON), not read
from the machine that builds the zip, by ``tools/lock_requirements.py`` (uv's resolver run for that
platform; it needs the network). It pins every runtime dependency of pyproject.toml and all of
theirs, torch's included, with torch itself as PyTorch's CPU build (``torch==X+cpu``, installed
by setup.sh from PyTorch's CPU index). Its header records the requirement lines it was resolved
from; :func:`lock_problems` compares them, and the pins, with pyproject.toml, so that the two
cannot drift apart without ``grader package`` (and the tests) saying so.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

LOCK_PATH = Path("gradescope") / "requirements.lock"
#: The image the lock is resolved for: setup.sh's Python and Gradescope's platform.
IMAGE_PYTHON = "3.11"
IMAGE_PLATFORM = "x86_64-manylinux_2_28"
#: The local version label of PyTorch's CPU build (its CPU index serves ``torch==X+cpu``).
TORCH_LOCAL = "cpu"
#: The header line that records what the lock was resolved from.
INPUT_PREFIX = "# input: "
REGENERATE = "regenerate it: .venv/bin/pip install -e '.[package]' && .venv/bin/python tools/lock_requirements.py"


class LockError(RuntimeError):
    """The lock cannot be read."""


@dataclass(frozen=True)
class Lock:
    inputs: tuple[str, ...]           # the requirement lines it was resolved from
    pins: dict[str, Version]          # canonical name -> pinned version
    lines: tuple[str, ...]            # the ``name==version`` lines, in order


def runtime_requirements(pyproject: Path) -> list[Requirement]:
    """``[project].dependencies`` of ``pyproject``: what the image installs."""
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        return [Requirement(line) for line in project.get("dependencies", [])]
    except (OSError, KeyError, tomllib.TOMLDecodeError, InvalidRequirement) as exc:
        raise LockError(f"{pyproject}: cannot read [project].dependencies ({exc})") from None


def read_lock(path: Path) -> Lock:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LockError(f"{path}: cannot read the lock ({exc.strerror}); {REGENERATE}") from None
    inputs: list[str] = []
    pins: dict[str, Version] = {}
    lines: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip() if not raw.startswith("#") else ""
        if raw.startswith(INPUT_PREFIX):
            inputs.append(raw[len(INPUT_PREFIX):].strip())
        if not line:
            continue
        try:
            req = Requirement(line)
            [spec] = list(req.specifier)
            if spec.operator != "==":
                raise ValueError
            pins[canonicalize_name(req.name)] = Version(spec.version)
        except (InvalidRequirement, InvalidVersion, ValueError):
            raise LockError(f"{path}, line {number}: {line!r} is not an exact pin (name==version); "
                            f"{REGENERATE}") from None
        lines.append(line)
    return Lock(tuple(inputs), pins, tuple(lines))


def lock_problems(pyproject: Path, lock_path: Path) -> list[str]:
    """Where the lock and pyproject.toml disagree (empty when they agree)."""
    try:
        requirements = runtime_requirements(pyproject)
        lock = read_lock(lock_path)
    except LockError as exc:
        return [str(exc)]
    problems = []
    wanted = sorted(str(r) for r in requirements)
    if sorted(lock.inputs) != wanted:
        gone = sorted(set(lock.inputs) - set(wanted))
        new = sorted(set(wanted) - set(lock.inputs))
        problems.append(f"{lock_path} was resolved from other requirements than pyproject.toml's "
                        f"[project].dependencies (only in the lock: {gone or 'none'}; only in pyproject: "
                        f"{new or 'none'}); {REGENERATE}")
    for req in requirements:
        name = canonicalize_name(req.name)
        version = lock.pins.get(name)
        if version is None:
            problems.append(f"{lock_path} does not pin {req.name}, which pyproject.toml requires; {REGENERATE}")
        elif not req.specifier.contains(version, prereleases=True):
            problems.append(f"{lock_path} pins {req.name}=={version}, outside pyproject.toml's {req}; {REGENERATE}")
        elif name == "torch" and version.local != TORCH_LOCAL:
            problems.append(f"{lock_path} pins torch=={version}, not PyTorch's CPU build (torch==X+{TORCH_LOCAL}); "
                            f"{REGENERATE}")
    return problems
