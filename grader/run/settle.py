"""Credit moved between checks once every check of a grading has run, in the trusted process.

Two relations, each settled with proof: a *charge* (a check's trial passed because its bug
belongs to another check, with the proof that the other check's function is wrong on that trial's
own arguments) and a *dependency* (a check that exercises a function another check judges,
declared with ``@check(..., depends_on=...)``: charged once when running it again with the
reference's code in place of the failing prerequisite's makes it pass). Points stay in
rubric.yaml: this only decides which check pays for a bug, never what a check is worth.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from grader.run.results import CRASHED, ERROR, FAILED, NOT_RUN, PARTIAL, PASSED, TIMEOUT, CheckResult, Outcome, score
from grader.run.rubric import CheckSpec


def _label(result: CheckResult) -> str:
    return f"check {result.number} ({result.name})"


def _rescored(result: CheckResult, spec: CheckSpec, passed: int, total: int, lines: Sequence[str],
              *, after_count: bool = False) -> CheckResult:
    """``result`` with ``passed`` of ``total`` trials and ``lines`` before its feedback (or after its
    count of trials passed), scored again."""
    outcome = result.outcome
    count = f"{outcome.trials_passed}/{outcome.trials_total} randomized trials passed"
    feedback = [line.replace(count, f"{passed}/{total} randomized trials passed", 1) for line in outcome.feedback]
    at = 1 if after_count and feedback and "randomized trials passed" in feedback[0] else 0
    settled = Outcome(passed, total, (*feedback[:at], *lines, *feedback[at:]),
                      status="" if outcome.status in (PASSED, PARTIAL, FAILED) else outcome.status,
                      leaderboard=outcome.leaderboard)
    return replace(score(spec, settled, result.seconds), written=result.written)


def _show(values: tuple[float, ...]) -> str:
    shown = ", ".join(f"{v:.6g}" for v in values[:8])
    return f"[{shown}{', ...' if len(values) > 8 else ''}]" if len(values) != 1 else shown


def settle_charges(results: Mapping[str, CheckResult], specs: Mapping[str, CheckSpec]) -> dict[str, CheckResult]:
    """Move credit between checks, in the trusted process, once every check has run.

    Charges: a check's trial that passed because its bug belongs to another check keeps that credit
    only if the other check fails in this run and, when the charge carries a :class:`Proof`, the
    other check's function is wrong on that trial's own arguments (compared here). The proved
    trials are then added to the other check as failed trials, with the arguments and values: the
    bug is charged there, on the same arguments. (A sigmoid wrong only where negative sampling asks
    it must not pass both checks; nor move the credit because the sigmoid fails somewhere else.)

    Dependencies are settled afterwards, with proof: :func:`settle_dependencies`.
    """
    settled = dict(results)
    extra: dict[str, list[str]] = {}      # target check id -> the failed trials it gets
    sources: dict[str, list[str]] = {}    # target check id -> the checks whose arguments they are
    for check_id, result in results.items():
        outcome = result.outcome
        taken = 0
        lines = []
        for charge in outcome.charged:
            target = results.get(charge.check_id)
            label = _label(target) if target is not None else f"check {charge.check_id}"
            if target is None or target.passed:
                taken += charge.trials
                why = "passes in this grading" if target is not None else "did not run in this grading"
                lines.append(f"Credit taken back: {charge.trials} trial(s) passed only because the bug they show "
                             f"would be charged to {label}, but that check {why}; so the bug is charged here.")
                continue
            if not charge.proofs:
                continue
            held = [proof for proof in charge.proofs if proof.holds()]
            unproved = charge.trials - len(held)
            if unproved:
                taken += unproved
                lines.append(f"Credit taken back: {unproved} trial(s) passed only because the bug they show "
                             f"would be charged to {label}, but on those trials' own arguments that function "
                             "gave the right values; so the bug is charged here.")
            if held and not _hidden_from(specs, check_id, charge.check_id):
                extra.setdefault(charge.check_id, []).extend(
                    f"- {p.what}: got {_show(p.got)}; expected {_show(p.expected)}" for p in held)
                sources.setdefault(charge.check_id, []).append(_label(result))
        if taken:
            settled[check_id] = _rescored(result, specs[check_id], max(outcome.trials_passed - taken, 0),
                                          outcome.trials_total, lines)
    for target_id, shown in extra.items():
        target, count = settled[target_id], len(shown)
        head = (f"{count} more trial(s) failed: the arguments {' and '.join(dict.fromkeys(sources[target_id]))} "
                f"gave this function in this run, "
                f"where it is wrong (that check was judged right given your function, so the bug is charged "
                f"here, on the same arguments):")
        lines = [head, *shown[:3], *([f"({len(shown) - 3} more not shown)"] if len(shown) > 3 else [])]
        settled[target_id] = _rescored(target, specs[target_id], target.outcome.trials_passed,
                                       target.outcome.trials_total + count, lines, after_count=True)
    return settled


def _hidden_from(specs: Mapping[str, CheckSpec], source: str, target: str) -> bool:
    """Whether ``source`` is held back where ``target`` is shown: its arguments (and trial count)
    must not reach the target's feedback before the due date, so its proved trials stay its own."""
    return specs[source].visibility != "visible" and specs[target].visibility == "visible"


