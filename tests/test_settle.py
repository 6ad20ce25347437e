"""grader/run/settle.py: credit moved between checks only with proof, and one bug charged once.

Charges: a trial passed on another check's account keeps its credit only when that check fails in
the same run and the proof it carries (the other check's function on the trial's own arguments,
against the trusted values) shows the function wrong there; the proved trials then fail on that
check. Dependencies: a check of the same function keeps its own loss; across functions, a failing
check whose prerequisite fails is charged once with it (the larger loss) only when it passes run
again with the reference's code in the prerequisite's place. The registry's declarations are
checked here too.
"""

from __future__ import annotations

import pytest

from grader.run.check_api import all_checks
from grader.run.results import PARTIAL, PASSED, Charge, CheckResult, Outcome, Proof, not_run_outcome
from grader.run.rubric import CheckSpec, load_rubric
from grader.run.settle import settle_charges, settle_dependencies


def _spec(check_id: str, number: str, points: float = 3.0) -> CheckSpec:
    return CheckSpec(id=check_id, part="p", name=f"name of {check_id}", number=number, points=points,
                     visibility="visible", timeout=30.0, partial=True)


def _result(spec: CheckSpec, outcome: Outcome) -> CheckResult:
    score = round(spec.points * outcome.trials_passed / outcome.trials_total, 4)
    return CheckResult(spec.id, spec.part, spec.name, spec.number, spec.points, score, spec.visibility, outcome, 0.1)


WRONG = Proof("sigmoid on the arguments of trial 1", (0.2, 0.7), (0.8, 0.3))
RIGHT = Proof("sigmoid on the arguments of trial 2", (0.8, 0.3), (0.8, 0.3))
SIGMOID, NEG = _spec("w2v_sigmoid", "1.1", 1.0), _spec("w2v_neg_sampling", "1.3")
SPECS = {s.id: s for s in (SIGMOID, NEG)}


def _neg(*proofs: Proof) -> CheckResult:
    return _result(NEG, Outcome(3, 3, ("3/3 randomized trials passed.",),
                                charged=(Charge("w2v_sigmoid", len(proofs), proofs),)))


def test_proved_credit_stands_and_the_trials_fail_on_the_other_check():
    settled = settle_charges({"w2v_sigmoid": _result(SIGMOID, Outcome(1, 4)), "w2v_neg_sampling": _neg(WRONG, WRONG)},
                             SPECS)
    assert settled["w2v_neg_sampling"].score == 3.0
    sigmoid = settled["w2v_sigmoid"]
    assert (sigmoid.outcome.trials_passed, sigmoid.outcome.trials_total) == (1, 6)
    assert sigmoid.score == round(1 / 6, 4)
    assert "2 more trial(s) failed: the arguments check 1.3 (name of w2v_neg_sampling)" in sigmoid.outcome.feedback[0]
    assert "got [0.2, 0.7]; expected [0.8, 0.3]" in sigmoid.outcome.feedback[1]


def test_credit_is_taken_back_where_the_function_is_right_on_the_trials_arguments():
    """The other check fails, but elsewhere: on this trial's arguments its function is right."""
    settled = settle_charges({"w2v_sigmoid": _result(SIGMOID, Outcome(3, 4)), "w2v_neg_sampling": _neg(WRONG, RIGHT)},
                             SPECS)
    neg = settled["w2v_neg_sampling"]
    assert neg.outcome.trials_passed == 2 and neg.score == 2.0
    assert "on those trials' own arguments that function gave the right values" in neg.outcome.feedback[0]
    assert settled["w2v_sigmoid"].outcome.trials_total == 5  # the proved trial only


def test_credit_is_taken_back_when_the_other_check_passes_even_with_a_proof():
    settled = settle_charges({"w2v_sigmoid": _result(SIGMOID, Outcome(4, 4)), "w2v_neg_sampling": _neg(WRONG)}, SPECS)
    assert settled["w2v_neg_sampling"].outcome.trials_passed == 2
    assert settled["w2v_sigmoid"].status == PASSED and settled["w2v_sigmoid"].score == 1.0


def test_a_held_back_checks_proved_trials_never_reach_a_visible_checks_feedback():
    dups = CheckSpec(id="w2v_neg_sampling_dups", part="p", name="dups", number="1.4", points=1.0,
                     visibility="after_due_date", timeout=30.0, partial=True)
    charged = _result(dups, Outcome(4, 4, charged=(Charge("w2v_sigmoid", 1, (WRONG,)),)))
    sigmoid = _result(SIGMOID, Outcome(1, 4))
    settled = settle_charges({"w2v_sigmoid": sigmoid, "w2v_neg_sampling_dups": charged},
                             {**SPECS, dups.id: dups})
    assert settled["w2v_sigmoid"] is sigmoid and settled["w2v_neg_sampling_dups"].score == 1.0


