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
from importlib import metadata

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


# -- names a newer numpy or torch removed ---------------------------------------------------------------

#: Modules numpy 2.0 removed or made private (``numpy.lib.function_base`` became
#: ``numpy.lib._function_base_impl``): what they held is imported from numpy itself.
_NUMPY2_MODULES = frozenset({
    "numpy.lib.function_base", "numpy.lib.arraysetops", "numpy.lib.index_tricks", "numpy.lib.shape_base",
    "numpy.lib.type_check", "numpy.lib.nanfunctions", "numpy.lib.utils", "numpy.lib.twodim_base",
    "numpy.lib.ufunclike", "numpy.lib.polynomial", "numpy.lib.arraypad", "numpy.lib.histograms",
    "numpy.lib.npyio", "numpy.lib.financial", "numpy.compat", "numpy.lib.arrayterator"})
#: numpy's top-level names that numpy removed: the version, and what to use instead.
_NUMPY_NAMES: dict[str, tuple[str, str]] = {
    **{alias: ("1.24", f"the built-in {alias}") for alias in ("int", "float", "bool", "object", "str", "long",
                                                              "unicode", "complex")},
    "float_": ("2.0", "np.float64"), "complex_": ("2.0", "np.complex128"), "NaN": ("2.0", "np.nan"),
    "NAN": ("2.0", "np.nan"), "Inf": ("2.0", "np.inf"), "Infinity": ("2.0", "np.inf"), "infty": ("2.0", "np.inf"),
    "PINF": ("2.0", "np.inf"), "NINF": ("2.0", "-np.inf"), "PZERO": ("2.0", "0.0"), "NZERO": ("2.0", "-0.0"),
    "unicode_": ("2.0", "np.str_"), "string_": ("2.0", "np.bytes_"), "longfloat": ("2.0", "np.longdouble"),
    "singlecomplex": ("2.0", "np.complex64"), "cfloat": ("2.0", "np.complex128"),
    "longcomplex": ("2.0", "np.clongdouble"), "clongfloat": ("2.0", "np.clongdouble"),
    "asfarray": ("2.0", "np.asarray(x, dtype=float)"), "mat": ("2.0", "np.asmatrix"),
    "round_": ("2.0", "np.round"), "product": ("2.0", "np.prod"), "cumproduct": ("2.0", "np.cumprod"),
    "sometrue": ("2.0", "np.any"), "alltrue": ("2.0", "np.all"), "msort": ("2.0", "np.sort(a, axis=0)"),
    "find_common_type": ("2.0", "np.result_type"), "issubclass_": ("2.0", "the built-in issubclass"),
    "safe_eval": ("2.0", "ast.literal_eval"), "set_string_function": ("2.0", "np.set_printoptions"),
    "trapz": ("2.x (deprecated in 2.0)", "np.trapezoid"), "in1d": ("2.x (deprecated in 2.0)", "np.isin"),
}
#: torch's modules that torch removed, and what to use instead.
_TORCH_MODULES = {"torch._six": ("2.0", "math.inf, str and collections.abc (what torch._six held)")}
_NO_ATTRIBUTE = re.compile(r"module '([^']+)' has no attribute '([^']+)'")
_NUMPY_OWN = re.compile(r"`np\.(\w+)` was (?:removed|a deprecated alias)")


def _removed(module: str, name: str | None) -> tuple[str, str, str, str] | None:
    """(package, what, the version that removed it, what to use instead) for a module, or a name
    of a module, that numpy or torch removed; None if it is not one."""
    dotted = f"{module}.{name}" if name else module
    if dotted in _NUMPY2_MODULES:
        return ("numpy", dotted, "2.0", "the same names from numpy itself (from numpy import ..., which works "
                                        "with every numpy)")
    if dotted in _TORCH_MODULES:
        return ("torch", dotted, *_TORCH_MODULES[dotted])
    if module == "numpy" and name in _NUMPY_NAMES:
        return ("numpy", f"np.{name}", *_NUMPY_NAMES[name])
    return None


def _installed(package: str) -> str:
    try:
        return metadata.version(package).split("+")[0]
    except metadata.PackageNotFoundError:
        return "?"


def removed_name_line(error_type: str, message: str) -> str | None:
    """What to say when student code imports or uses a module or name that the course's numpy or
    torch no longer has because a newer version removed it (code written for an older one, e.g.
    an unused ``from numpy.lib.function_base import gradient``); None for other errors."""
    found = None
    if error_type == "ModuleNotFoundError" and (match := _NO_MODULE.search(message)):
        found = _removed(match.group(1), None)
    elif error_type == "ImportError" and (match := _NO_NAME.search(message)):
        found = _removed(match.group(2), match.group(1))
    elif error_type == "AttributeError" and (match := _NO_ATTRIBUTE.search(message) or _NUMPY_OWN.search(message)):
        module, name = match.groups() if match.re is _NO_ATTRIBUTE else ("numpy", match.group(1))
        found = _removed(module, name) or (("numpy", f"np.{name}", "2.0", "what numpy's message above says")
                                           if match.re is _NUMPY_OWN else None)
    if found is None:
        return None
    package, what, version, instead = found
    unused = ", or delete the import if nothing uses it" if error_type != "AttributeError" else ""
    return (f"{what} was removed in {package} {version}, and your work is graded with {package} "
            f"{_installed(package)}, the course's environment (your file may run where you wrote it, with an "
            f"older {package}): use {instead} instead{unused}.")


def explain_error(error_type: str, message: str) -> str | None:
    """The line the course's environment adds to the feedback of an error of student code: a name
    missing from the course's utils/, or one a newer numpy or torch removed; None otherwise."""
    return support_import_line(error_type, message) or removed_name_line(error_type, message)
