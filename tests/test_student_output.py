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
    assert lines[-1].startswith("checked here: ") and "of the assignment's 93 points" in lines[-1]
    assert "hidden" not in result.output.lower()
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
    assert result.output.splitlines()[-1] == ("checked here: 4 of the assignment's 93 points; the rest is graded "
                                              "when you submit")


def test_a_setup_warning_is_on_the_screen_or_on_stderr_never_inside_the_json():
    """The kit's "built from another rubric" warning: printed before grading, and with --json on
    standard error, so that standard output parses as the report alone."""
    import dataclasses
    import json

    import click

    from grader.check_command import CHECK_OPTIONS, run_check
    from grader.cli import _repository_check
    from grader.cli_options import take

    warning = "Warning: kit built from another rubric"

    def warned(directory, seed, out):
        return dataclasses.replace(_repository_check(directory, seed, out), warnings=(warning,))

    @click.command()
    @take(*CHECK_OPTIONS)
    def check(directory, seed, quiet, part, as_json):
        run_check(warned, directory, seed, quiet, part, as_json)

    args = [str(paths.TEMPLATE_DIR), "--seed", "5", "--part", "sgd.py"]
    shown = CliRunner().invoke(check, [*args, "--quiet"], terminal_width=200)
    assert shown.exit_code == 1 and shown.stdout.index(warning) < shown.stdout.index("Total: 0 / 4")
    scripted = CliRunner().invoke(check, [*args, "--json"], terminal_width=200)
    assert scripted.exit_code == 1 and warning in scripted.stderr and warning not in scripted.stdout
    assert json.loads(scripted.stdout)["seed"] == 5


def test_a_check_the_student_cannot_see_is_never_named_by_its_id(tmp_path, monkeypatch):
    """With sigmoid's check held back until the due date, a check that fails because of sigmoid
    names the student's function, never "check w2v_sigmoid" (an id `--part` would then refuse)."""
    import grader.run.rubric as rubric_mod
    from grader.run import check_api

    text = paths.RUBRIC_PATH.read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if "id: w2v_sigmoid," in ln)
    held = line.rstrip("}") + ", visibility: after_due_date}"
    path = tmp_path / "rubric.yaml"
    path.write_text(text.replace(line, held), encoding="utf-8")
    real = rubric_mod.load_rubric
    monkeypatch.setattr(rubric_mod, "load_rubric", lambda *a, **k: real(path))
    check_api._rubric_labels.cache_clear()
    check_api.all_checks()                      # as when a check runs: its module is loaded
    try:
        said = check_api.fix_first("w2v_sigmoid")
        assert said == "this fails because your sigmoid (word2vec.py) is wrong: fix that first"
        assert check_api.fix_first("w2v_naive_softmax").startswith("this fails because check 1.2 (")
        monkeypatch.delitem(check_api.REGISTRY, "w2v_sigmoid")       # the kit: the held-back check is left out
        assert check_api.fix_first("w2v_sigmoid") == "fix that first"
        assert "w2v_sigmoid" not in check_api.check_label("w2v_sigmoid")
    finally:
        check_api._rubric_labels.cache_clear()
