"""Which lines of a code file are the student's: those between the course's region marks
(``### YOUR CODE HERE`` ... ``### END YOUR CODE``), and, in a function the template gives a
region to, the lines outside its marks when the student wrote the function's code there.

Whatever lies outside the marks is starter code of some quarter, which students keep (older
docstrings and tests), so it is not compared. But real students also write a function's code
above its marks, or delete one function's marks and keep the others' (2 of 12 public solutions
read for issue 36 did): that code would never be compared, and moving a copied function out of
its marks would hide it. So a function that the template marks and whose own marked lines hold
no code is the student's as a whole (its starter lines are still removed by the base).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

#: The course's marks around the code a student writes (and the reference's).
REGION_START = re.compile(r"^\s*#+\s*(YOUR CODE HERE|BEGIN SOLUTION)\b", re.I)
REGION_END = re.compile(r"^\s*#+\s*(END YOUR CODE|END SOLUTION)\b", re.I)


def student_regions(lines: Sequence[str]) -> list[bool] | None:
    """Which lines lie between the course's region marks, or None when the file has none (a
    student who deleted them: then every line that is not starter code counts)."""
    inside, marked, out = False, False, []
    for line in lines:
        if REGION_START.match(line):
            inside = marked = True
        elif REGION_END.match(line):
            inside = False
        out.append(inside)
    return out if marked else None


def _functions(text: str) -> dict[str, tuple[int, int]]:
    """``Class.method`` or ``function`` -> (first, last) line index of each top-level function and
    method of ``text``; {} when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, tuple[int, int]] = {}
    for node in tree.body:
        inner = node.body if isinstance(node, ast.ClassDef) else [node]
        prefix = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
        for fn in inner:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[prefix + fn.name] = (fn.lineno - 1, (fn.end_lineno or fn.lineno) - 1)
    return found


def marked_functions(text: str) -> frozenset[str]:
    """The functions of a template file that hold a region mark."""
    lines = text.splitlines()
    return frozenset(name for name, (first, last) in _functions(text).items()
                     if any(REGION_START.match(line) for line in lines[first:last + 1]))


def written_elsewhere(text: str, regions: list[bool], has_code: Sequence[bool], marked: frozenset[str]) -> list[bool]:
    """The lines of each function in ``marked`` whose lines inside the marks hold no code
    (``has_code``: the line holds code that is not starter code): the student wrote it outside."""
    out = [False] * len(regions)
    for name, (first, last) in _functions(text).items():
        span = range(first, min(last, len(regions) - 1) + 1)
        if name in marked and not any(regions[i] and has_code[i] for i in span):
            for i in span:
                out[i] = True
    return out
