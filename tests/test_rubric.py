"""grader.run.rubric: validation names the line and the fix."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from grader.cli import main
from grader.common import paths
from grader.common.paths import RUBRIC_PATH
from grader.run.check_api import all_checks
from grader.run.rubric import RubricError, load_rubric

GOOD = """\
defaults: {timeout: 30}
parts:
  - {id: p, kind: code, points: 3}
  - {id: w, kind: written, points: 2, number: "2.1"}
checks:
  - {id: a, part: p, name: A, number: "1.1", points: 1}
  - {id: b, part: p, name: B, number: "1.2", points: 2, visibility: after_due_date, partial: false, timeout: 5}
"""


def write(tmp_path, text):
    path = tmp_path / "rubric.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_repository_rubric_matches_registered_checks():
    rubric = load_rubric(registered=set(all_checks()))
    assert rubric.code_points == 44
    assert {c.part for c in rubric.checks} == {"word2vec", "sgd", "3c", "3d", "3e_iii"}


def test_good_rubric_parses_into_typed_specs(tmp_path):
    rubric = load_rubric(write(tmp_path, GOOD), registered={"a", "b"})
    b = rubric.check("b")
    assert (b.points, b.visibility, b.partial, b.timeout, b.line) == (2.0, "after_due_date", False, 5.0, 7)
    assert rubric.check("a").timeout == 30.0 and rubric.check("a").student_visible
    assert not b.student_visible


@pytest.mark.parametrize("edit, message", [
    (("points: 2, visibility", "points: -2, visibility"), "line 7: check 'b' has points -2; use a number >= 0"),
    (("visibility: after_due_date", "visibility: secret"), "line 7: check 'b' has visibility 'secret'; use one of visible, hidden"),
    (("timeout: 5", "timeout: 0"), "line 7: check 'b' has timeout 0"),
    (("partial: false", "partial: maybe"), "line 7: check 'b' has partial 'maybe'"),
    (("part: p, name: A", "part: q, name: A"), "line 6: check 'a' names part 'q'"),
    (('number: "1.2"', 'number: "1.1"'), "check number '1.1' is used twice"),
    (("{id: b,", "{id: a,"), "check id 'a' appears more than once"),
    (("points: 1}", "points: 5}"), "part 'p' is worth 3 points but its checks add up to 7"),
    (("name: B, ", "name: B, colour: red, "), "line 7: check 'b' has unknown key 'colour'"),
])
def test_bad_values_are_reported_with_line_and_fix(tmp_path, edit, message):
    path = write(tmp_path, GOOD.replace(*edit))
    with pytest.raises(RubricError) as info:
        load_rubric(path, registered={"a", "b"})
    assert message in str(info.value)


HIDDEN_RULE = ("line 7: check 'b' is hidden but worth 2 point(s); Gradescope never shows a hidden test to students "
               "yet adds its points to the total they see, which gives its verdict away. Use visibility: "
               "after_due_date (or after_published) to keep it secret until then, or give it 0 points")


def test_a_hidden_check_with_points_is_refused_with_the_rule_and_the_fix(tmp_path):
    path = write(tmp_path, GOOD.replace("visibility: after_due_date", "visibility: hidden"))
    with pytest.raises(RubricError) as info:
        load_rubric(path, registered={"a", "b"})
    assert HIDDEN_RULE in str(info.value)
    # Hidden and worth nothing is allowed (Gradescope keeps hidden for tests without points).
    zero = GOOD.replace("points: 2, visibility: after_due_date", "points: 0, visibility: hidden")
    zero = zero.replace("points: 1}", "points: 3}")
    assert load_rubric(write(tmp_path, zero), registered={"a", "b"}).check("b").visibility == "hidden"


def test_a_hidden_written_part_with_auto_points_is_refused(tmp_path):
    text = WRITTEN.replace("checker: steps}", "checker: steps, visibility: hidden}")
    with pytest.raises(RubricError, match=r"line 4: written part '3b' is hidden but worth 1 point\(s\)"):
        load_rubric(write(tmp_path, text), checkers={"steps"})
    # Its TA-graded share alone carries no points in results.json: hidden is allowed.
    only_manual = WRITTEN.replace('number: "8.6"}', 'number: "8.6", visibility: hidden}')
    assert load_rubric(write(tmp_path, only_manual), checkers={"steps"}).part("3g").visibility == "hidden"


def test_validate_refuses_a_hidden_check_with_points_before_grading(tmp_path, monkeypatch):
    text = RUBRIC_PATH.read_text(encoding="utf-8")
    assert "number: \"1.4\", points: 1" in text
    lines = [line.replace("visibility: after_due_date", "visibility: hidden") if '"1.4"' in line else line
             for line in text.splitlines()]
    path = tmp_path / "rubric.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(paths, "RUBRIC_PATH", path)
    result = CliRunner().invoke(main, ["validate"])
    assert result.exit_code != 0
    assert "check 'w2v_neg_sampling_dups' is hidden but worth 1 point(s)" in result.output
    assert "Use visibility: after_due_date (or after_published)" in result.output
    assert "reference:" not in result.output      # stopped before grading anything


def test_repository_rubric_has_no_hidden_points():
    rubric = load_rubric(registered=set(all_checks()))
    for spec in rubric.checks + rubric.written_checks:
        assert spec.visibility != "hidden" or spec.points == 0, spec.id
    assert {c.number: c.visibility for c in rubric.checks if c.number in ("1.4", "4.2")} == {
        "1.4": "after_due_date", "4.2": "after_due_date"}


def test_unknown_and_missing_check_ids(tmp_path):
    with pytest.raises(RubricError) as info:
        load_rubric(write(tmp_path, GOOD), registered={"a", "c"})
    text = str(info.value)
    assert "line 7: check 'b' is not registered by the assignment" in text
    assert "check 'c' is registered by the assignment but has no rubric line" in text


def test_invalid_yaml(tmp_path):
    with pytest.raises(RubricError, match="not valid YAML"):
        load_rubric(write(tmp_path, "checks: [\n"))


WRITTEN = """\
defaults: {timeout: 30}
parts:
  - {id: p, kind: code, points: 1}
  - {id: 3b, kind: written, points: 2, number: "8.2", auto: 1, checker: steps}
  - {id: 3g, kind: written, points: 2, number: "8.6"}
