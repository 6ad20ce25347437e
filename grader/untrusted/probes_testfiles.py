"""Probes that run a course's own test files next to student code: unittest classes with
gradescope-utils' decorators (``@weight``, ``@visibility``, ``@number``, ``@tags``,
``@partial_credit``, ``@leaderboard``, ``@hide_errors``) and plain pytest functions, collected by
pytest's own collection and run by pytest, one test a call.

Runs next to untrusted student code; never imported by the trusted process. The test files are this
package's other modules named ``test_*.py`` or ``*_test.py`` (the sandbox copies the course's test
folder next to the worker as the assignment's probes' folder). What goes back is plain data only:
``collect_tests`` lists each test with what its decorators say (the trusted side collects once, on
the reference, and keeps that list: nothing a submission does changes a test's points or
visibility); ``run_test`` says how one test ended, with the score ``set_score`` gave and the value
``set_leaderboard_value`` gave, each read from every layer of stacked decorators (gradescope-utils
sets them on its own wrapper, which another decorator may hide). The trusted process scores that.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

TEST_PATTERNS = ("test_*.py", "*_test.py")
MAX_TEXT = 2000
"""Longest failure message and captured output sent back (the trusted side caps again)."""
DECORATOR_ATTRIBUTES = {"weight": "__weight__", "visibility": "__visibility__", "number": "__number__",
                        "tags": "__tags__", "leaderboard": "__leaderboard_column__",
                        "order": "__leaderboard_sort_order__", "hide_errors": "__hide_errors__"}
RESULT_ATTRIBUTES = ("__score__", "__leaderboard_value__")


def _folders() -> list[str]:
    package = sys.modules[__package__ or ""]
    return [os.path.abspath(folder) for folder in getattr(package, "__path__", [])]


def _is_test_file(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name[:-3].endswith("_test"))


def test_files() -> dict[str, str]:
    """File name -> path of every test file of this package's folders."""
    found: dict[str, str] = {}
    for folder in _folders():
        for name in sorted(os.listdir(folder)):
            if _is_test_file(name):
                found.setdefault(name, os.path.join(folder, name))
    return found


def _text(value: Any, limit: int = MAX_TEXT) -> str:
    try:
        text = str.__str__(str(value))
    except BaseException:  # student objects' __str__ may raise anything
        text = "<unprintable>"
    for folder in _folders():     # the worker's private folder, as an absolute path or from the submission
        text = text.replace(folder + os.sep, "").replace(os.path.relpath(folder) + os.sep, "")
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit} more characters]"


def _layers(function: Any) -> list[Any]:
    """The test function and every function it wraps (``__wrapped__``, as functools.wraps sets it)."""
    layers: list[Any] = []
    seen: set[int] = set()
    while function is not None and id(function) not in seen and len(layers) < 20:
        seen.add(id(function))
        layers.append(function)
        function = getattr(function, "__wrapped__", None)
    layers.extend(getattr(f, "__func__", None) for f in list(layers) if hasattr(f, "__func__"))
    return [f for f in layers if f is not None]


def _attribute(layers: list[Any], name: str) -> Any:
    for layer in layers:
        value = vars(layer).get(name) if hasattr(layer, "__dict__") else None
        if value is not None:
            return value
    return None


def _partial(layers: list[Any]) -> bool:
    """Whether gradescope-utils' @partial_credit wraps the test (its wrapper's code says so)."""
    return any(getattr(getattr(f, "__code__", None), "co_qualname", "").startswith("partial_credit.")
               for f in layers)


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return _text(value, 200)


def _pytest_args(targets: list[str]) -> list[str]:
    root = os.path.dirname(targets[0].split("::")[0]) if targets else os.getcwd()
    return ["-c", os.devnull, "--rootdir", root, "--confcutdir", root, "--import-mode=append", "-q",
            "--no-header", "-p", "no:cacheprovider", "-p", "no:faulthandler", "-p", "no:stepwise",
            "--tb=short", "-W", "ignore::DeprecationWarning", *targets]


