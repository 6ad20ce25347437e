"""The written answer keys are data in one place (a2/written/keys.yaml): the 3(f) checker and
the catalogue of known mistakes read it, and reference/answers.md must say the same (checked
here and by `grader validate`, which names the item that disagrees)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from conftest import REFERENCE

from a2.written import catalogue, parser_errors
from a2.written.checker_registry import WrittenContext
from a2.written.checkers import all_written_checkers
from a2.written.keys import KEYS_FILE, disagreements, parser_error_keys
from a2.written.sections import Section
from grader.cli import failing_lines
from grader.run.check_api import check_rng

ANSWERS = (REFERENCE / "answers.md").read_text(encoding="utf-8")


def _solution(text: str) -> str:
    start = text.index("<!-- BEGIN SOLUTION -->", text.index("### 3(f)"))
    return text[start + len("<!-- BEGIN SOLUTION -->"):text.index("<!-- END SOLUTION -->", start)]


def test_the_checker_and_the_catalogue_read_the_keys_file():
    keys = parser_error_keys()
    assert [k.roman for k in keys] == ["i", "ii", "iii", "iv"]
    assert parser_errors.KEYS == keys                           # the checker's keys are the file's
    old = [e for e in catalogue.CATALOGUE if e.applies_to.startswith("3f:")]
    assert [(e.id, e.applies_to) for e in old] == [
        (i, f"3f:{k.roman}") for k in keys for i in (*(o.id for o in k.old_keys), f"parse-errors-{k.roman}-type")]
    assert all(k.why and k.kind in k.why for k in keys)    # each wrong type is told what kind it is, and why
    assert "keys.yaml" in Path(parser_errors.__file__).read_text(encoding="utf-8")
    assert "declined" not in Path(parser_errors.__file__).read_text(encoding="utf-8")   # no key left in code
    assert "declined" not in Path(catalogue.__file__).read_text(encoding="utf-8")


def test_reference_answers_agree_with_the_keys_and_score_full_marks():
    assert disagreements(ANSWERS) == []
    body = _solution(ANSWERS)
    ctx = WrittenContext("3f", check_rng(0, "3f"), 0)
    verdict = all_written_checkers()["parser_errors"](Section("3f", body, where="answers.md"), ctx)
    assert verdict.passed == verdict.total == 12, verdict.feedback


def test_a_key_changed_in_one_place_only_is_named(tmp_path: Path):
    changed = ANSWERS.replace("- **Correct dependency:** reasons → decision", "- **Correct dependency:** declined → reasons")
    assert disagreements(changed) == ["3(f) iii: keys.yaml's correct is 'reasons → decision' but reference/answers.md "
                                      "says 'declined → reasons'; make them agree"]
    other = tmp_path / "keys.yaml"
    other.write_text(KEYS_FILE.read_text(encoding="utf-8").replace("type: Coordination Attachment Error",
                                                                    "type: Modifier Attachment Error"), encoding="utf-8")
    said = disagreements(ANSWERS, parser_error_keys(other))
    assert len(said) == 1 and said[0].startswith("3(f) iv: keys.yaml's type is 'Modifier Attachment Error'")


def test_validate_names_the_failing_item_not_a_passing_one():
    feedback = ("read: i: ... | iv: ...", "i: type 'Verb Phrase' ✓, incorrect acquisition → citing ✓, correct blocked → citing ✓",
                "iii: type 'Prepositional Phrase' ✓, incorrect declined → decision ✓, correct declined → reasons ✗ (expected reasons → decision)",
                "iv: type 'Coordination' ✓, incorrect affects → one ✓, correct plants → one ✓")
    assert failing_lines(feedback, "failed").startswith("iii: ")
    assert failing_lines(("read: x", "Shapes do not fit"), "failed") == "Shapes do not fit"
    result = CliRunner().invoke(__import__("grader.cli", fromlist=["main"]).main, ["validate", "--help"])
    assert "--seed" in result.output
