"""Importing the modules of a course tree (the reference's) into the trusted process by the names
students' files have (``word2vec``, ``utils.parser_utils``...), leaving sys.modules and sys.path as
they were: whatever those names meant before (e.g. in the test suite) is restored after.

a2/reference.py loads the reference with it, and a2/checks/helpers/dev_parse.py the reference's
parser_utils with numpy standing in for torch.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

#: The modules of the reference (and of every course tree), by their import names.
MODULES = ("word2vec", "sgd", "parser_transitions", "parser_model", "run",
           "utils.utils", "utils.gradcheck", "utils.parser_utils")
_TOP_LEVEL = {name.split(".")[0] for name in MODULES}


def _owned(name: str) -> bool:
    return name.split(".")[0] in _TOP_LEVEL


def import_from(root: Path, names: tuple[str, ...]) -> dict[str, Any]:
    """Import ``names`` from ``root`` and leave sys.modules and sys.path as they were."""
    saved = {name: mod for name, mod in sys.modules.items() if _owned(name)}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    argv = sys.argv
    try:
        sys.argv = ["run.py"]
        return {name.split(".")[-1]: importlib.import_module(name) for name in names}
    finally:
        sys.argv = argv
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if _owned(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