def test_a_proof_of_other_lengths_or_non_finite_values_holds_and_equal_values_do_not():
    assert Proof("x", (1.0,), (1.0, 2.0)).holds()
    assert Proof("x", (float("nan"),), (0.5,)).holds()
    assert not Proof("x", (0.5 + 1e-9,), (0.5,)).holds()


LOOP, UAS = _spec("train_loop", "5.7", 1.0), _spec("train_uas", "5.9", 2.0)
DEPENDS = {"train_uas": ("train_loop",)}
UNITS = {"train_loop": ("run.train_for_epoch",), "train_uas": ("parser_model.ParserModel", "run.train")}
SPECS_59 = {s.id: s for s in (LOOP, UAS)}


class Rerun:
    """The engine's counterfactual: records each call and answers with a result for 5.9."""

    def __init__(self, passed: bool | None | str):
        # True, False, None (no course code: the kit), "not run" (budget gone), or the status of a run
        # that ended without a verdict ("timeout", "crashed", "error")
        self.passed = passed
        self.calls: list[tuple[str, frozenset[str]]] = []

    def __call__(self, check_id: str, substitute: frozenset[str]) -> CheckResult | None:
        self.calls.append((check_id, substitute))
        if self.passed is None:
            return None
        if self.passed == "not run":
            return _result(UAS, not_run_outcome())
        if isinstance(self.passed, str):
            return _result(UAS, Outcome(0, 1, (f"what the {self.passed} said",), status=self.passed))
        return _result(UAS, Outcome(1, 1) if self.passed else Outcome(0, 1))


def _settle(loop: CheckResult, uas: CheckResult, rerun: Rerun, specs=SPECS_59) -> dict[str, CheckResult]:
    return settle_dependencies({"train_loop": loop, "train_uas": uas}, specs, DEPENDS, UNITS, rerun)


def test_a_failure_the_prerequisites_bug_explains_is_charged_once_at_the_larger_loss():
    """Issue 32: no optimizer.step(): 5.7 loses 0.25, 5.9 all of its 2; with the reference's loop in
    5.7's place 5.9 passes, so the two lose 2 together (the larger), with no review flag."""
    loop = _result(LOOP, Outcome(3, 4, ("3/4 randomized trials passed.",)))
    uas = _result(UAS, Outcome(0, 1, ("0/1 randomized trials passed.",)))
    rerun = Rerun(passed=True)
    settled = _settle(loop, uas, rerun)
    assert rerun.calls == [("train_uas", frozenset({"train_loop"}))]
    charged = settled["train_uas"]
    assert charged.score == 0.25 and settled["train_loop"] is loop
    assert (LOOP.points - loop.score) + (UAS.points - charged.score) == 2.0
    assert charged.outcome.feedback[0].startswith("This comes from the bug check 5.7 (name of train_loop) charges")
    assert "Charged once: 2 point(s) in all" in charged.outcome.feedback[0]
    assert not charged.needs_review and not settled["train_loop"].needs_review


@pytest.mark.parametrize("own", ["error", "timeout", "crashed", "failed"])
def test_a_check_charged_once_has_the_status_its_points_say(own):
    """Issue 32: 5.9 ended in an error (or a timeout) of the student's loop, and with the reference's
    loop it passes: explained by 5.7's bug. At full points its status is "passed", not "error" (which
    the reports print as "Error." with full marks); below them, "partial"; the feedback still says
    what its own run did, after the line that says why it costs only this."""
    own_feedback = (f"0/1 randomized trials passed; the run's {own}",)
    uas = _result(UAS, Outcome(0, 1, own_feedback, status=own))
    full = _settle(_result(LOOP, Outcome(0, 4)), uas, Rerun(passed=True))["train_uas"]  # 5.7 loses 1, 5.9 its 2
    assert (full.score, full.status, full.passed) == (1.0, PARTIAL, False)
    assert full.outcome.feedback[0].startswith("This comes from the bug") and full.outcome.feedback[1:] == own_feedback
    small = _result(_spec("train_uas", "5.9", 1.0), Outcome(0, 1, own_feedback, status=own))
    whole = settle_dependencies({"train_loop": _result(LOOP, Outcome(0, 4)), "train_uas": small},
                                {**SPECS_59, "train_uas": _spec("train_uas", "5.9", 1.0)}, DEPENDS, UNITS,
                                Rerun(passed=True))["train_uas"]
    assert (whole.score, whole.status, whole.passed) == (1.0, PASSED, True)
    assert "here 0 of 1" in whole.outcome.feedback[0]


