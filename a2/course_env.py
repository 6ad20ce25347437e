"""The course's environment: what student files may import, and what to say when they import
something else.

The packages themselves are declared once, in pyproject.toml's dependencies (the block headed
"The course's environment"), which both the grader's install and the Gradescope image use;
tests/test_course_env.py checks that this list and that block agree and that each module
imports inside the sandbox.
"""

from __future__ import annotations

import re
import sys

#: Import names of the third-party packages the course's environment gives students.
COURSE_MODULES = ("numpy", "torch", "tqdm", "matplotlib")
#: The support modules the grader overlays on every submission, and the students' own files.
ASSIGNMENT_MODULES = ("utils", "word2vec", "sgd", "parser_transitions", "parser_model", "run")
#: The modules of the course's starter utils/ folder. The reference and the template import no
#: other (tests/test_reference_word2vec.py), so that either drops into the course's own folder and
#: runs the course's own tests unchanged: the dummy data of word2vec's self-tests is word2vec.py's.
COURSE_SUPPORT_MODULES = ("utils.utils", "utils.gradcheck", "utils.parser_utils")

_NO_MODULE = re.compile(r"No module named '([^']+)'")
_NO_NAME = re.compile(r"cannot import name '([^']+)' from '([^']+)'")


def missing_module(error_type: str, message: str) -> str | None:
    """The top-level module an import error names, if it is a ModuleNotFoundError for a module
    that is neither the standard library's, the course environment's nor the assignment's."""
    if error_type != "ModuleNotFoundError":
        return None
    match = _NO_MODULE.search(message)
    if match is None:
        return None
    top = match.group(1).split(".")[0]
    if top in sys.stdlib_module_names or top in COURSE_MODULES or top in ASSIGNMENT_MODULES:
        return None
    return top


def missing_module_lines(file: str, module: str) -> tuple[str, str]:
    """The feedback line of each check that needs ``file``, and the report's one note."""
    provided = ", ".join(COURSE_MODULES)
    line = (f"{file} imports {module}, which the course's environment does not provide, so {file} "
            f"could not be imported and this check could not run. Remove that import (see the notes).")
    note = (f"{file} imports the module {module!r}, which is not in the course's environment (Python's "
            f"standard library, {provided}, and the assignment's utils/). It is not installed where your "
            f"work is graded: remove the import, or copy what you need from it into your own file.")
    return line, note


def support_import_line(error_type: str, message: str) -> str | None:
    """What to say when student code imports from ``utils`` a name (or a module) the course's copy
    lacks: one the student added to their own copy, which is never used. None for other errors."""
    found = _NO_NAME.search(message) if error_type == "ImportError" else None
    if found and found.group(2).split(".")[0] == "utils":
        missing = f"{found.group(2)} has no {found.group(1)!r}"
    else:
        found = _NO_MODULE.search(message) if error_type == "ModuleNotFoundError" else None
        if not found or found.group(1).split(".")[0] != "utils":
            return None
        missing = f"there is no module {found.group(1)!r}"
    return (f"utils/ is the course's copy: your submission is graded with the course's own utils/ folder (as "
            f"on Gradescope), so changes to your copy of it are not used, and {missing}. Put what you added "
            "there in the file that uses it (run.py, say) instead.")
