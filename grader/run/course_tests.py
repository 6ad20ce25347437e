"""The tests of a test-file assignment, collected once, and the rubric lines they make.

Collected by pytest in the sandbox, on the reference (trusted code: the instructor's), with the
worker's ``collect_tests`` probe; in the student kit, read from the list the kit was built with. A
submission never takes part: what a test is worth and who sees it cannot depend on student code.
:func:`rubric_entries` turns them into rubric.yaml's part and check entries, each decorator giving
its field and a rubric line on the same id overriding any of them.
"""

from __future__ import annotations

import ast
import difflib
import functools
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grader import assignment
from grader.common import paths

KIT_LIST = "tests.json"
"""The kit's list of its (visible) tests, beside their files."""
COLLECT_TIMEOUT_S = 120.0
_NUMBER = re.compile(r"^[0-9]+(\.[0-9]+)*$")


class TestFilesError(assignment.AssignmentError):
    """The test files cannot be collected on the reference: the instructor's error, with pytest's words."""


@dataclass(frozen=True)
class TestInfo:
    """One collected test: its id (``file.py::Class::name``), what its decorators say, and the
    student files its test file imports (imported before it runs: a file that cannot be imported
    costs exactly the tests that need it)."""

    id: str
    file: str
    name: str
    doc: str = ""
    cls: str | None = None
    weight: float | None = None
    visibility: str | None = None
    number: str | None = None
    tags: tuple[str, ...] = ()
    leaderboard: str | None = None
    order: str | None = None
    hide_errors: str | None = None
    partial: bool = False
    files: tuple[str, ...] = ()

    @property
    def part(self) -> str:
        """The part a test belongs to: its file's name without ``.py``."""
        return self.file[:-3]


def _imported_files(source: Path, student: tuple[str, ...]) -> tuple[str, ...]:
    """The student files a test file imports (read with ast, never run)."""
    modules = {name[:-3]: name for name in student if name.endswith(".py")}
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return ()
    found: list[str] = []
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        found += [modules[n.split(".")[0]] for n in names if n.split(".")[0] in modules]
    return tuple(dict.fromkeys(found))


def _info(raw: dict[str, Any], files: tuple[str, ...]) -> TestInfo:
    weight = raw.get("weight")
    tags = raw.get("tags")
    return TestInfo(
        id=str(raw["id"]), file=str(raw["file"]), name=str(raw["name"]), doc=str(raw.get("doc") or ""),
        cls=raw.get("cls"), weight=float(weight) if isinstance(weight, (int, float)) and not isinstance(weight, bool) else None,
        visibility=raw.get("visibility") if isinstance(raw.get("visibility"), str) else None,
        number=str(raw["number"]) if raw.get("number") is not None else None,
        tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
        leaderboard=raw.get("leaderboard") if isinstance(raw.get("leaderboard"), str) else None,
        order=raw.get("order") if isinstance(raw.get("order"), str) else None,
        hide_errors=raw.get("hide_errors") if isinstance(raw.get("hide_errors"), str) else None,
        partial=bool(raw.get("partial")), files=files)


def collect(folder: Path, reference: Path) -> list[TestInfo]:
    """The tests of ``folder``, collected by pytest on ``reference`` in the sandbox."""
    from grader.sandbox import Sandbox  # noqa: PLC0415 - the kit reads its list instead

    student = tuple(assignment.student_files())
    sandbox = Sandbox(reference)
    try:
        result = sandbox.call("collect_tests", {}, timeout=COLLECT_TIMEOUT_S)
    finally:
        sandbox.close()
    if result.status != "ok" or not isinstance(result.value, dict):
        detail = result.error.message if result.error else result.status
        raise TestFilesError(f"the tests of {folder} could not be collected on {reference} ({detail}); "
                             f"run pytest --collect-only there to see why. Output: {result.stderr[-1500:]}")
    value = result.value
    if value.get("errors"):
        first = value["errors"][0]
        raise TestFilesError(f"{first.get('file')} cannot be collected on the reference ({reference}); fix the test "
                             f"file or the reference:\n{first.get('message')}")
    return [_info(raw, _imported_files(folder / str(raw["file"]), student)) for raw in value.get("tests", [])]


@functools.cache
def collected() -> tuple[TestInfo, ...]:
    """Every test of the course: collected once a process (in the kit: its list)."""
    folder = Path(assignment.registry().UNTRUSTED)
    if paths.IN_KIT:
        raw = json.loads((folder / KIT_LIST).read_text(encoding="utf-8"))
        return tuple(TestInfo(**{**entry, "tags": tuple(entry["tags"]), "files": tuple(entry["files"])}) for entry in raw)
    tests = collect(folder, paths.REFERENCE_DIR)
    if not tests:
        raise TestFilesError(f"{folder} holds no test (files test_*.py or *_test.py with unittest classes or "
                             "test functions); add them or fix rubric.yaml's tests:")
    return tuple(tests)