@pytest.mark.parametrize("ended", ["timeout", "crashed", "error"])
def test_a_counterfactual_that_ends_without_a_verdict_is_flagged_with_its_reason(ended):
    """Issue 32: the counterfactual run timed out, crashed or raised: that proves nothing (it used to
    count as "not explained", each check keeping its loss with no flag), so 5.9 keeps its own loss for
    now and goes to a person with the reason, the text the run gave and what charging once would give."""
    loop = _result(LOOP, Outcome(3, 4, ("3/4 randomized trials passed.",)))
    uas = _result(UAS, Outcome(0, 1, ("0/1 randomized trials passed.",)))
    flagged = _settle(loop, uas, Rerun(passed=ended))["train_uas"]
    assert flagged.score == 0 and flagged.needs_review and not loop.needs_review
    why = {"timeout": "ran past the check's time limit", "crashed": "worker process died",
           "error": "ended in an error"}[ended]
    assert why in flagged.review and f"what the {ended} said" in flagged.review, flagged.review
    assert "1.75 of 2 here, 2 point(s) in all" in flagged.review and "time budget" not in flagged.review
    assert flagged.outcome.feedback[0].startswith("Not settled: whether this failure comes from the bug check 5.7")
    assert why in flagged.outcome.feedback[0] and flagged.outcome.feedback[1:] == uas.outcome.feedback


def test_a_prerequisite_that_loses_more_takes_the_whole_charge():
    loop = _result(LOOP, Outcome(0, 4))
    uas = _result(UAS, Outcome(3, 4))  # loses 0.5, less than 5.7's 1
    settled = _settle(loop, uas, Rerun(passed=True))
    assert settled["train_uas"].score == UAS.points
    assert "Charged once: 1 point(s) in all" in settled["train_uas"].outcome.feedback[0]


def test_a_failure_the_counterfactual_does_not_explain_keeps_its_loss_and_names_no_other_check():
    """A cheap prerequisite broken on purpose buys nothing: 5.9 still fails with the reference's loop,
    so each check keeps its own loss and 5.9's feedback does not blame 5.7 (nor a review flag)."""
    loop = _result(LOOP, Outcome(3, 4))
    uas = _result(UAS, Outcome(0, 1, ("0/1 randomized trials passed.",)))
    for rerun in (Rerun(passed=False), Rerun(passed=None)):  # None: no course code (the kit)
        settled = _settle(loop, uas, rerun)
        assert settled["train_uas"] is uas and uas.score == 0 and not uas.needs_review
        assert rerun.calls


def test_a_counterfactual_the_budget_cut_is_flagged_for_a_person_with_what_was_run():
    """Issue 32: the grading's time budget ran out before or while 5.9 ran again with the reference's
    loop: nothing is proven, so neither charge once nor silently keep both losses: each keeps its own
    loss for now, 5.9 goes to review with the reason, what was run and what charging once would give,
    and its feedback says it is not settled (it used to be kept at its own loss with no flag)."""
    loop = _result(LOOP, Outcome(3, 4, ("3/4 randomized trials passed.",)))
    uas = _result(UAS, Outcome(0, 1, ("0/1 randomized trials passed.",)))
    rerun = Rerun(passed="not run")
    settled = _settle(loop, uas, rerun)
    flagged = settled["train_uas"]
    assert rerun.calls == [("train_uas", frozenset({"train_loop"}))]
    assert flagged.score == uas.score == 0 and settled["train_loop"] is loop and not loop.needs_review
    assert flagged.needs_review
    assert "time budget ran out" in flagged.review
    assert ("check 5.9 (name of train_uas) ran once more with the reference's code in place of what "
            "check 5.7 (name of train_loop) judges") in flagged.review
    assert "1.75 of 2 here, 2 point(s) in all" in flagged.review
    assert flagged.outcome.feedback[0].startswith("Not settled: whether this failure comes from the bug check 5.7")
    assert flagged.outcome.feedback[1:] == uas.outcome.feedback


