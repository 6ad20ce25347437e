"""The reference solution, imported into the trusted process to compute expected values.

Student code never runs in this process, so the assignment's module names (``word2vec``,
``utils``...) here always mean the reference. Whatever those names meant in sys.modules
before (e.g. in the test suite) is restored after loading (a2/tree_import.py).

The modules that import torch (``parser_model``, ``run``, ``utils.parser_utils``) are imported on
first use: torch costs ~200 MiB in every process that imports it, and only the dev parse of
``train_uas`` needs it here, so a grading's trusted process holds torch only after training
(bench/gradescope.py measures the sum over the grading's processes).
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from a2.tree_import import MODULES, import_from
from grader.common.paths import REFERENCE_DIR

#: Names of ``ctx.ref`` that are the grader's, not the reference's: a2/solution_math.py.
GRADER_MODULES = ("grader_math",)
#: Imported when first used (they import torch).
LAZY = ("parser_model", "run", "utils.parser_utils")


class Reference(SimpleNamespace):
    """The reference's modules by their last name (``ref.parser_utils``); see :data:`LAZY`."""

    def __init__(self, root: Path) -> None:
        super().__init__(**import_from(root, tuple(m for m in MODULES if m not in LAZY)))
        self._root = root
        # The grader's own solution-derived math, reached like the reference (never in the kit).
        self.grader_math = importlib.import_module("a2.solution_math")

    def __getattr__(self, name: str) -> Any:  # called only for names not loaded yet
        if name == "dev_parse":  # 5.9's hidden dev set and trusted parse (a2/checks/helpers/dev_parse.py, never in the kit)
            module = importlib.import_module("a2.checks.helpers.dev_parse")
            setattr(self, name, module)
            return module
        full = next((m for m in LAZY if m.split(".")[-1] == name), None)
        if full is None:
            raise AttributeError(f"the reference has no module {name!r}")
        module = import_from(self._root, (full,))[name]
        setattr(self, name, module)
        return module


@functools.cache
def load_reference(root: Path = REFERENCE_DIR) -> Reference:
    """The reference's modules; those of :data:`LAZY` are imported on first use."""
    return Reference(root)
