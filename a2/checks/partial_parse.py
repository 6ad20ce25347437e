"""Checks of PartialParse (3c): construction, each transition, parse, the 3(a) example.

A wrong configuration is tested against the declared bug shapes of each transition (computed
here from the configuration before the step) and named when one fits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from a2.bug_shapes import BugShape, diagnose
from a2.checks.helpers.parsing_inputs import fmt_config, legal_sequence, sentence
from grader.run.check_api import CheckContext, Trials, check, check_label
from grader.run.results import Outcome

FILES = ("parser_transitions.py",)

EXAMPLE = "I presented my findings at the NLP conference".split()
NAMES = {"S": "SHIFT", "LA": "LEFT-ARC", "RA": "RIGHT-ARC"}


def _deps(pp_deps) -> list[list[str]]:
    return [[str(h), str(d)] for h, d in pp_deps]


def _ref_state(pp) -> dict[str, Any]:
    return {"stack": list(pp.stack), "buffer": list(pp.buffer), "dependencies": _deps(pp.dependencies)}


@dataclass(frozen=True)
class StepCase:
    """One parse_step: the configuration before, the transition, the right result and the student's."""

    stack: list[str]
    buffer: list[str]
    dependencies: list[list[str]]
    transition: str
    expected: dict[str, Any]
    got: dict[str, Any]


State = tuple[list[str], list[str], list[list[str]]]


def _step_shape(shape_id: str, transition: str, variant: Callable[[list[str], list[str]], State],
                message: str) -> BugShape[StepCase]:
    """A wrong transition: ``variant(stack, buffer)`` gives the new stack, buffer and added arcs."""
    def matches(case: StepCase) -> bool:
        if case.transition != transition:
            return False
        stack, buffer, arcs = variant(list(case.stack), list(case.buffer))
        wrong = {"stack": stack, "buffer": buffer, "dependencies": [*case.dependencies, *arcs]}
        return wrong != case.expected and all(case.got.get(k) == wrong[k] for k in wrong)
    return BugShape(shape_id, matches, message)


def _removed(items: list[str], position: int) -> list[str]:
    out = list(items)
    del out[position]
    return out


def _removed_by_value(items: list[str], position: int) -> list[str]:
    out = list(items)
    out.remove(items[position])
    return out


PARSE_STEP: tuple[BugShape[StepCase], ...] = (
    _step_shape("shift_takes_last_word", "S", lambda st, buf: ([*st, buf[-1]], buf[:-1], []),
                "SHIFT took the last word of the buffer; it moves the first one (the buffer's front, "
                "e.g. pop(0)) onto the stack"),
    _step_shape("shift_keeps_word_in_buffer", "S", lambda st, buf: ([*st, buf[0]], buf, []),
                "SHIFT put the first buffer word on the stack but left it in the buffer: move it"),
    _step_shape("la_arc_reversed", "LA", lambda st, buf: (_removed(st, -2), buf, [[st[-2], st[-1]]]),
                "the arc is reversed: dependencies are (head, dependent), and LEFT-ARC's head is the top "
                "of the stack"),
    _step_shape("la_removes_head", "LA", lambda st, buf: (_removed(st, -1), buf, [[st[-1], st[-2]]]),
                "LEFT-ARC removed the head (the top of the stack); it removes the dependent, the second "
                "item from the top"),
    _step_shape("la_remove_by_value", "LA", lambda st, buf: (_removed_by_value(st, -2), buf, [[st[-1], st[-2]]]),
                "the same word appears twice on this stack and the wrong copy was removed: remove items "
                "by position (pop), not by value (remove)"),
    _step_shape("la_keeps_dependent", "LA", lambda st, buf: (st, buf, [[st[-1], st[-2]]]),
                "LEFT-ARC added the arc but left the dependent on the stack: remove it"),
    _step_shape("la_does_right_arc", "LA", lambda st, buf: (_removed(st, -1), buf, [[st[-2], st[-1]]]),
                "LEFT-ARC did what RIGHT-ARC does: 'LA' makes the second item a dependent of the top "
                "item, 'RA' the top item a dependent of the second"),
    _step_shape("ra_arc_reversed", "RA", lambda st, buf: (_removed(st, -1), buf, [[st[-1], st[-2]]]),
                "the arc is reversed: dependencies are (head, dependent), and RIGHT-ARC's head is the "
                "second item from the top"),
    _step_shape("ra_removes_head", "RA", lambda st, buf: (_removed(st, -2), buf, [[st[-2], st[-1]]]),
                "RIGHT-ARC removed the head (the second item from the top); it removes the dependent, the "
                "top of the stack"),
    _step_shape("ra_remove_by_value", "RA", lambda st, buf: (_removed_by_value(st, -1), buf, [[st[-2], st[-1]]]),
                "the same word appears twice on this stack and the wrong copy was removed: remove items "
                "by position (pop), not by value (remove)"),
    _step_shape("ra_keeps_dependent", "RA", lambda st, buf: (st, buf, [[st[-2], st[-1]]]),
                "RIGHT-ARC added the arc but left the dependent on the stack: remove it"),
    _step_shape("ra_does_left_arc", "RA", lambda st, buf: (_removed(st, -2), buf, [[st[-1], st[-2]]]),
                "RIGHT-ARC did what LEFT-ARC does: 'RA' makes the top item a dependent of the second "
                "item, 'LA' the second item a dependent of the top"),
)


