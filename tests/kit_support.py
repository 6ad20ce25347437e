"""What the kit's tests look for: every line of the reference's solutions, and the grader's own
correct PartialParse/minibatch_parse (a2/arcstandard.py)."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

from grader.common import paths
from grader.package.template import MD_BEGIN, MD_END, PY_BEGIN, PY_END

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "<!-- BEGIN SOLUTION -->", "<!-- END SOLUTION -->")
#: Lines shorter than this say nothing about a solution (``return x``, ``else:``, ``)``).
MIN_CHARS = 12
#: Solution lines the kit's own code may hold, each with why it gives nothing away.
GIVEN_IN_PROSE = {
    # the terminal state, as the starter's minibatch_parse docstring states it ("empty buffer,
    # stack of size 1"); the worker's scripted model needs it to know when a parse is done
    "return len(pp.buffer) == 0 and len(pp.stack) == 1",
    # PyTorch's one way to backpropagate; the gradient probe calls it on the student's own model
    "loss.backward()",
    # the signature of that terminal-state test, which the worker's probes define for themselves
    "def finished(pp: Any) -> bool:",
    # the loop of PartialParse.parse, which the starter gives whole; the 3(a) trace probe runs
    # the student's parse_step over a transition list the same way
    "for t in transitions:",
}


def _regions(text: str, begin, end) -> tuple[list[str], list[str]]:
    inside, outside, on = [], [], False
    for line in text.splitlines():
        if begin.match(line):
            on = True
        elif end.match(line):
            on = False
        elif line.strip():
            (inside if on else outside).append(line.strip())
    return inside, outside


def solution_lines() -> set[str]:
    """Lines inside the solution markers of reference/*.py and answers.md that are not also
    given to students (outside any region, or in the template), and long enough to mean something."""
    inside: set[str] = set()
    given: set[str] = set()
    for path in sorted(paths.REFERENCE_DIR.glob("*.py")):
        sol, rest = _regions(path.read_text(encoding="utf-8"), PY_BEGIN, PY_END)
        inside.update(sol)
        given.update(rest)
    sol, rest = _regions((paths.REFERENCE_DIR / "answers.md").read_text(encoding="utf-8"), MD_BEGIN, MD_END)
    inside.update(sol)
    given.update(rest)
    for path in paths.TEMPLATE_DIR.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".md"):
            given.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return {line for line in inside - given - GIVEN_IN_PROSE if len(line) >= MIN_CHARS}


def _given_lines() -> set[str]:
    given: set[str] = set()
    for path in paths.TEMPLATE_DIR.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".md"):
            given.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return given


def arcstandard_lines() -> set[str]:
    """The code lines of the grader's correct arc-standard parser (not its docstrings or comments)."""
    text = (Path(paths.REPO_ROOT) / "a2" / "arcstandard.py").read_text(encoding="utf-8")
    lines = _code_lines(text)
    return lines - _given_lines() - GIVEN_IN_PROSE


def solution_hits(zip_path: Path) -> list[str]:
    """Every (file, line) of the zip that holds a solution line, an arc-standard line or a marker."""
    wanted = solution_lines() | arcstandard_lines()
    return [f"{name}:{number}: {line}" for name, number, line in _zip_lines(zip_path)
            if line in wanted or any(marker in line for marker in MARKERS)]


def _zip_lines(zip_path: Path) -> Iterator[tuple[str, int, str]]:
    """(file, line number, stripped line) of every text file of the zip."""
    with zipfile.ZipFile(zip_path) as zf:
        for name in zf.namelist():
            try:
                text = zf.read(name).decode("utf-8")
            except UnicodeDecodeError:
                continue
            for number, raw in enumerate(text.splitlines(), start=1):
                yield name, number, raw.strip()


def _code_lines(node_source: str) -> set[str]:
    """Code lines (no docstrings, comments or short lines) of a piece of source."""
    lines, in_doc = set(), False
    quotes = ('"""', "'''")
    for raw in node_source.splitlines():
        line = raw.strip()
        if in_doc:
            in_doc = not line.endswith(quotes)
            continue
        if line.startswith(quotes):
            in_doc = not (len(line) > 3 and line.endswith(quotes))
            continue
        if not line or line.startswith(("#", "from ", "import ")) or len(line) < MIN_CHARS:
            continue
        lines.add(line)
    return lines


def solution_math_code() -> tuple[set[str], set[str]]:
    """The names of the grader's solution-derived functions (a2/solution_math.py) and the code
    lines of those functions and of every region the kit strips (grader.kit.assemble.KIT_STRIPPED), found
    here from the repository's sources by their own parse, minus lines that the kit's modules hold
    outside those regions anyway or that the starter files hold (generic lines such as
    ``if got is None:``)."""
    import ast

    from grader.kit import assemble as kit

    package = Path(paths.REPO_ROOT)
    math_source = (package / "a2" / "solution_math.py").read_text(encoding="utf-8")
    names = {n.name for n in ast.parse(math_source).body if isinstance(n, ast.FunctionDef)}
    regions: set[str] = set()
    for n in ast.parse(math_source).body:
        if isinstance(n, ast.FunctionDef):
            regions |= _code_lines(ast.get_source_segment(math_source, n) or "")
    elsewhere: set[str] = set()
    stripped_by_kit = kit.kit_stripped()
    for rel in kit.kit_modules():
        source = (package / rel).read_text(encoding="utf-8")
        stubs, emptied = stripped_by_kit.get(rel, ({}, {}))
        for n in ast.parse(source).body:
            segment = ast.get_source_segment(source, n) or ""
            targets = [t.id for t in (n.targets if isinstance(n, ast.Assign) else
                                      [n.target] if isinstance(n, ast.AnnAssign) else [])
                       if isinstance(t, ast.Name)]
            stripped = (isinstance(n, ast.FunctionDef) and n.name in stubs) or any(t in emptied for t in targets)
            (regions if stripped else elsewhere).update(_code_lines(segment))
    return names, regions - elsewhere - _given_lines()


def solution_math_hits(zip_path: Path) -> list[str]:
    """Every (file, line) of the zip that defines a solution_math function or holds a code line of
    the grader's solution-derived math (see solution_math_code)."""
    names, lines = solution_math_code()
    defines = tuple(f"def {name}(" for name in names)
    return [f"{name}:{number}: {line}" for name, number, line in _zip_lines(zip_path)
            if line in lines or line.startswith(defines)]
