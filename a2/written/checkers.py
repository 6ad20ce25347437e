"""The registry of written checkers: every module listed here registers its checkers.

To add a written check: write a function of (Section, WrittenContext) -> Verdict decorated with
``@written_check("name")`` in one of these modules (or a new one added to CHECKER_MODULES), and
name it on the question's line in rubric.yaml (``checker: name, auto: points``).
"""

from __future__ import annotations

import importlib

from a2.written.registry import WRITTEN_REGISTRY, WrittenChecker

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
