#!/usr/bin/env python
"""Write a submission in which every function of every file loops forever.

    python tools/loop_forever.py --out /tmp/loops

The student template's files (student_template/), each function's and method's body replaced
by an endless loop (its docstring kept); answers.md is the template's. Grading it waits out
every check's timeout, which per-check timeouts alone do not bound: the grading's time budget
(rubric.yaml's ``budget``) must, and bench/gradescope.py and tests/test_budget.py grade it.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from a2.registry import STUDENT_FILES, WRITTEN_FILES  # noqa: E402
from grader.common.paths import TEMPLATE_DIR  # noqa: E402


class _Loops(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:  # ast's name
        docstring = node.body[:1] if ast.get_docstring(node) is not None else []
        loop = ast.parse("while True:\n    pass").body
        node.body = docstring + loop
        return node


def looping(source: str) -> str:
    """``source`` with every function's body an endless loop."""
    tree = _Loops().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def write(out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    for name in STUDENT_FILES:
        (out / name).write_text(looping((TEMPLATE_DIR / name).read_text(encoding="utf-8")), encoding="utf-8")
    for name in WRITTEN_FILES:      # the template's written file(s): answers.md; answers.txt is a student's choice
        if (TEMPLATE_DIR / name).is_file():
            shutil.copyfile(TEMPLATE_DIR / name, out / name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder to write (made if missing)")
    args = parser.parse_args(argv)
    print(write(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