def _lost(result: CheckResult) -> float:
    return round(result.max_score - result.score, 4)


#: ``rerun(check_id, substitute)``: the check run once more with the reference's code in place of the
#: functions the checks ``substitute`` judge (the counterfactual): its result, "not run" when the
#: grading's budget ran out before or while it ran; None when there is no reference code to put in
#: place (the kit).
Rerun = Callable[[str, frozenset[str]], "CheckResult | None"]

#: What a counterfactual run that ended so says: nothing (it never reached a verdict), so the charge
#: goes to a person with the reason, never scored either way.
_UNPROVEN = {NOT_RUN: "the grading's time budget ran out before or while it ran",
             TIMEOUT: "it ran past the check's time limit", CRASHED: "its worker process died",
             ERROR: "it ended in an error"}


def settle_dependencies(settled: Mapping[str, CheckResult], specs: Mapping[str, CheckSpec],
                        depends_on: Mapping[str, Sequence[str]], units: Mapping[str, Sequence[str]],
                        rerun: Rerun | None) -> dict[str, CheckResult]:
    """One bug, one charge, at its full consequence (``depends_on``: check id -> the checks it
    depends on, declared with ``@check``; ``units``: check id -> the functions or classes it judges).

    Checks of the same unit are aspects of it: each keeps its own loss (code that fails every aspect
    loses every aspect); a failing one names the failing checks of its unit it depends on, as a hint.
    Across units, when a check and prerequisites of it fail, the check is run once more with the
    reference's code in place of the failing prerequisites' (``rerun``: only then, and against the
    grading's budget). If it then passes, their bugs explain its failure: the check loses only what
    exceeds their losses, so together they lose the larger of the two (the prerequisites' summed),
    never the sum and never less, its status says what its points say, and its feedback says so. If
    it still fails, or there is no reference code to run (the kit), each keeps its own loss and the
    feedback names no other check. If the counterfactual ended without a verdict (the grading's time
    budget ran out, it timed out, crashed or raised), nothing is proven either way: each keeps its own
    loss for now and the check goes to review with the reason, what was run and what charging once
    would give (its feedback says so). A check the rubric marks ``charge: each`` keeps its own loss always; so does
    a check that could not run at all.
    """
    out = dict(settled)
    for check_id, result in settled.items():
        prerequisites = [p for p in depends_on.get(check_id, ()) if p in settled and p != check_id]
        failing = [p for p in prerequisites if _lost(settled[p]) > 0]
        if _lost(result) <= 0 or not failing or not result.outcome.ran:
            continue
        unit = tuple(units.get(check_id, ()))
        same = [p for p in failing if tuple(units.get(p, ())) == unit]
        other = [p for p in failing if tuple(units.get(p, ())) != unit]
        lines = []
        if same:
            text = (f"{_and(settled, same)} also {'fail' if len(same) > 1 else 'fails'}, on the same function: "
                    "fixing that first may fix this too (each check is charged on its own).")
            lines.append(text[0].upper() + text[1:])
        spec = specs.get(check_id)
        if other and rerun is not None and getattr(spec, "charge", "once") != "each":
            counter = rerun(check_id, frozenset(other))
            carried = round(sum(_lost(settled[p]) for p in other), 4)
            own = _lost(result)
            loss = round(max(own - carried, 0.0), 4)
            total = round(loss + carried, 4)
            if counter is not None and counter.status in _UNPROVEN:
                out[check_id] = _unsettled(result, settled, other, own, loss, total, lines, counter)
                continue
            if counter is not None and _lost(counter) <= 0:
                lines.insert(0, f"This comes from the bug {_and(settled, other)} {'charge' if len(other) > 1 else 'charges'}: "
                                f"with the reference's code in place of what {'they judge' if len(other) > 1 else 'it judges'}, "
                                f"this check passes (run again to find out). Charged once: {total:g} point(s) in "
                                f"all over {'these checks' if len(other) > 1 else 'the two checks'}, here {loss:g} "
                                f"of {own:g}.")
                out[check_id] = _charged_once(result, loss, lines)
                continue
        if lines:
            out[check_id] = replace(result, outcome=replace(result.outcome,
                                                             feedback=(*lines, *result.outcome.feedback)))
    return out