def kit_list(tests: list[TestInfo]) -> str:
    """The kit's list of ``tests``, as :func:`collected` reads it there."""
    return json.dumps([asdict(t) for t in tests], indent=1)


def _numbers(tests: tuple[TestInfo, ...], overrides: dict[str, dict[str, Any]], data: dict[str, Any]) -> dict[str, str]:
    """Each test's number: the rubric line's, else ``@number``'s, else the next free one of its file
    (``<file's place>.<test's place>``, after the numbers the rubric's other lines use), so that
    Gradescope orders them as the files do."""
    ids = {t.id for t in tests}
    others = [str(e.get("number")) for key in ("parts", "checks") for e in data.get(key) or []
              if isinstance(e, dict) and str(e.get("id")) not in ids and _NUMBER.match(str(e.get("number")))]
    first = max((int(n.split(".")[0]) for n in others), default=0)
    given = {t.id: str(overrides.get(t.id, {}).get("number", t.number or "")) for t in tests}
    taken = {n for n in given.values() if n}
    files = list(dict.fromkeys(t.file for t in tests))
    counters = dict.fromkeys(files, 0)
    for t in tests:
        if not given[t.id]:
            while True:
                counters[t.file] += 1
                number = f"{first + files.index(t.file) + 1}.{counters[t.file]}"
                if number not in taken:
                    break
            given[t.id] = number
            taken.add(number)
    return given


def rubric_entries(data: dict[str, Any], tests: tuple[TestInfo, ...]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(parts, checks) of the tests as rubric.yaml entries: a check per test, ``@weight`` its points
    (else ``tests: {points: N}``, else 0), ``@visibility``, ``@number`` (else its file's next one),
    ``@partial_credit``, ``@tags`` and ``@leaderboard`` as the decorators say, its name the first
    line of its docstring (else its id); every key of a rubric line on the same id wins. A part per
    test file, worth its tests' points (a part of that id in rubric.yaml wins)."""
    settings: dict[str, Any] = data["tests"] if isinstance(data.get("tests"), dict) else {}
    default_points = settings.get("points", 0)
    overrides = {str(c.get("id")): c for c in data.get("checks") or [] if isinstance(c, dict)}
    numbers = _numbers(tests, overrides, data)
    checks = []
    for t in tests:
        entry: dict[str, Any] = {
            "id": t.id, "part": t.part, "number": numbers[t.id],
            "name": f"{t.doc} [{t.name.split('[', 1)[1]}" if t.doc and "[" in t.name else t.doc or t.id,
            "points": t.weight if t.weight is not None else default_points,
            "partial": t.partial, "tags": list(t.tags)}
        if t.visibility is not None:
            entry["visibility"] = t.visibility
        if t.leaderboard is not None:
            entry["leaderboard"] = t.leaderboard
        entry.update(overrides.get(t.id, {}))
        checks.append(entry)
    listed = {p.get("id") for p in data.get("parts") or [] if isinstance(p, dict)}
    parts = []
    for file in dict.fromkeys(t.file for t in tests):
        part = file[:-3]
        if part not in listed:
            files = sorted({f for t in tests if t.file == file for f in t.files})
            points = sum(c["points"] for c in checks if c["part"] == part and isinstance(c["points"], (int, float)))
            parts.append({"id": part, "kind": "code", "points": points, "name": file, "files": files})
    return parts, checks


def with_tests(data: dict[str, Any], part_lines: list[int], check_lines: list[int],
               problems: list[str]) -> tuple[dict[str, Any], list[int], list[int]]:
    """rubric.yaml's ``data`` with a part per test file and a check per test (:func:`rubric_entries`),
    and the line of each entry (0: made from a test file); a rubric line naming no test is a problem."""
    tests = collected()
    parts, checks = rubric_entries(data, tests)
    known = sorted(t.id for t in tests)
    written = list(zip(check_lines, data.get("checks") or []))
    beside = [(line, c) for line, c in written if "assignment" in data and isinstance(c, dict) and str(c.get("id")) not in known]
    for line, entry in written:       # beside an assignment package, its own checks' lines stay as they are
        if (line, entry) not in beside and (not isinstance(entry, dict) or str(entry.get("id")) not in known):
            cid = entry.get("id") if isinstance(entry, dict) else entry
            close = difflib.get_close_matches(str(cid), known, n=1, cutoff=0.6) or known
            problems.append(f"line {line}: check {cid!r} is no test of the test files; a test's id is "
                            f"file.py::Class::method or file.py::function (did you mean {close[0]!r}?)")
    lines = {str(c.get("id")): line for line, c in written if isinstance(c, dict)}
    data = {**data, "parts": [*(data.get("parts") or []), *parts], "checks": [*(c for _, c in beside), *checks]}
    return data, [*part_lines, *[0] * len(parts)], [*(line for line, _ in beside), *(lines.get(c["id"], 0) for c in checks)]
