"""The static checks run with the suite, so CI runs them: ruff (pyproject's [tool.ruff]) over the
project's own code, mypy (pyproject's [tool.mypy]) over grader/ and a2/, and the shape of the house
that ARCHITECTURE.md draws: what each part may import (read from its table), no import cycle in
grader/, a2/ and tools/ (tests/import_graph.py), the framework reaching the assignment only through
its registry, what the untrusted folders may import, module sizes, which package starts processes."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO
from import_graph import cycles, describe, import_graph, imports_of, room_graph

from grader.assignment import package_name

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
ASSIGNMENT = REPO / package_name(REPO / "rubric.yaml")
ARCHITECTURE = REPO / "ARCHITECTURE.md"
MAX_MODULE_LINES = 400
#: The process boundary: the only package that starts processes.
BOUNDARY = GRADER / "sandbox"
#: What runs next to student code: the framework's worker and the assignment's probes.
UNTRUSTED = (GRADER / "untrusted", ASSIGNMENT / "untrusted")
#: Modules that start processes, and the names of os (and pty) that do.
PROCESS_MODULES = ("subprocess", "multiprocessing", "concurrent.futures.process")
PROCESS_FUNCTIONS = frozenset({"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp",
                               "spawn", "execv", "execve", "execl", "execle", "execlp", "execlpe", "execvp",
                               "execvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve",
                               "spawnvp", "spawnvpe", "ProcessPoolExecutor"})
#: The trees whose import graph must have no cycle, and their folders of scripts (their files
#: import each other as top-level names: tools/ is no package).
GRAPH_FOLDERS = ["grader", ASSIGNMENT.name, "tools"]
FLAT_FOLDERS = ("tools",)


def source_modules() -> list[Path]:
    return sorted([*GRADER.rglob("*.py"), *ASSIGNMENT.rglob("*.py")])


def graph() -> dict[str, dict[str, list[int]]]:
    return import_graph(REPO, GRAPH_FOLDERS, FLAT_FOLDERS)


# -- ARCHITECTURE.md's table: who may import what -----------------------------------------------

def layout_table(text: str) -> dict[str, set[str]]:
    """ARCHITECTURE.md's table of parts: part path -> the paths it may import ("nothing of ours": none).
    A part is a folder (``grader/run/``) or one module (``grader/cli.py``)."""
    table: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not re.fullmatch(r"`[\w./]+`", cells[0]):
            continue
        table[cells[0].strip("`")] = set(re.findall(r"`([\w./]+)`", cells[3]))
    return table


def part_of(module: str, parts: set[str]) -> str | None:
    """The most specific part holding ``module`` (``grader.run.engine`` -> ``grader/run/``)."""
    path = module.replace(".", "/")
    candidates = [p for p in parts if (p.endswith("/") and (path + "/").startswith(p))
                  or p in (path + ".py", path + "/__init__.py")]
    return max(candidates, key=len) if candidates else None


def layout_violations(edges: dict[str, dict[str, list[int]]], table: dict[str, set[str]]) -> list[str]:
    """Each import of a module of one part from another part that the table does not allow, and each
    module of grader/ or the assignment that no part holds."""
    parts = set(table)
    found = []
    for importer, targets in sorted(edges.items()):
        if importer.split(".")[0] not in ("grader", ASSIGNMENT.name):
            continue
        mine = part_of(importer, parts)
        if mine is None:
            found.append(f"{importer} is in no part of ARCHITECTURE.md's table")
            continue
        for target, lines in sorted(targets.items()):
            theirs = part_of(target, parts)
            if theirs is not None and theirs != mine and theirs not in table[mine]:
                found.append(f"{importer} imports {target} (line {lines[0]}): {mine} may import only "
                             f"{', '.join(sorted(table[mine])) or 'nothing of ours'}")
    return found


def test_architecture_table_names_every_part_and_only_real_ones():
    table = layout_table(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(table) >= 15, "ARCHITECTURE.md's table was not found: its rows are `| `path` | ... | may import |`"
    for part, allowed in table.items():
        assert (REPO / part).exists(), f"ARCHITECTURE.md names {part}, which does not exist"
        assert allowed <= set(table), f"{part} may import {allowed - set(table)}, which is no part of the table"
    folders = {f"{p.relative_to(REPO).as_posix()}/" for p in [*GRADER.iterdir(), *ASSIGNMENT.iterdir()]
               if p.is_dir() and (p / "__init__.py").exists() and p.parent == GRADER}
    assert folders <= set(table), f"folders of grader/ missing from ARCHITECTURE.md: {folders - set(table)}"


def test_every_import_is_one_the_architecture_allows():
    """ARCHITECTURE.md's last column is the rule: the framework imports the assignment only through
    its registry (no row of grader/ lists the assignment), the assignment imports the framework's
    run, reading and boundary but not its commands, kit or class tools, and untrusted/ nothing."""
    table = layout_table(ARCHITECTURE.read_text(encoding="utf-8"))
    g = graph()
    # the graph sees each kind of import on the real tree, or this test proves nothing
    seen = {("a2.checks.model", "a2.checks.helpers.model_params"),                 # from-import
            ("a2.written.process", "a2.written.documents"),                # inside a function
            ("a2.reference", "a2.checks.helpers.dev_parse"),                              # importlib, a written name
            ("a2.checks", "a2.checks.training"),                           # CHECK_MODULES
            ("grader.untrusted.probes", "grader.untrusted.wire"),          # relative
            ("grader.run.engine", "grader.assignment"),
            ("tools.make_class", "tools.class_writeups")}
    assert {(a, b) for a, b in seen if b in g.get(a, {})} == seen
    assert layout_violations(g, table) == []


def test_the_layout_test_catches_planted_imports():
    """The rule on a made-up graph: the framework importing the assignment, the assignment importing
    a command, untrusted code importing trusted code, and a module in no part."""
    table = layout_table(ARCHITECTURE.read_text(encoding="utf-8"))
    a2 = ASSIGNMENT.name
    planted = {"grader.run.engine": {f"{a2}.checks.word2vec": [7], "grader.common.paths": [8]},
               f"{a2}.checks.sgd": {"grader.cli": [3], "grader.run.check_api": [4]},
               "grader.untrusted.worker": {"grader.run.results": [5]},
               "grader.nowhere": {}}
    found = layout_violations(planted, table)
    assert len(found) == 3 + 1, found
    assert any(f"grader.run.engine imports {a2}.checks.word2vec" in f for f in found)
    assert not any("grader.common.paths" in f or "check_api" in f for f in found)


def test_the_framework_reaches_the_assignment_only_through_its_registry():
    """No module of grader/ names the assignment's package in an import; the door imports the
    registry by the name rubric.yaml gives, and imports nothing of the framework but its paths."""
    g = graph()
    into = [(a, b) for a, targets in g.items() if a.startswith("grader") for b in targets
            if b.split(".")[0] == ASSIGNMENT.name]
    assert into == []
    door = GRADER / "assignment.py"
    written = [imp for imp in imports_of(door) if imp.module.startswith(ASSIGNMENT.name)]
    assert written == [], "grader/assignment.py must import the assignment by the rubric's name, not a written one"
    # and the generic test-file assignment (rubric.yaml's tests:), which names no assignment either
    assert set(g["grader.assignment"]) <= {"grader.common.paths", "grader.testfile_registry"}
    calls = [n for n in ast.walk(ast.parse(door.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and n.func.attr == "import_module"]
    assert calls and all(not isinstance(c.args[0], ast.Constant) for c in calls)


def assignment_words() -> set[str]:
    from grader import assignment
    from grader.run.check_api import all_checks

    stems = {name.rsplit(".", 1)[0] for name in assignment.student_files()} - {"run"}   # "run" is a plain word
    return stems | set(all_checks()) | set(assignment.registry().written_checkers()) | set(assignment.written_files())


def framework_mentions(words: set[str]) -> set[tuple[str, str]]:
    """(module, word) for every string or name outside docstrings and comments in grader/ that is, or
    holds as a whole word, one of ``words``."""
    pattern = re.compile(r"(?<![\w.])(" + "|".join(sorted(map(re.escape, words), key=len, reverse=True)) + r")(?![\w])")
    found = set()
    for path in sorted(GRADER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                else node.id if isinstance(node, ast.Name) else None
            if text and (m := pattern.search(text)):
                found.add((path.relative_to(REPO).as_posix(), m.group(1)))
    return found


def test_the_framework_names_nothing_of_this_assignment():
    """No string or name of grader/ (docstrings and comments aside) is one of this assignment's
    student files, check ids, written checkers or written files: those come from its registry."""
    words = assignment_words()
    assert {"word2vec", "parser_errors", "answers.md", "w2v_sigmoid"} <= words
    assert framework_mentions(words) == set()


def test_the_mention_scan_finds_a_planted_name(tmp_path, monkeypatch):
    planted = tmp_path / "grader"
    planted.mkdir()
    (planted / "x.py").write_text('"""Docstrings may say word2vec."""\nCHECKER = "parser_errors"\nword2vec = 1\n')
    monkeypatch.setattr(sys.modules[__name__], "GRADER", planted)
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert framework_mentions({"word2vec", "parser_errors"}) == {("grader/x.py", "parser_errors"), ("grader/x.py", "word2vec")}


def untrusted_problems(folders: tuple[Path, ...], root: Path) -> list[str]:
    """What breaks the rule of the folders copied next to student code (see the test below): an
    import of ours that is not relative, a relative import reaching out of its own folder or naming
    no module of it, two files sharing a name in the worker's one folder."""
    problems = []
    names: dict[str, Path] = {}
    for folder in folders:
        siblings = {path.stem for path in folder.glob("*.py")}
        for path in sorted(folder.glob("*.py")):
            if path.name != "__init__.py":
                if path.name in names:
                    problems.append(f"{path} and {names[path.name]} share a name in the worker's folder")
                names[path.name] = path
            for imp in imports_of(path):
                top = imp.module.split(".")[0]
                ours = top in ("grader", ASSIGNMENT.name) or top in siblings or (root / top).exists()
                outside = imp.level == 1 and (top not in siblings if top else not set(imp.names) <= siblings)
                if imp.level > 1 or (imp.level == 0 and ours) or outside:
                    problems.append(f"{path.relative_to(root)} imports {'.' * imp.level}{imp.module}")
    return problems


