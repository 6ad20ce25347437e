"""grader.rubric: validation names the line and the fix."""

from __future__ import annotations

import textwrap

import pytest

from grader.checks import all_checks
from grader.rubric import RubricError, load_rubric

GOOD = """\
defaults: {timeout: 30}
parts:
  - {id: p, kind: code, points: 3}
  - {id: w, kind: written, points: 2}
checks:
  - {id: a, part: p, name: A, number: "1.1", points: 1}
  - {id: b, part: p, name: B, number: "1.2", points: 2, visibility: hidden, partial: false, timeout: 5}
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
    assert (b.points, b.visibility, b.partial, b.timeout, b.line) == (2.0, "hidden", False, 5.0, 7)
    assert rubric.check("a").timeout == 30.0 and rubric.check("a").student_visible


@pytest.mark.parametrize("edit, message", [
    (("points: 2, visibility", "points: -2, visibility"), "line 7: check 'b' has points -2; use a number >= 0"),
    (("visibility: hidden", "visibility: secret"), "line 7: check 'b' has visibility 'secret'; use one of visible, hidden"),
    (("timeout: 5", "timeout: 0"), "line 7: check 'b' has timeout 0"),
    (("partial: false", "partial: maybe"), "line 7: check 'b' has partial 'maybe'"),
    (("part: p, name: A", "part: q, name: A"), "line 6: check 'a' names part 'q'"),
    (('number: "1.2"', 'number: "1.1"'), "check number '1.1' is used twice"),
    (("{id: b,", "{id: a,"), "check id 'a' appears more than once"),
    (("points: 1}", "points: 5}"), "part 'p' is worth 3 points but its checks add up to 7"),
    (("name: B, ", "name: B, colour: red, "), "line 7: check 'b' has unknown key(s) ['colour']"),
])
def test_bad_values_are_reported_with_line_and_fix(tmp_path, edit, message):
    path = write(tmp_path, GOOD.replace(*edit))
    with pytest.raises(RubricError) as info:
        load_rubric(path, registered={"a", "b"})
    assert message in str(info.value)


def test_unknown_and_missing_check_ids(tmp_path):
    with pytest.raises(RubricError) as info:
        load_rubric(write(tmp_path, GOOD), registered={"a", "c"})
    text = str(info.value)
    assert "line 7: check 'b' is not registered in grader/checks" in text
    assert "check 'c' is registered in grader/checks but has no rubric line" in text


def test_invalid_yaml(tmp_path):
    with pytest.raises(RubricError, match="not valid YAML"):
        load_rubric(write(tmp_path, "checks: [\n"))