def step_diagnosis(stack: list[str], buffer: list[str], deps: list[list[str]], transition: str,
                   expected: dict[str, Any], got: dict[str, Any]) -> str:
    """The message of the bug shape a wrong step matches, or ""."""
    shape = diagnose(PARSE_STEP, StepCase(stack, buffer, deps, transition, expected, got))
    return shape.message if shape is not None else ""


@check("pp_init", files=FILES, names=("parser_transitions.PartialParse",))
def init(ctx: CheckContext) -> Outcome:
    trials = Trials()
    for _ in range(4):
        words = sentence(ctx.rng)
        got, err = ctx.try_call("pp_init", f"PartialParse({words})", sentence=words)
        if err:
            trials.record(False, err)
            continue
        problems = []
        if got["stack"] != ["ROOT"]:
            problems.append(f"stack is {got['stack']}; expected ['ROOT']")
        if got["buffer"] != words:
            problems.append(f"buffer is {got['buffer']}; expected the sentence's words in order {words}")
        if got["dependencies"] != []:
            problems.append(f"dependencies is {got['dependencies']}; expected an empty list")
        if got["sentence_after_buffer_change"] != words:
            problems.append("changing the buffer changed the sentence passed in: the buffer must be a "
                            "copy (e.g. list(sentence)), not the same list")
        trials.record(not problems, f"PartialParse({words}): " + "; ".join(problems))
    return trials.outcome()