def test_untrusted_folders_import_nothing_trusted():
    """The framework's worker and the assignment's probes are copied next to student code into one
    folder: each imports only the standard library, third-party packages and its own folder's
    modules, relatively (the one form that works both in the repository and in the worker's copy,
    the package ``untrusted``); no two of their files share a name."""
    assert untrusted_problems(UNTRUSTED, REPO) == []


def test_untrusted_rule_catches_planted_imports(tmp_path):
    folder, other = tmp_path / "untrusted", tmp_path / "probes"
    folder.mkdir()
    other.mkdir()
    (folder / "probe.py").write_text("import numpy\nfrom grader.run import results\nfrom .other import x\n"
                                     "from . import sib\nfrom . import wire\nfrom ..up import y\n")
    (folder / "sib.py").write_text("")
    (other / "sib.py").write_text("from .sib import z\n")
    assert untrusted_problems((folder, other), tmp_path) == [
        "untrusted/probe.py imports grader.run", "untrusted/probe.py imports .other",
        "untrusted/probe.py imports .", "untrusted/probe.py imports ..up",
        f"{other / 'sib.py'} and {folder / 'sib.py'} share a name in the worker's folder"]


def test_no_module_is_over_the_size_limit():
    """One room per concern: a module over MAX_MODULE_LINES lines holds more than one; split it
    along its concerns, not at an arbitrary line."""
    sizes = {path.relative_to(REPO).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in source_modules()}
    over = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert not over, f"modules over {MAX_MODULE_LINES} lines: {over}"


