"""The reference solution, imported into the trusted process to compute expected values.

Student code never runs in this process, so the assignment's module names (``word2vec``,
``utils``...) here always mean the reference. Whatever those names meant in sys.modules
before (e.g. in the test suite) is restored after loading.
"""

from __future__ import annotations

import functools
import importlib
import sys
from pathlib import Path
from types import SimpleNamespace

from grader.paths import REFERENCE_DIR

MODULES = ("word2vec", "sgd", "parser_transitions", "parser_model", "run",
           "utils.utils", "utils.gradcheck", "utils.parser_utils", "utils.word2vec_data")
_TOP_LEVEL = {name.split(".")[0] for name in MODULES}


def _owned(name: str) -> bool:
    return name.split(".")[0] in _TOP_LEVEL


@functools.cache
def load_reference(root: Path = REFERENCE_DIR) -> SimpleNamespace:
    """Import every module of ``root``; attribute names are the last part (``ref.parser_utils``)."""
    saved = {name: mod for name, mod in sys.modules.items() if _owned(name)}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    argv = sys.argv
    try:
        sys.argv = ["run.py"]
        modules = {name.split(".")[-1]: importlib.import_module(name) for name in MODULES}
    finally:
        sys.argv = argv
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if _owned(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
    return SimpleNamespace(**modules)
