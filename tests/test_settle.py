"""grader/run/settle.py: credit moved between checks only with proof, and dependent checks capped.

Charges: a trial passed on another check's account keeps its credit only when that check fails in
the same run and the proof it carries (the other check's function on the trial's own arguments,
against the trusted values) shows the function wrong there; the proved trials then fail on that
check. Dependencies: a failing check whose declared prerequisite fails names it first and loses
at most what it lost. The registry's declarations are checked here too.
"""

from __future__ import annotations

from grader.run.check_api import all_checks
from grader.run.results import FAILED, PASSED, Charge, CheckResult, Outcome, Proof
from grader.run.rubric import CheckSpec, load_rubric
from grader.run.settle import settle_charges


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


def test_a_dependent_check_names_the_failing_prerequisite_and_loses_at_most_what_it_lost():
    loop = _result(LOOP, Outcome(3, 4, ("3/4 randomized trials passed.",)))
    uas = _result(UAS, Outcome(0, 1, ("0/1 randomized trials passed.",)))
    settled = settle_charges({"train_loop": loop, "train_uas": uas}, {s.id: s for s in (LOOP, UAS)}, DEPENDS)
    capped = settled["train_uas"]
    assert capped.score == 1.75 and capped.status == FAILED
    assert capped.outcome.feedback[0].startswith("Fix check 5.7 (name of train_loop) first:")
    assert "loses at most what that check lost: 0.25 point(s) here, not 2" in capped.outcome.feedback[0]
    assert settled["train_loop"] is loop
    # The cap assumes 5.7's bug causes 5.9's failure: staff confirm it (a cheap check broken on purpose
    # must not buy a costly one's points), and the review says what 5.9 scores on its own.
    assert capped.needs_review and not settled["train_loop"].needs_review
    assert capped.review.startswith("score raised by 1.75 point(s) because check 5.7 (name of train_loop) fails")
    assert "its own score of 0/2" in capped.review


def test_a_dependent_check_that_loses_less_than_its_prerequisite_is_named_but_not_reviewed():
    loop = _result(LOOP, Outcome(0, 4))
    uas = _result(UAS, Outcome(3, 4))
    settled = settle_charges({"train_loop": loop, "train_uas": uas}, {s.id: s for s in (LOOP, UAS)}, DEPENDS)
    assert settled["train_uas"].score == uas.score and settled["train_uas"].outcome.feedback[0].startswith("Fix check 5.7")
    assert not settled["train_uas"].needs_review


def test_a_dependent_check_is_unchanged_when_its_prerequisite_passes_or_it_passes_itself():
    loop = _result(LOOP, Outcome(4, 4))
    uas = _result(UAS, Outcome(0, 1))
    specs = {s.id: s for s in (LOOP, UAS)}
    assert settle_charges({"train_loop": loop, "train_uas": uas}, specs, DEPENDS)["train_uas"] is uas
    broken_loop, good_uas = _result(LOOP, Outcome(0, 4)), _result(UAS, Outcome(1, 1))
    assert settle_charges({"train_loop": broken_loop, "train_uas": good_uas}, specs, DEPENDS)["train_uas"] is good_uas


def test_a_check_that_could_not_run_is_not_capped():
    """run.py that does not import: 5.9 did not run either, so 5.7's failure does not explain it."""
    loop = _result(LOOP, Outcome(0, 1, ("importing run.py raised ImportError",), status="error", ran=False))
    uas = _result(UAS, Outcome(0, 1, ("importing run.py raised ImportError",), status="error", ran=False))
    settled = settle_charges({"train_loop": loop, "train_uas": uas}, {s.id: s for s in (LOOP, UAS)}, DEPENDS)
    assert settled["train_uas"] is uas and uas.score == 0


def test_a_chain_caps_each_check_at_what_its_settled_prerequisite_lost():
    a, b, c = _spec("a", "1", 1.0), _spec("b", "2", 2.0), _spec("c", "3", 3.0)
    results = {"c": _result(c, Outcome(0, 1)), "b": _result(b, Outcome(0, 1)), "a": _result(a, Outcome(1, 2))}
    settled = settle_charges(results, {s.id: s for s in (a, b, c)}, {"c": ("b",), "b": ("a",)})
    assert [settled[k].score for k in "abc"] == [0.5, 1.5, 2.5]
    # c names the check that carries the bug, at the start of the chain, not b (which names it too)
    assert settled["c"].outcome.feedback[0].startswith("Fix check 1 (name of a) first")
    assert settled["b"].outcome.feedback[0].startswith("Fix check 1 (name of a) first")


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