def test_grader_assignment_and_tools_have_no_import_cycle():
    """No module imports itself through others: at module level, inside a function, by a relative
    import, by importlib with a written name, or through a registry's list (a cycle dodged by an
    import inside a function is still a cycle). Cut a cycle by moving the shared names to where they
    belong, not by hiding the import."""
    g = graph()
    found = cycles(g)
    assert not found, "import cycles:\n" + "\n".join(describe(g, c) for c in found)


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
    g = import_graph(tmp_path, ["pkg", "scripts"], ("scripts",))
    assert cycles(g) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.registry", "pkg.sub"], ["scripts.x", "scripts.y"]]
    assert "pkg.b -> pkg.c (line 2)" in describe(g, ["pkg.a", "pkg.b", "pkg.c"])
    (tmp_path / "scripts/y.py").write_text("Y = 1\n")
    (tmp_path / "pkg/registry.py").write_text("X = 1\n")
    (tmp_path / "pkg/c.py").write_text("import importlib\n\nA = importlib.import_module('pkg.top' + '')\n")
    assert cycles(import_graph(tmp_path, ["pkg", "scripts"], ("scripts",))) == []


# -- rooms: folders without cycles, check modules that hold checks, names said once -----------------
#
# Known exceptions: each names what breaks the rule today, where it is, and when it goes. The test
# fails on any other violation and on an exception that no longer occurs (remove it: the lists
# only shrink).

