"""The registry of written checkers: every module listed here registers its checkers.

To add a written check: write a function of (Section, WrittenContext) -> Verdict decorated with
``@written_check("name")`` in one of these modules (or a new one added to CHECKER_MODULES), and
name it on the question's line in rubric.yaml (``checker: name, auto: points``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util

from a2.written.checker_registry import WRITTEN_REGISTRY, WrittenChecker

CHECKER_MODULES = (
    "a2.written.formulas",        # 1(b)(i), 1(e), 3(e)(i), 3(e)(ii)
    "a2.written.outside_cases",   # 1(d): ∂J/∂u_w for w = o and w ≠ o
    "a2.written.scalar_answers",  # 2(b)(i) γ and 3(b) the step count
    "a2.written.transitions",     # 3(a): the configuration table, replayed
    "a2.written.parser_errors",   # 3(f): error types and dependencies
)


def all_written_checkers() -> dict[str, WrittenChecker]:
    """Import every checker module (once) and return the registry."""
    for name in CHECKER_MODULES:
        importlib.import_module(name)
    return WRITTEN_REGISTRY


def written_checker_names() -> dict[str, str]:
    """Every written checker's name and its module, read from the modules' source without importing
    them: a grading's trusted process needs the names only (to check rubric.yaml), and the checker
    modules import SymPy and the LaTeX parser (about 40 MiB), which only the reader process needs.
    tests/test_memory.py checks that the names are the registry's."""
    names: dict[str, str] = {}
    for module in CHECKER_MODULES:
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            raise ImportError(f"the written checker module {module} is not found")
        with open(spec.origin, encoding="utf-8") as source:
            tree = ast.parse(source.read(), spec.origin)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in node.decorator_list:
                    if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name)
                            and decorator.func.id == "written_check" and decorator.args
                            and isinstance(decorator.args[0], ast.Constant)):
                        names[str(decorator.args[0].value)] = module
    return names