def _configurations(ctx: CheckContext, count: int) -> list[dict[str, Any]]:
    """Reachable configurations paired with a legal transition, half with a repeated dependent."""
    rng = ctx.rng
    ref = ctx.ref.parser_transitions
    cases: list[dict[str, Any]] = []
    wanted = ["S", "LA", "RA"] * (count // 3 + 1)
    attempts = 0
    while len(cases) < count and attempts < 5000:
        attempts += 1
        transition = wanted[len(cases)]
        words = sentence(rng, 3, 9, vocab=("the", "dog", "saw", "the", "dog", "a"))
        seq = legal_sequence(len(words), rng)
        cut = int(rng.integers(0, len(seq)))
        pp = ref.PartialParse(list(words))
        for t in seq[:cut]:
            pp.parse_step(t)
        legal = (transition == "S" and pp.buffer) or (transition != "S" and len(pp.stack) >= 3)
        if not legal:
            continue
        # Half of the arc cases: removing the dependent by value (list.remove takes the
        # lowest equal word) gives a different stack than removing it by position.
        repeated = False
        if transition != "S":
            position = -2 if transition == "LA" else -1
            by_value = list(pp.stack)
            by_value.remove(pp.stack[position])
            by_position = list(pp.stack)
            del by_position[position]
            repeated = by_value != by_position
        if transition != "S" and (len(cases) // 3) % 2 == 0 and not repeated:
            continue
        before = _ref_state(pp)
        pp.parse_step(transition)
        cases.append({"sentence": words, **before, "transition": transition,
                      "expected": _ref_state(pp), "repeated": repeated})
    return cases


@check("pp_parse_step", files=FILES, names=("parser_transitions.PartialParse",))
def check_parse_step(ctx: CheckContext) -> Outcome:
    cases = _configurations(ctx, 12)
    sent = [{k: c[k] for k in ("sentence", "stack", "buffer", "dependencies", "transition")} for c in cases]
    got = ctx.call("pp_apply", "PartialParse.parse_step on 12 configurations", cases=sent)
    trials = Trials()
    for case, result in zip(cases, got):
        where = (f"{NAMES[case['transition']]} ('{case['transition']}') from "
                 f"{fmt_config(case['stack'], case['buffer'], case['dependencies'])}")
        if "error" in result:
            trials.record(False, f"{where} raised {result['error']}")
            continue
        exp = case["expected"]
        problems = [f"{key} became {result[key]}; expected {exp[key]}"
                    for key in ("stack", "buffer", "dependencies") if result[key] != exp[key]]
        if problems:
            named = step_diagnosis(case["stack"], case["buffer"], case["dependencies"], case["transition"],
                                   exp, result)
            if named:
                problems.append(named)
        trials.record(not problems, f"{where}: " + "; ".join(problems))
    return trials.outcome()


def _wrong_step(ref, words: list[str], seq: list[str], trace: list[dict[str, Any]]) -> str:
    """The first step of ``trace`` (the student's configurations) that one right transition from
    the row before does not give, as a message; "" when every step is right."""
    for i, t in enumerate(seq, start=1):
        before = trace[i - 1]
        pp = ref.PartialParse(list(words))
        pp.stack, pp.buffer = list(before["stack"]), list(before["buffer"])
        pp.dependencies = [tuple(d) for d in before["dependencies"]]
        if (t == "S" and not pp.buffer) or (t != "S" and len(pp.stack) < 2):
            return f"step {i} ({NAMES[t]}) is not possible from the configuration your steps reached"
        pp.parse_step(t)
        if _ref_state(pp) != trace[i]:
            return f"step {i} ({NAMES[t]}) gives a wrong configuration"
    return ""


@check("pp_parse", files=FILES, names=("parser_transitions.PartialParse",))
def parse(ctx: CheckContext) -> Outcome:
    """parse() applies the whole sequence: it ends in the terminal state with one arc per word.

    Sentences here have distinct words. When the student's parse_step is itself wrong (charged to
    pp_parse_step), parse() is judged against the student's own steps instead: it must end where
    those steps end and return the dependencies they made, provided the steps do change the
    configuration (a parse_step that does nothing proves nothing, and earns nothing here).
    """
    trials = Trials()
    ref = ctx.ref.parser_transitions
    for _ in range(4):
        n = int(ctx.rng.integers(2, 10))
        words = [f"w{i}" for i in ctx.rng.permutation(20)[:n]]
        seq = legal_sequence(n, ctx.rng)
        what = f"PartialParse({words}).parse({seq})"
        got, err = ctx.try_call("pp_parse", what, sentence=words, transitions=seq)
        if err:
            trials.record(False, err)
            continue
        problems = []
        if got["returned"] != got["dependencies"]:
            problems.append(f"returned {got['returned']}, but the parse's dependencies are "
                            f"{got['dependencies']}: return self.dependencies")
        trace, terr = ctx.try_call("pp_trace", what, sentence=words, transitions=seq)
        wrong = _wrong_step(ref, words, seq, trace) if not terr else ""
        if wrong:
            final = trace[-1]
            moved = all(trace[i] != trace[i - 1] for i in range(1, len(trace)))
            if not moved:
                problems.append(f"{wrong}, and some of your steps leave the configuration unchanged, so "
                                f"parse() cannot be judged on them; {check_label('pp_parse_step')} names the bug")
            elif (got["stack"], got["buffer"], got["dependencies"]) != \
                    (final["stack"], final["buffer"], final["dependencies"]):
                problems.append(f"parse() ended in stack {got['stack']}, buffer {got['buffer']}, but applying "
                                f"your parse_step to each transition ends in stack {final['stack']}, buffer "
                                f"{final['buffer']}: parse() must apply each transition in order")
            else:
                trials.note(f"parse_step is wrong ({check_label('pp_parse_step')} says how); parse() was judged "
                            "on applying your own steps in order, which it does")
        else:
            if got["stack"] != ["ROOT"] or got["buffer"]:
                problems.append(f"after all {len(seq)} steps the configuration is stack {got['stack']}, "
                                f"buffer {got['buffer']}; expected the terminal one: stack ['ROOT'], buffer []")
            if len(got["dependencies"]) != n:
                problems.append(f"{len(got['dependencies'])} dependencies for {n} words; expected one per word")
        trials.record(not problems, f"{what}: " + "; ".join(problems))
    return trials.outcome()


@check("pp_example_3a", files=FILES, names=("parser_transitions.PartialParse",),
       depends_on=("pp_init", "pp_parse_step"))
def example_3a(ctx: CheckContext) -> Outcome:
    """The 3(a) sentence step by step. Each row is judged from the row before it as the student's
    parse produced it, so one wrong step (say, an arc recorded backwards) is one wrong row, and the
    correct steps after it are not counted as wrong."""
    ref = ctx.ref.parser_transitions
    # A random legal sequence, never the gold one (the answer to written question 3(a), which no
    # worker, recorded value or message may hold): the grader's own math says which that is.
    sequence = legal_sequence(len(EXAMPLE), ctx.rng)
    while ctx.ref.grader_math.is_gold_3a_sequence(sequence):
        sequence = legal_sequence(len(EXAMPLE), ctx.rng)
    got = ctx.call("pp_trace", f"the 3(a) sentence {' '.join(EXAMPLE)!r} step by step, with the "
                   f"transitions {' '.join(sequence)}", sentence=EXAMPLE, transitions=sequence)
    trials = Trials()
    initial = _ref_state(ref.PartialParse(list(EXAMPLE)))
    wrong: list[str] = []
    if got[0] != initial:
        e, g = initial, got[0]
        wrong.append(f"row 0 (the initial configuration) is {fmt_config(g['stack'], g['buffer'], g['dependencies'])}; "
                     f"expected {fmt_config(e['stack'], e['buffer'], e['dependencies'])}")
    for step, t in enumerate(sequence, start=1):
        before = got[step - 1]
        pp = ref.PartialParse(list(EXAMPLE))
        pp.stack, pp.buffer = list(before["stack"]), list(before["buffer"])
        pp.dependencies = [tuple(d) for d in before["dependencies"]]
        legal = (t == "S" and pp.buffer) or (t != "S" and len(pp.stack) >= 2)
        if not legal:
            wrong.append(f"row {step} ({NAMES[t]}) cannot follow row {step - 1}, whose configuration is already wrong")
            break
        pp.parse_step(t)
        e, g = _ref_state(pp), got[step]
        if g != e:
            named = step_diagnosis(before["stack"], before["buffer"], before["dependencies"], t, e, g)
            wrong.append(f"row {step} ({NAMES[t]}) from {fmt_config(before['stack'], before['buffer'], before['dependencies'])} "
                         f"gave {fmt_config(g['stack'], g['buffer'], g['dependencies'])}; expected "
                         f"{fmt_config(e['stack'], e['buffer'], e['dependencies'])}"
                         + (f": {named}" if named else ""))
    ok = not wrong
    message = ""
    if wrong:
        owner = "pp_init" if wrong[0].startswith("row 0") else "pp_parse_step"
        message = (f"{len(wrong)} of {len(sequence) + 1} configurations are wrong, each judged "
                   f"from the row before it; the first: {wrong[0]}. This is the bug that "
                   f"{check_label(owner)} reports")
    trials.record(ok, message)
    if ok:
        trials.note("every step gives the expected configuration")
    return trials.outcome()
