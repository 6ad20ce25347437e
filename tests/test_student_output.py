"""`grader check` as a student reads it: details first, the summary last, stubs in one state."""

from __future__ import annotations

from click.testing import CliRunner

from a2 import registry
from grader.cli import main
from grader.common import paths
from grader.package.template import strip_python

#: A terminal screen: an untouched template's whole output must fit.
SCREEN_LINES = 50


def _stubs() -> list[tuple[str, str]]:
    found = []
    for name in registry.STUDENT_FILES:
        _text, stubs = strip_python((paths.REFERENCE_DIR / name).read_text(encoding="utf-8"), name)
        found += [(name, s.function) for s in stubs]
    return found


def test_untouched_template_fits_one_screen_and_lists_every_stub():
    result = CliRunner().invoke(main, ["check", str(paths.TEMPLATE_DIR), "--seed", "5"], terminal_width=100)
    lines = result.output.splitlines()
    assert result.exit_code == 1
    assert len(lines) <= SCREEN_LINES, result.output
    assert lines[-1].startswith("checked here: ") and lines[-1].endswith("TA-graded answers are not included")
    todo = result.output[result.output.index("Next to do:"):]
    stubs = _stubs()
    assert len(stubs) >= 10
    for file, function in stubs:
        line = next((ln for ln in todo.splitlines() if ln.strip().startswith(f"{file}:")), "")
        assert function in line, (file, function, todo)
    for shape in ("a table", "a list", "a formula"):
        assert shape in todo
    assert "FAILED" not in result.output and "ERROR" not in result.output


def test_quiet_prints_only_the_summary():
    result = CliRunner().invoke(main, ["check", str(paths.TEMPLATE_DIR), "--seed", "5", "--quiet",
                                       "--part", "sgd.py"], terminal_width=100)
    assert "✗" not in result.output and "✓" not in result.output
    assert "Total: 0 / 4" in result.output
    assert "sgd.py: sgd (not implemented yet)" in result.output
    assert result.output.splitlines()[-1].startswith("checked here: 4 of 75 points")