#: Cycles between rooms (see tests/import_graph.py's room_of) known today.
KNOWN_ROOM_CYCLES: dict[frozenset[str], str] = {}
#: Modules of the assignment's checks/ that register no check (helpers split off by the size cap).
KNOWN_CHECKLESS: dict[str, str] = {}
#: Module names used by more than one module of grader/, the assignment and tools/.
KNOWN_SHARED_NAMES: dict[str, str] = {}


def room_cycles(graph: dict[str, dict[str, list[int]]]) -> dict[frozenset[str], str]:
    """Each cycle between rooms (a folder without sub-folders, or a module at the top of a folder
    that has them), drawn by imports at module level or inside functions alike, in words."""
    rooms = room_graph(graph)
    return {frozenset(c): "; ".join(f"{a} -> {b}: {rooms[a][b][0]}" for a in c for b in c if b in rooms.get(a, {}))
            for c in cycles(rooms)}    # type: ignore[arg-type]


def test_no_folder_imports_itself_through_another():
    """A folder is a room: no cycle between rooms, whether its imports stand at module level or
    inside a function (an import moved into a function to dodge a cycle still draws it)."""
    found = room_cycles(graph())
    new = {c: how for c, how in found.items() if c not in KNOWN_ROOM_CYCLES}
    assert not new, "cycles between folders:\n" + "\n".join(f"{sorted(c)}: {how}" for c, how in new.items())
    gone = set(KNOWN_ROOM_CYCLES) - set(found)
    assert not gone, f"no longer a cycle: remove {[sorted(c) for c in gone]} from KNOWN_ROOM_CYCLES"


