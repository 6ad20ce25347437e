"""The static checks run with the suite, so CI runs them: ruff (pyproject's [tool.ruff]) over the
project's own code, mypy (pyproject's [tool.mypy]) over grader/, and the shape of the house: module
sizes, what untrusted/ may import, no import cycle in grader/ and tools/ (tests/import_graph.py),
which package starts processes."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO
from import_graph import cycles, describe, import_graph, imports_of

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


def test_the_worker_package_imports_nothing_of_the_trusted_grader():
    """grader/untrusted/ is copied next to student code: it imports only itself, the standard
    library and third-party packages. It imports its siblings relatively, the one form that works
    both in the repository (grader.untrusted) and in the worker's copy (the package ``untrusted``,
    where no ``grader`` exists)."""
    siblings = {path.stem for path in UNTRUSTED.glob("*.py")}
    problems = []
    for path in sorted(UNTRUSTED.glob("*.py")):
        for imp in imports_of(path):
            module, level = imp.module, imp.level
            top = module.split(".")[0]
            if level > 1 or (level == 0 and (top == "grader" or top in siblings or (GRADER / top).exists())):
                problems.append(f"{path.name} imports {'.' * level}{module}")
    assert not problems, problems


#: The trees whose import graph must have no cycle, and their folders of scripts (their files
#: import each other as top-level names: tools/ is no package, the worker's copy of untrusted/ is flat).
GRAPH_FOLDERS = ["grader", "tools"]
FLAT_FOLDERS = ("tools", "grader/untrusted")


def test_grader_and_tools_have_no_import_cycle():
    """No module of grader/ or tools/ imports itself through others: at module level, inside a
    function, by a relative import, by importlib with a written name, or through a registry's list
    (a cycle dodged by an import inside a function is still a cycle). Cut a cycle by moving the
    shared names to where they belong, not by hiding the import."""
    graph = import_graph(REPO, GRAPH_FOLDERS, FLAT_FOLDERS)
    # the graph sees each kind of import on the real tree, or this test proves nothing
    seen = {("a2.checks.model", "a2.checks.model_params"),      # from-import
            ("a2.written.process", "a2.written.documents"),      # inside a function
            ("a2.reference", "a2.dev_parse"),                    # importlib, a written name
            ("a2.checks", "a2.checks.training"),                 # CHECK_MODULES
            ("grader.untrusted.probes", "grader.untrusted.wire"),         # a sibling, top-level
            ("tools.make_class", "tools.class_writeups")}
    assert {(a, b) for a, b in seen if b in graph.get(a, {})} == seen
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(describe(graph, c) for c in found)


def test_the_cycle_test_catches_a_planted_cycle(tmp_path):
    """A synthetic package whose cycle runs through each kind of import, and a folder of scripts."""
    files = {"pkg/__init__.py": "",
             "pkg/a.py": "from pkg import b\n",
             "pkg/b.py": "def f():\n    from . import c\n    return c\n",
             "pkg/c.py": "import importlib\n\nA = importlib.import_module('pkg.a')\n",
             "pkg/top.py": "from pkg.a import b\n",   # imports the cycle, is not in it
             "pkg/sub/__init__.py": "from ..registry import X\n",
             "pkg/registry.py": "CHECK_MODULES = ('pkg.sub',)\nX = 1\n",
             "scripts/x.py": "import numpy\nfrom y import Y\n",
             "scripts/y.py": "Y = 1\n\n\ndef g():\n    import x\n    return x\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(tmp_path, ["pkg", "scripts"], ("scripts",))
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.registry", "pkg.sub"], ["scripts.x", "scripts.y"]]
    assert "pkg.b -> pkg.c (line 2)" in describe(graph, ["pkg.a", "pkg.b", "pkg.c"])
    (tmp_path / "scripts/y.py").write_text("Y = 1\n")
    (tmp_path / "pkg/registry.py").write_text("X = 1\n")
    (tmp_path / "pkg/c.py").write_text("import importlib\n\nA = importlib.import_module('pkg.top' + '')\n")
    assert cycles(import_graph(tmp_path, ["pkg", "scripts"], ("scripts",))) == []


def starts_processes(path: Path) -> list[str]:
    """What in ``path`` can start a process: process modules imported, and os/pty calls."""
    found = []
    for imp in imports_of(path):
        module, level, names = imp.module, imp.level, imp.names
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