class _Collector:
    def __init__(self) -> None:
        self.items: list[Any] = []
        self.errors: list[dict[str, str]] = []

    def pytest_collection_modifyitems(self, items: list[Any]) -> None:
        self.items = list(items)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.errors.append({"file": _text(report.nodeid, 300), "message": _text(report.longreprtext)})


def _describe(item: Any, path: str) -> dict[str, Any]:
    layers = _layers(getattr(item, "obj", None))
    doc = next((f.__doc__ for f in layers if getattr(f, "__doc__", None)), "") or ""
    cls = getattr(item, "cls", None)
    info = {key: _plain(_attribute(layers, attr)) for key, attr in DECORATOR_ATTRIBUTES.items()}
    return {"id": f"{os.path.basename(path)}::{item.nodeid.split('::', 1)[1]}", "file": os.path.basename(path),
            "cls": cls.__name__ if cls is not None else None, "name": item.name,
            "doc": doc.strip().splitlines()[0] if doc.strip() else "", "partial": _partial(layers),
            "unittest": cls is not None and any(c.__name__ == "TestCase" and c.__module__ == "unittest.case"
                                                for c in cls.__mro__), **info}


def _main(args: list[str], plugin: Any) -> None:
    import pytest  # only where tests run

    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    pytest.main(args, plugins=[plugin])


def collect_tests() -> dict[str, Any]:
    """Every test of the test files, in file order, with its decorators' metadata; and the files
    that could not be collected, with pytest's message."""
    collector = _Collector()
    files = test_files()
    if files:
        _main([*_pytest_args(list(files.values())), "--collect-only"], collector)
    by_name = {os.path.basename(path): path for path in files.values()}
    tests = [_describe(item, by_name.get(os.path.basename(str(item.path)), str(item.path))) for item in collector.items]
    return {"tests": tests, "errors": collector.errors, "files": sorted(files)}


class _Recorder:
    def __init__(self) -> None:
        self.item: Any = None
        self.reports: list[Any] = []
        self.errors: list[str] = []

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.errors.append(_text(report.longreprtext))

    def pytest_runtest_setup(self, item: Any) -> None:
        self.item = item
        for layer in _layers(getattr(item, "obj", None)):   # a value left by an earlier run is not this run's
            for name in RESULT_ATTRIBUTES:
                if hasattr(layer, "__dict__") and name in vars(layer):
                    delattr(layer, name)

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.reports.append(report)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    value = float(value)
    return value if math.isfinite(value) else None


def run_test(*, test: str) -> dict[str, Any]:
    """Run the one test ``test`` (``file.py::Class::name``); how it ended as plain data:
    ``outcome`` (passed, failed, error, skipped, not_found), ``message``, ``output`` (what it
    printed), ``score`` (set_score's value, or None) and ``leaderboard`` (set_leaderboard_value's)."""
    file, _, rest = test.partition("::")
    path = test_files().get(file)
    if path is None or not rest:
        return {"outcome": "not_found", "message": f"no test file {file!r}"}
    recorder = _Recorder()
    _main(_pytest_args([f"{path}::{rest}"]), recorder)
    outcome, message, output = "not_found", "", ""
    if recorder.errors:
        outcome, message = "error", "the test file could not be imported:\n" + recorder.errors[0]
    for report in recorder.reports:
        output += (report.capstdout or "") + (report.capstderr or "")
        if report.when == "call" or report.outcome != "passed":
            if report.outcome == "passed":
                outcome = "passed"
            elif report.outcome == "skipped":
                outcome, message = "skipped", _text(report.longrepr[-1] if isinstance(report.longrepr, tuple)
                                                    else report.longreprtext)
            else:
                outcome = "failed" if report.when == "call" else "error"
                message = _text(report.longreprtext)
            if report.outcome != "passed":
                break
    layers = _layers(getattr(recorder.item, "obj", None))
    return {"outcome": outcome, "message": message, "output": _text(output),
            "score": _number(_attribute(layers, "__score__")),
            "leaderboard": _number(_attribute(layers, "__leaderboard_value__"))}


PROBES = {"collect_tests": collect_tests, "run_test": run_test}