def test_the_room_test_catches_a_planted_cycle(tmp_path):
    """Two folders whose modules import each other only across a function-level import (no cycle of
    modules), and a module at the top of the house importing both (no cycle)."""
    files = {"pkg/__init__.py": "", "pkg/top.py": "from pkg.a import x\nfrom pkg.b import y\n",
             "pkg/a/__init__.py": "", "pkg/a/x.py": "from pkg.b import y\n", "pkg/a/z.py": "Z = 1\n",
             "pkg/b/__init__.py": "", "pkg/b/y.py": "def f():\n    from pkg.a import z\n    return z\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    g = import_graph(tmp_path, ["pkg"])
    assert cycles(g) == []                    # the modules draw no cycle ...
    found = room_cycles(g)
    assert list(found) == [frozenset({"pkg.a", "pkg.b"})], found     # ... their folders do
    assert "pkg.b.y -> pkg.a.z (line 2)" in found[frozenset({"pkg.a", "pkg.b"})]
    (tmp_path / "pkg/b/y.py").write_text("def f():\n    from pkg import top\n    return top\n")
    assert room_cycles(import_graph(tmp_path, ["pkg"])) != {}     # through a module at the top, too
    (tmp_path / "pkg/b/y.py").write_text("Y = 1\n")
    assert room_cycles(import_graph(tmp_path, ["pkg"])) == {}


def checkless_modules(folder: Path) -> set[str]:
    """The modules of a checks folder that register no check: no function under ``@check(...)``."""
    found = set()
    for path in sorted(folder.glob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        decorators = [d.func for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      for d in n.decorator_list if isinstance(d, ast.Call)]
        if not any((isinstance(f, ast.Name) and f.id == "check") or (isinstance(f, ast.Attribute) and f.attr == "check")
                   for f in decorators):
            found.add(path.stem)
    return found


def test_every_module_of_checks_registers_a_check():
    """The assignment's checks/ holds check modules only (one per part, each with its @check
    functions); their helpers live elsewhere."""
    found = checkless_modules(ASSIGNMENT / "checks")
    assert found - set(KNOWN_CHECKLESS) == set(), "modules of checks/ that register no check: move them out"
    assert set(KNOWN_CHECKLESS) - found == set(), "these register a check or are gone: remove them from KNOWN_CHECKLESS"


def test_the_checks_rule_catches_a_planted_helper(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "part.py").write_text("from grader.run.check_api import check\n\n\n@check('1.1', files=('a.py',))\n"
                                      "def one(ctx):\n    pass\n")
    (tmp_path / "other.py").write_text("from grader.run import check_api\n\n\n@check_api.check('1.2', files=())\n"
                                       "def two(ctx):\n    pass\n")
    (tmp_path / "helper.py").write_text("def check(x):\n    return x\n\n\n@staticmethod\ndef three():\n    pass\n")
    assert checkless_modules(tmp_path) == {"helper"}


def shared_names(roots: list[Path], repo: Path) -> dict[str, list[str]]:
    """Module file names (``__init__.py`` aside) held by more than one module under ``roots``."""
    where: dict[str, list[str]] = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if path.name != "__init__.py":
                where.setdefault(path.name, []).append(path.relative_to(repo).as_posix())
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def test_no_module_name_is_used_twice():
    """A module's name says what it holds, once in the project: a newcomer who finds
    ``transitions.py`` knows which one is meant."""
    found = shared_names([GRADER, ASSIGNMENT, REPO / "tools"], REPO)
    new = {name: paths for name, paths in found.items() if name not in KNOWN_SHARED_NAMES}
    assert not new, f"module names used twice: {new}; rename one to say what it holds"
    gone = set(KNOWN_SHARED_NAMES) - set(found)
    assert not gone, f"no longer shared: remove {sorted(gone)} from KNOWN_SHARED_NAMES"
    assert all(len(found[name]) == 2 for name in KNOWN_SHARED_NAMES), f"a known shared name gained a module: {found}"


def test_the_name_rule_catches_a_planted_clash(tmp_path):
    for name in ("a/build.py", "b/build.py", "b/__init__.py", "a/__init__.py", "c/show.py", "c/shown.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert shared_names([tmp_path / "a", tmp_path / "b", tmp_path / "c"], tmp_path) == {"build.py": ["a/build.py", "b/build.py"]}


#: Where a command's arguments and options are declared: once, here (grader/cli_options.py).
OPTIONS_MODULE = GRADER / "cli_options.py"
#: What declares one: click's decorators and argparse's method.
DECLARING = frozenset({"option", "argument", "version_option", "help_option", "password_option",
                       "confirmation_option", "add_argument"})
#: Modules of grader/ that declare options elsewhere, known today (the list only shrinks).
KNOWN_OPTION_PLACES = {
    "grader/classroom/similarity_command.py": "`grader similarity`'s --threshold help names the detector's "
                                              "DEFAULT_THRESHOLD (grader/classroom/similarity/detect.py), which "
                                              "grader/cli_options.py (shipped in the kit, importing only the door) "
                                              "cannot import; its four options move there with that constant",
}


def option_places(paths: list[Path], root: Path) -> set[str]:
    """The modules among ``paths`` that declare a command-line argument or option: a call of click's
    option, argument or version_option (``click.option`` or a bare ``option``) or argparse's
    ``add_argument``."""
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                    node.func.id if isinstance(node.func, ast.Name) else ""
                if name in DECLARING:
                    found.add(path.relative_to(root).as_posix())
    return found


def test_options_are_declared_in_one_place():
    """Every argument and option of a command is declared once, in grader/cli_options.py (name, help,
    type, default); a command takes the ones it reads by name."""
    found = option_places([p for p in source_modules() if p != OPTIONS_MODULE], REPO)
    assert found - set(KNOWN_OPTION_PLACES) == set(), "options declared outside grader/cli_options.py: declare them there"
    assert set(KNOWN_OPTION_PLACES) - found == set(), "no longer declares options: remove it from KNOWN_OPTION_PLACES"
    assert option_places([OPTIONS_MODULE], REPO), "the rule no longer sees click.option: fix the test"


def test_the_options_rule_catches_planted_declarations(tmp_path):
    files = {"a.py": "import click\n\n\n@click.option('--x')\ndef f(x):\n    pass\n",
             "b.py": "from click import argument\n\n\n@argument('y')\ndef g(y):\n    pass\n",
             "c.py": "import argparse\n\nargparse.ArgumentParser().add_argument('--z')\n",
             "d.py": "from grader.cli_options import take\n\n\n@take('seed')\ndef h(seed):\n    pass\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert option_places(sorted(tmp_path.glob("*.py")), tmp_path) == {"a.py", "b.py", "c.py"}


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
    outside = {path.relative_to(REPO).as_posix(): starts_processes(path)
               for path in source_modules() if BOUNDARY not in path.parents}
    assert not {name: what for name, what in outside.items() if what}
    assert starts_processes(BOUNDARY / "channel.py"), "the check no longer sees Popen: fix the test"
