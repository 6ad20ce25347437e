"""Credit moved between checks once every check of a grading has run, in the trusted process.

Two relations, one settlement: a *charge* (a check's trial passed because its bug belongs to
another check, with the proof that the other check's function is wrong on that trial's own
arguments) and a *dependency* (a check that exercises a function another check judges, declared
with ``@check(..., depends_on=...)``). Points stay in rubric.yaml: this only decides which
check pays for a bug, never what a check is worth.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from grader.run.results import FAILED, PARTIAL, PASSED, CheckResult, Outcome, score
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


def settle_charges(results: Mapping[str, CheckResult], specs: Mapping[str, CheckSpec],
                   depends_on: Mapping[str, Sequence[str]] | None = None) -> dict[str, CheckResult]:
    """Move credit between checks, in the trusted process, once every check has run.

    Charges: a check's trial that passed because its bug belongs to another check keeps that credit
    only if the other check fails in this run and, when the charge carries a :class:`Proof`, the
    other check's function is wrong on that trial's own arguments (compared here). The proved
    trials are then added to the other check as failed trials, with the arguments and values: the
    bug is charged there, on the same arguments. (A sigmoid wrong only where negative sampling asks
    it must not pass both checks; nor move the credit because the sigmoid fails somewhere else.)

    Dependencies (``depends_on``: check id -> the checks it depends on, declared with ``@check``):
    a failing check that ran, whose prerequisite fails in this run, names that check first and loses
    at most what its most costly failing prerequisite lost, so no bug costs a dependent check more
    than its own check (which itself lost points: a broken submission never has both full). A check
    that could not run at all (a stub, a file that does not import: ``Outcome.ran``) is not capped.
    A capped check is put on the review list (``Outcome.review``): the cap assumes the prerequisite's
    bug is the cause, which staff confirm, so breaking a cheap check on purpose buys nothing.
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
    if depends_on:
        roots: dict[str, tuple[str, ...]] = {}
        for check_id in list(settled):
            _cap(check_id, settled, depends_on, roots, ())
    return settled


def _hidden_from(specs: Mapping[str, CheckSpec], source: str, target: str) -> bool:
    """Whether ``source`` is held back where ``target`` is shown: its arguments (and trial count)
    must not reach the target's feedback before the due date, so its proved trials stay its own."""
    return specs[source].visibility != "visible" and specs[target].visibility == "visible"


def _lost(result: CheckResult) -> float:
    return round(result.max_score - result.score, 4)


def _cap(check_id: str, settled: dict[str, CheckResult], depends_on: Mapping[str, Sequence[str]],
         roots: dict[str, tuple[str, ...]], path: tuple[str, ...]) -> None:
    """Cap ``check_id``'s loss at what the checks that carry the bug lost (its failing
    prerequisites, or, where those fail because of theirs, the checks at the start of the chain:
    ``roots``, filled as each check is settled, prerequisites first)."""
    if check_id in roots or check_id in path:
        return
    prerequisites = [p for p in depends_on.get(check_id, ()) if p in settled and p != check_id]
    for prerequisite in prerequisites:
        _cap(prerequisite, settled, depends_on, roots, (*path, check_id))
    result = settled[check_id]
    failing = [p for p in prerequisites if _lost(settled[p]) > 0 and p in roots]
    if _lost(result) <= 0 or not failing or not result.outcome.ran:
        roots[check_id] = (check_id,)  # (a check that could not run, its file unimportable say, fails on its own)
        return
    carriers = tuple(dict.fromkeys(root for p in failing for root in roots[p]))
    roots[check_id] = carriers
    several = len(carriers) > 1
    cap = max(_lost(settled[c]) for c in carriers)
    line = (f"Fix {' and '.join(_label(settled[c]) for c in carriers)} first: this check depends on "
            f"{'them' if several else 'it'}, and {'they fail' if several else 'it fails'} in this grading, so "
            "that bug is the likely cause here")
    new_score = round(max(result.score, result.max_score - cap), 4)
    review = ""
    if new_score > result.score:
        line += (f"; this check loses at most what {'they' if several else 'that check'} lost: {cap:g} point(s) "
                 f"here, not {_lost(result):g}")
        review = (f"score raised by {round(new_score - result.score, 4):g} point(s) because "
                  f"{' and '.join(_label(settled[c]) for c in carriers)} {'fail' if several else 'fails'}: "
                  "confirm that bug causes this failure (a cheap prerequisite broken on purpose would cap a "
                  "costly failure); if it does not, this check keeps its own score of "
                  f"{result.score:g}/{result.max_score:g}")
    outcome = replace(result.outcome, feedback=(line + ".", *result.outcome.feedback),
                      review=result.outcome.review or review)
    settled[check_id] = replace(result, score=new_score, outcome=outcome)