def _charged_once(result: CheckResult, loss: float, lines: Sequence[str]) -> CheckResult:
    """``result`` charged only ``loss`` (the rest is its prerequisites' bug): its status says what
    its points say (passed at full points, partial below them), whatever its own run ended in (an
    error, a timeout): the feedback says what that run did and why it costs only this."""
    score_ = round(result.max_score - loss, 4)
    status = PASSED if loss <= 0 else PARTIAL if score_ > 0 else result.outcome.status
    outcome = replace(result.outcome, feedback=(*lines, *result.outcome.feedback), status=status)
    return replace(result, score=score_, outcome=outcome)


def _unsettled(result: CheckResult, settled: Mapping[str, CheckResult], other: Sequence[str], own: float,
               loss: float, total: float, lines: list[str], counter: CheckResult) -> CheckResult:
    """``result`` kept at its own loss and sent to review: its counterfactual run ended without a
    verdict (``counter``: cut by the grading's time budget, timed out, crashed or raised), so whether
    ``other``'s bugs explain its failure is not known."""
    they = "they judge" if len(other) > 1 else "it judges"
    why = _UNPROVEN[counter.status]
    said = next((line for line in counter.outcome.feedback if line.strip()), "") if counter.status != NOT_RUN else ""
    ran = (f"{_label(result)} ran once more with the reference's code in place of what {_and(settled, other)} "
           f"{'judge' if len(other) > 1 else 'judges'}")
    fix = ("Rerun the grading with a larger budget (grader grade --budget) to settle it" if counter.status == NOT_RUN
           else "Rerun the grading to settle it, or decide by reading both checks' feedback")
    review = (f"charge not settled: {ran} (to find out whether {'their bugs explain' if len(other) > 1 else 'its bug explains'} "
              f"this failure), and {why}{f' ({said})' if said else ''}: that proves nothing either way, so each check "
              f"keeps its own loss for now. If it would pass that way, charge once: {loss:g} of {own:g} here, "
              f"{total:g} point(s) in all over these checks; else keep {own:g} here. {fix}")
    lines.insert(0, f"Not settled: whether this failure comes from the bug {_and(settled, other)} "
                    f"{'charge' if len(other) > 1 else 'charges'} could not be found out (this check ran again with "
                    f"the reference's code in place of what {they}, and {why}). "
                    "For now each check keeps its own loss; course staff will review it.")
    outcome = replace(result.outcome, feedback=(*lines, *result.outcome.feedback), review=review)
    return replace(result, outcome=outcome)


def _and(settled: Mapping[str, CheckResult], ids: Sequence[str]) -> str:
    return " and ".join(_label(settled[i]) for i in ids)