checks:
  - {id: a, part: p, name: A, number: "1.1", points: 1}
"""


def test_written_parts_split_auto_and_manual_points(tmp_path):
    rubric = load_rubric(write(tmp_path, WRITTEN), registered={"a"}, checkers={"steps"})
    b, g = rubric.written
    assert (b.auto, b.checker, b.manual_points, b.number, b.manual_number) == (1.0, "steps", 1.0, "8.2", "8.2.1")
    assert (g.auto, g.checker, g.manual_points, g.manual_number) == (0.0, "", 2.0, "8.6")
    [auto] = rubric.written_checks
    assert (auto.id, auto.points, auto.number, auto.kind, auto.checker) == (b.id, 1.0, "8.2", "written", "steps")
    assert auto.name == b.name + " (auto-graded)" and rubric.check(b.id) == auto
    # When students see what is wrong with an auto-graded answer (issue 20): after the due date unless told.
    assert b.explanation == "after_due_date"
    other = load_rubric(write(tmp_path, WRITTEN.replace("checker: steps", "checker: steps, explanation: visible")),
                        registered={"a"}, checkers={"steps"})
    assert other.part("3b").explanation == "visible"
    # The auto share's score is its verdict (issue 33): shown when its explanation is.
    assert auto.visibility == "after_due_date" and b.visibility == "visible"
    assert other.written_checks[0].visibility == "visible"


@pytest.mark.parametrize("edit, message", [
    (("checker: steps", "checker: steps, explanation: hidden"),
     "line 4: written part '3b' has explanation 'hidden', but its verdict carries its 1 auto-graded point(s), and "
     "Gradescope adds a hidden entry's points to the total students see, which gives the verdict away. Use "
     "explanation: after_due_date (or after_published)"),
    (("checker: steps", "checker: steps, visibility: after_published, explanation: after_due_date"),
     "line 4: written part '3b' has explanation 'after_due_date' but visibility 'after_published': its verdict would "
     "be shown before the answer it judges. Set explanation to 'after_published' (or later), or visibility to "
     "'after_due_date'"),
    (("defaults: {timeout: 30}", "defaults: {timeout: 30, explanation: visible}"),
     "defaults: explanation is 'visible', which shows every written answer's verdict (its score, what is wrong) as "
     "soon as it is submitted, so a few resubmissions find each key. Keep defaults' explanation after_due_date and "
     "set explanation: visible on the items whose verdict may be shown at once"),
])
def test_a_written_verdict_that_would_leak_before_the_due_date_is_refused(tmp_path, edit, message):
    with pytest.raises(RubricError) as info:
        load_rubric(write(tmp_path, WRITTEN.replace(*edit)), registered={"a"}, checkers={"steps"})
    assert message in str(info.value)


@pytest.mark.parametrize("edit, message", [
    (("auto: 1, checker: steps", "auto: 3, checker: steps"), "line 4: written part '3b' has auto 3; use the number of its 2 points"),
    (("auto: 1, checker: steps", "auto: 1"), "line 4: written part '3b' has auto 1 but no checker"),
    (("auto: 1, checker: steps", "checker: steps"), "line 4: written part '3b' names checker 'steps' but auto is 0"),
    (('number: "8.6"}', "}"), "line 5: written part '3g' has no number"),
    (('number: "8.6"', 'number: "8.6b"'), "line 5: written part '3g' has number '8.6b'"),
    (('number: "8.6"', 'number: "1.1"'), "check number '1.1' is used twice"),
    (('number: "8.6"', 'number: "8.2.1"'), "check number '8.2.1' is used twice"),
    (("checker: steps", "checker: stpes"), "line 4: written part '3b' names checker 'stpes', which is not registered"),
    (('number: "8.6"}', 'number: "8.6", colour: red}'), "line 5: part '3g' has unknown key 'colour'"),
    (("kind: code, points: 1}", "kind: code, points: 1, auto: 1}"), "line 3: code part 'p' has ['auto']"),
    (('number: "8.6"}', 'number: "8.6", visibility: secret}'), "line 5: written part '3g' has visibility 'secret'"),
    (("checker: steps", "checker: steps, explanation: soon"), "line 4: written part '3b' has explanation 'soon'"),
    (("checker: steps", "checker: steps, timeout: 0"), "line 4: written part '3b' has timeout 0; use seconds in (0, "),
])
def test_bad_written_keys_are_reported_with_line_and_fix(tmp_path, edit, message):
    path = write(tmp_path, WRITTEN.replace(*edit))
    with pytest.raises(RubricError) as info:
        load_rubric(path, registered={"a"}, checkers={"steps"})
    assert message in str(info.value)


def test_unused_written_checkers_are_reported(tmp_path):
    with pytest.raises(RubricError, match="written checker 'table' is registered by the assignment but no written part uses it"):
        load_rubric(write(tmp_path, WRITTEN), registered={"a"}, checkers={"steps", "table"})


def test_repository_rubric_matches_written_checkers():
    from a2.written.checkers import all_written_checkers
    rubric = load_rubric(registered=set(all_checks()), checkers=set(all_written_checkers()))
    assert sum(p.points for p in rubric.written) == 49
    assert sum(p.auto for p in rubric.written) == 31


# -- the schema ------------------------------------------------------------------------------------


def test_a_misspelt_key_is_refused_in_one_line_with_its_line_and_the_fix(tmp_path):
    path = write(tmp_path, GOOD.replace("defaults: {timeout: 30}", "defaults:\n  timeot: 30"))
    with pytest.raises(RubricError) as info:
        load_rubric(path, registered={"a", "b"})
    message = str(info.value)
    assert "\n" not in message
    assert message == (f"{path}, line 2: defaults has unknown key 'timeot'; did you mean 'timeout'? allowed: "
                       "explanation, partial, timeout, visibility (rename or remove it)")
    path = write(tmp_path, GOOD + "chekcs: []\n")
    with pytest.raises(RubricError, match="line 8: the top level has unknown key 'chekcs'; did you mean 'checks'"):
        load_rubric(path, registered={"a", "b"})
    path = write(tmp_path, GOOD.replace("defaults: {timeout: 30}", "defaults: {timeout: 0}"))
    with pytest.raises(RubricError, match=r"line 1: defaults: timeout is 0; use seconds in \(0, 1800\]"):
        load_rubric(path, registered={"a", "b"})


def test_the_rubric_and_the_schema_agree(tmp_path):
    """rubric.yaml is valid under the schema (checked by jsonschema itself), and every rubric the
    schema refuses, the loader refuses too."""
    import yaml
    from jsonschema import Draft202012Validator

    from grader.run.rubric_schema import RUBRIC_SCHEMA

    Draft202012Validator.check_schema(RUBRIC_SCHEMA)
    validator = Draft202012Validator(RUBRIC_SCHEMA)
    assert list(validator.iter_errors(yaml.safe_load(RUBRIC_PATH.read_text(encoding="utf-8")))) == []
    edits = [("defaults: {timeout: 30}", "defaults: {timeot: 30}"), ("points: 1}", "points: -1}"),
             ("visibility: after_due_date", "visibility: later"), ("timeout: 5}", "timeout: 0}"),
             ("partial: false", "partial: no_thanks"), ("name: A, ", "nmae: A, "), ("kind: code", "kind: cde"),
             ('number: "1.2"', 'number: "1.2b"'), ("{id: w, kind: written", "{id: w, knd: x, kind: written"),
             ("defaults: {timeout: 30}", "defaults: {partial: 1}"), ("checks:", "extra: 1\nchecks:")]
    for old, new in edits:
        text = GOOD.replace(old, new)
        assert text != GOOD, old
        assert list(validator.iter_errors(yaml.safe_load(text))), (old, new)
        with pytest.raises(RubricError):
            load_rubric(write(tmp_path, text), registered={"a", "b"})
            pytest.fail(f"the loader accepted {new!r}")


@pytest.mark.parametrize("edit, message", [
    (("timeout: 60}", "timeout: 90s}"), "check 'sgd_anneal' has timeout '90s'; use seconds in (0, "),
    (("points: 1, name: \"sgd: step halves", "points: many, name: \"sgd: step halves"),
     "check 'sgd_anneal' has points 'many'; use a number >= 0"),
    (("points: 1, name: \"sgd: step halves", "name: \"sgd: step halves"), "check 'sgd_anneal' is missing points"),
    (('kind: code, points: 4,', 'kind: code, points: 4x,'), "part 'sgd' has points '4x'; use a number >= 0"),
    (('part: sgd, number: "2.2"', 'part: sgdd, number: "2.2"'),
     "check 'sgd_anneal' names part 'sgdd', which is not under 'parts:'; did you mean 'sgd'?"),
])
def test_one_typo_in_the_repository_rubric_gives_one_problem(tmp_path, edit, message):
    """A bad value on a check's line is one mistake: no "part 'sgd' ... add up to" and no
    "sgd_anneal has no rubric line" after it."""
    text = RUBRIC_PATH.read_text(encoding="utf-8")
    assert edit[0] in text
    path = tmp_path / "rubric.yaml"
    path.write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    from grader import assignment

    with pytest.raises(RubricError) as info:
        load_rubric(path, registered=set(all_checks()), checkers=set(assignment.registry().written_checkers()))
    assert len(info.value.problems) == 1, info.value.problems
    assert message in info.value.problems[0]


def test_the_loader_is_three_short_steps_and_names_no_assignment_path():
    """load_rubric reads as its three steps (the schema, typed parts and checks, the cross-checks
    against the assignment's registry), no function of the loader over 60 lines, and the framework's
    messages point to no file of this assignment (the registry is the one door)."""
    import ast
    import inspect

    from grader.assignment import package_name
    from grader.run import rubric, rubric_model

    body = inspect.getsource(rubric.load_rubric)
    steps = [body.index(name) for name in ("unknown_keys(", "typed_lines(", "registry_problems(")]
    assert steps == sorted(steps)
    for module in (rubric, rubric_model):
        tree = ast.parse(inspect.getsource(module))
        long = {n.name: n.end_lineno - n.lineno + 1 for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef) and n.end_lineno - n.lineno + 1 > 60}
        assert long == {}, f"{module.__name__}: functions over 60 lines: {long}"
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        assert not [s for s in strings if f"{package_name()}/" in s]


def test_a_check_line_with_no_registered_check_says_how_to_write_one(tmp_path):
    with pytest.raises(RubricError) as info:
        load_rubric(write(tmp_path, GOOD), registered={"a"})
    assert "line 7: check 'b' is not registered by the assignment; fix the id or write the check (a function " \
           "under @check in one of the assignment's check modules)" in str(info.value)
