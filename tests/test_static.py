"""The static checks run with the suite, so CI runs them: ruff (pyproject's [tool.ruff]) over the
project's own code, and mypy (pyproject's [tool.mypy]) over grader/."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

BIN = Path(sys.executable).parent


def run_tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    tool = BIN / name if (BIN / name).exists() else shutil.which(name)
    assert tool, f"{name} is not installed: pip install -e '.[test]'"
    return subprocess.run([str(tool), *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    result = run_tool("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing():
    result = run_tool("mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout + result.stderr


# -- the shape of the house --------------------------------------------------------------------

GRADER = REPO / "grader"
MAX_MODULE_LINES = 400
#: The process boundary: the only package of grader/ that starts processes.
BOUNDARY = GRADER / "sandbox"
UNTRUSTED = GRADER / "untrusted"
#: Modules that start processes, and the names of os (and pty) that do.
PROCESS_MODULES = ("subprocess", "multiprocessing", "concurrent.futures.process")
PROCESS_FUNCTIONS = frozenset({"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp",
                               "spawn", "execv", "execve", "execl", "execle", "execlp", "execlpe", "execvp",
                               "execvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve",
                               "spawnvp", "spawnvpe", "ProcessPoolExecutor"})


def grader_modules() -> list[Path]:
    return sorted(GRADER.rglob("*.py"))


def test_no_module_of_the_grader_is_over_the_size_limit():
    """One room per concern: a module over MAX_MODULE_LINES lines holds more than one; split it
    along its concerns, not at an arbitrary line."""
    sizes = {path.relative_to(GRADER).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in grader_modules()}
    over = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert not over, f"modules over {MAX_MODULE_LINES} lines: {over}"


def imports_of(path: Path) -> list[tuple[str, int, list[str]]]:
    """(module, relative level, imported names) of every import statement of ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level, [alias.name for alias in node.names]))
    return found


def test_the_worker_package_imports_nothing_of_the_trusted_grader():
    """grader/untrusted/ is copied next to student code: it imports only itself, the standard
    library and third-party packages. It imports its siblings relatively, the one form that works
    both in the repository (grader.untrusted) and in the worker's copy (the package ``untrusted``,
    where no ``grader`` exists)."""
    siblings = {path.stem for path in UNTRUSTED.glob("*.py")}
    problems = []
    for path in sorted(UNTRUSTED.glob("*.py")):
        for module, level, _names in imports_of(path):
            top = module.split(".")[0]
            if level > 1 or (level == 0 and (top == "grader" or top in siblings or (GRADER / top).exists())):
                problems.append(f"{path.name} imports {'.' * level}{module}")
    assert not problems, problems


def starts_processes(path: Path) -> list[str]:
    """What in ``path`` can start a process: process modules imported, and os/pty calls."""
    found = []
    for module, level, names in imports_of(path):
        if level == 0 and (module in PROCESS_MODULES or module.split(".")[0] in PROCESS_MODULES):
            found.append(f"imports {module}")
        if level == 0 and module in ("os", "pty", "concurrent.futures") and set(names) & PROCESS_FUNCTIONS:
            found.append(f"imports {sorted(set(names) & PROCESS_FUNCTIONS)} from {module}")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Attribute) and node.attr in PROCESS_FUNCTIONS
                and isinstance(node.value, ast.Name) and node.value.id in ("os", "pty", "futures")):
            found.append(f"uses {node.value.id}.{node.attr} (line {node.lineno})")
    return found


def test_only_the_boundary_package_starts_processes():
    """Everything that starts, confines or kills a process is in grader/sandbox/, so that a
    security review reads one folder (the batch's grading processes included)."""
    outside = {path.relative_to(GRADER).as_posix(): starts_processes(path)
               for path in grader_modules() if BOUNDARY not in path.parents}
    assert not {name: what for name, what in outside.items() if what}
    assert starts_processes(BOUNDARY / "channel.py"), "the check no longer sees Popen: fix the test"
