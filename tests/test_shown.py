"""Text from student code made safe to show (grader/common/shown.py), at the worker boundary
(grader/sandbox/frames.py) and in the result model; and credit moved to another check settled
against that check (grader/run/settle.py's settle_charges)."""

from __future__ import annotations

from grader.common.shown import MAX_CHECK_OUTPUT_CHARS, MAX_LINE_CHARS, MAX_REPLY_STRING_CHARS, brief, cut, printable
from grader.run.results import PASSED, Charge, CheckResult, GradeReport, ManualItem, Outcome
from grader.run.rubric import CheckSpec
from grader.run.settle import settle_charges
from grader.sandbox.frames import Capture, parse_reply

HOSTILE = "[/] \x1b]0;owned\x07 \x1b[2J \ud800 \u202e \x9b done"


def test_printable_shows_control_characters_as_escapes():
    shown = printable(HOSTILE + "\nnext\tline")
    assert shown == "[/] \\x1b]0;owned\\x07 \\x1b[2J \\ud800 \\u202e \\x9b done\nnext\tline"
    shown.encode("utf-8")  # no lone surrogate left
    assert printable(shown) == shown


def test_cut_says_what_was_cut_and_is_stable():
    text = "x" * 83_000_000
    once = cut(text, 1000)
    assert len(once) <= 1000 and once.endswith("... [cut: 83 MB more]")
    assert cut(once, 1000) == once
    assert cut("short", 1000) == "short"


def test_brief_repr_is_bounded_whatever_the_value():
    shown = brief(list(range(10_000_000)))
    assert len(shown) < 200 and shown.startswith("[0, 1, 2")
    assert brief("\x1b[2J") == "'\\x1b[2J'"


def test_every_string_of_a_reply_is_bounded_and_printable():
    reply = parse_reply({"id": 1, "ok": True, "result": {
        "name": HOSTILE, "huge": "y" * (3 * MAX_REPLY_STRING_CHARS), HOSTILE: [[HOSTILE], 3.0]}}, 1)
    value = reply.value
    assert value["name"] == printable(HOSTILE)
    assert len(value["huge"]) <= MAX_REPLY_STRING_CHARS and "[cut:" in value["huge"]
    assert value[printable(HOSTILE)] == [[printable(HOSTILE)], 3.0]
    error = parse_reply({"id": 2, "ok": False, "error": {"type": HOSTILE, "message": HOSTILE,
                                                          "traceback": [HOSTILE]}}, 2).error
    assert error is not None and "\x1b" not in error.type + error.message + "".join(error.traceback)
    capture = Capture(100)
    capture.add(HOSTILE.encode("utf-8", "surrogatepass"))
    assert "\x1b" not in capture.text()


def test_the_result_model_holds_only_bounded_printable_text():
    outcome = Outcome(0, 1, (HOSTILE, "z" * 10 * MAX_LINE_CHARS, *["w" * 1000] * 100))
    assert outcome.feedback[0] == printable(HOSTILE)
    assert len(outcome.feedback[1]) <= MAX_LINE_CHARS
    assert sum(len(line) for line in outcome.feedback) <= MAX_CHECK_OUTPUT_CHARS + 200
    assert outcome.feedback[-1].startswith("... [cut:")
    item = ManualItem("1a", "q", "6.1", 2.0, "visible", HOSTILE, True, notes=(HOSTILE,))
    assert "\x1b" not in item.text + item.notes[0]
    report = GradeReport("s", 1, (), 0.0, notes=(HOSTILE,))
    assert report.notes == (printable(HOSTILE),)


def _spec(check_id: str, number: str) -> CheckSpec:
    return CheckSpec(id=check_id, part="word2vec", name=check_id, number=number, points=3.0,
                     visibility="visible", timeout=30.0, partial=True)


def _result(spec: CheckSpec, outcome: Outcome) -> CheckResult:
    return CheckResult(spec.id, spec.part, spec.name, spec.number, spec.points, 3.0 * outcome.trials_passed
                       / outcome.trials_total, spec.visibility, outcome, 0.1)


def test_moved_credit_stands_only_when_the_other_check_fails():
    sigmoid, neg = _spec("w2v_sigmoid", "1.1"), _spec("w2v_neg_sampling", "1.3")
    specs = {s.id: s for s in (sigmoid, neg)}
    charged = Outcome(6, 6, ("6/6 randomized trials passed.",), charged=(Charge("w2v_sigmoid", 4),))
    sigmoid_fails = _result(sigmoid, Outcome(0, 4))
    sigmoid_passes = _result(sigmoid, Outcome(4, 4))
    kept = settle_charges({"w2v_sigmoid": sigmoid_fails, "w2v_neg_sampling": _result(neg, charged)}, specs)
    assert kept["w2v_neg_sampling"].score == 3.0 and kept["w2v_neg_sampling"].status == PASSED
    taken = settle_charges({"w2v_sigmoid": sigmoid_passes, "w2v_neg_sampling": _result(neg, charged)}, specs)
    result = taken["w2v_neg_sampling"]
    assert (result.outcome.trials_passed, result.score) == (2, 1.0)
    assert result.outcome.feedback[0].startswith("Credit taken back: 4 trial(s)")
    assert "2/6 randomized trials passed." in result.outcome.feedback
    alone = settle_charges({"w2v_neg_sampling": _result(neg, charged)}, specs)["w2v_neg_sampling"]
    assert alone.outcome.trials_passed == 2 and "did not run" in alone.outcome.feedback[0]