def test_the_counterfactual_runs_only_when_both_fail_and_the_dependent_ran():
    rerun = Rerun(passed=True)
    assert _settle(_result(LOOP, Outcome(4, 4)), _result(UAS, Outcome(0, 1)), rerun)["train_uas"].score == 0
    assert _settle(_result(LOOP, Outcome(0, 4)), _result(UAS, Outcome(1, 1)), rerun)["train_uas"].score == 2
    not_ran = _result(UAS, Outcome(0, 1, ("importing run.py raised ImportError",), status="error", ran=False))
    assert _settle(_result(LOOP, Outcome(0, 1, status="error", ran=False)), not_ran, rerun)["train_uas"] is not_ran
    assert rerun.calls == []


def test_a_check_charged_each_never_runs_the_counterfactual():
    each = CheckSpec(**{**UAS.__dict__, "charge": "each"})
    rerun = Rerun(passed=True)
    uas = _result(UAS, Outcome(0, 1))
    settled = _settle(_result(LOOP, Outcome(0, 4)), uas, rerun, {**SPECS_59, "train_uas": each})
    assert settled["train_uas"] is uas and rerun.calls == []


def test_checks_of_the_same_function_keep_their_own_losses():
    """Issue 32: a minibatch_parse that loops forever fails 4.3 and 4.1 alike: 4.1 is not capped at
    4.3's loss (it scored 1/3 that way); it names 4.3 as a hint, and nothing is run again."""
    batch, results = _spec("mb_batch_size", "4.3", 2.0), _spec("mb_results", "4.1", 3.0)
    units = {"mb_batch_size": ("parser_transitions.minibatch_parse",),
             "mb_results": ("parser_transitions.minibatch_parse",)}
    rerun = Rerun(passed=True)
    settled = settle_dependencies({"mb_batch_size": _result(batch, Outcome(1, 4)), "mb_results": _result(results, Outcome(0, 6))},
                                  {"mb_batch_size": batch, "mb_results": results}, {"mb_results": ("mb_batch_size",)},
                                  units, rerun)
    assert settled["mb_results"].score == 0 and rerun.calls == []
    assert settled["mb_results"].outcome.feedback[0].startswith("Check 4.3 (name of mb_batch_size) also fails, on the same function")
    assert not settled["mb_results"].needs_review


def test_several_failing_prerequisites_are_replaced_together_and_charged_with_their_sum():
    a, b, c = _spec("a", "1", 1.0), _spec("b", "2", 0.5), _spec("c", "3", 3.0)
    rerun = Rerun(passed=True)
    results = {"a": _result(a, Outcome(0, 1)), "b": _result(b, Outcome(0, 1)), "c": _result(c, Outcome(0, 1))}
    settled = settle_dependencies(results, {s.id: s for s in (a, b, c)}, {"c": ("a", "b")},
                                  {"a": ("m.f",), "b": ("m.g",), "c": ("m.h",)}, rerun)
    assert rerun.calls == [("c", frozenset({"a", "b"}))]
    assert settled["c"].score == 1.5  # the three lose 3 together: the larger of 3 and 1 + 0.5


def test_declared_dependencies_name_registered_checks_no_cycle_and_never_a_less_visible_one():
    registry = all_checks()
    visibility = {spec.id: spec.visibility for spec in load_rubric().checks}
    for check_id, registered in registry.items():
        for prerequisite in registered.depends_on:
            assert prerequisite in registry and prerequisite != check_id, (check_id, prerequisite)
            if visibility[check_id] == "visible":  # a visible check must not reveal a held-back one
                assert visibility[prerequisite] == "visible", (check_id, prerequisite)

    def reaches(start: str, goal: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(p == goal or (p not in seen and reaches(p, goal, seen | {p}))
                   for p in registry[start].depends_on)
    assert not [c for c in registry if reaches(c, c)]
    assert registry["train_uas"].depends_on and "train_loop" in registry["train_uas"].depends_on


def test_a_check_that_cannot_put_course_code_in_place_ran_nothing():
    """The kit has no course code for 5.9's counterfactual: the check aborts saying nothing ran, which
    the engine's rerun turns into None (not explained, no review flag), unlike a run that crashed."""
    from a2.checks.training_uas import train_uas
    from grader.run.engine import run_check

    class Ctx:
        ref = type("KitRef", (), {"kit": True})()
        substitute = frozenset({"train_loop"})

    outcome = run_check(UAS, train_uas, Ctx())
    assert outcome.status == "error" and not outcome.ran and "no course code" in outcome.feedback[0]
