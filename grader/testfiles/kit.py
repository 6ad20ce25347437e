"""The student kit's copy of a test-file assignment's tests: the visible ones only.

A test file's held-back tests (any visibility but ``visible``) are cut out of its copy (their
decorators, definition and body), a file with no visible test is left out, and the list the kit
grades with (``tests.json``) names the visible tests only; the copy is proven to define none of the
held-back tests before it is written.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from grader import assignment
from grader.run.course_tests import KIT_LIST, TestInfo, collected, kit_list


class TestKitError(RuntimeError):
    """A held-back test would reach the kit."""


def _function_name(test: TestInfo) -> str:
    return test.name.split("[", 1)[0]      # a parametrized test's function


def _defined(tree: ast.Module) -> set[tuple[str | None, str]]:
    found: set[tuple[str | None, str]] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add((None, node.name))
        elif isinstance(node, ast.ClassDef):
            found |= {(node.name, n.name) for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return found


def strip_tests(source: str, drop: set[tuple[str | None, str]]) -> str:
    """``source`` without the functions ``drop`` names as (class or None, function)."""
    tree = ast.parse(source)
    spans: list[tuple[int, int]] = []
    for node in tree.body:
        owners = [(None, node)] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
            [(node.name, n) for n in node.body] if isinstance(node, ast.ClassDef) else []
        for owner, fn in owners:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and (owner, fn.name) in drop:
                start = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
                spans.append((start, fn.end_lineno or fn.lineno))
    lines = source.splitlines(keepends=True)
    for start, end in sorted(spans, reverse=True):
        del lines[start - 1:end]
    out = "".join(lines)
    try:
        left = _defined(ast.parse(out)) & drop
    except SyntaxError as exc:      # e.g. a class left with no body
        raise TestKitError(f"the test file does not parse once its held-back tests are cut ({exc}); keep "
                           "held-back tests in a class or file of their own") from None
    if left:
        raise TestKitError(f"held-back tests {sorted(map(str, left))} are still defined in the kit's copy")
    return out


def stage(target: Path, visible: Iterable[str]) -> list[TestInfo]:
    """Copy the visible tests to ``target`` (with ``tests.json``, their list); the tests shipped."""
    shown = set(visible)
    tests = collected()
    source = Path(assignment.registry().UNTRUSTED)
    target.mkdir(parents=True, exist_ok=True)
    by_file: dict[str, list[TestInfo]] = {}
    for test in tests:
        by_file.setdefault(test.file, []).append(test)
    for path in sorted(source.glob("*.py")):
        mine = by_file.get(path.name, [])
        kept = [t for t in mine if t.id in shown]
        if mine and not kept:
            continue           # only held-back tests: the file stays behind
        text = path.read_text(encoding="utf-8")
        hidden = {(t.cls, _function_name(t)) for t in mine if t.id not in shown}
        kept_names = {(t.cls, _function_name(t)) for t in kept}
        (target / path.name).write_text(strip_tests(text, hidden - kept_names) if hidden else text, encoding="utf-8")
    shipped = [t for t in tests if t.id in shown]
    (target / KIT_LIST).write_text(kit_list(shipped), encoding="utf-8")
    return shipped
