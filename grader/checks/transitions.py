"""Checks of PartialParse (3c): construction, each transition, parse, the 3(a) example."""

from __future__ import annotations

from typing import Any

from grader.checks.api import CheckContext, Trials, check
from grader.checks.parsing_inputs import fmt_config, legal_sequence, sentence
from grader.results import Outcome

FILES = ("parser_transitions.py",)

EXAMPLE = "I presented my findings at the NLP conference".split()
EXAMPLE_SEQUENCE = "S S LA S S LA RA S S S S LA LA LA RA RA".split()
NAMES = {"S": "SHIFT", "LA": "LEFT-ARC", "RA": "RIGHT-ARC"}


def _deps(pp_deps) -> list[list[str]]:
    return [[str(h), str(d)] for h, d in pp_deps]


def _ref_state(pp) -> dict[str, Any]:
    return {"stack": list(pp.stack), "buffer": list(pp.buffer), "dependencies": _deps(pp.dependencies)}


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
def parse_step(ctx: CheckContext) -> Outcome:
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
        if problems and case["repeated"] and result["dependencies"] == exp["dependencies"]:
            problems.append("the same word appears twice on this stack: remove items by position "
                            "(pop), not by value (remove)")
        if (problems and case["transition"] != "S" and result["dependencies"] != exp["dependencies"]
                and result["dependencies"][-1:] == [exp["dependencies"][-1][::-1]]):
            problems.append("the arc is reversed: dependencies are (head, dependent)")
        trials.record(not problems, f"{where}: " + "; ".join(problems))
    return trials.outcome()


@check("pp_parse", files=FILES, names=("parser_transitions.PartialParse",))
def parse(ctx: CheckContext) -> Outcome:
    """parse() applies the whole sequence: 2n steps end in the terminal state with n arcs.

    Sentences here have distinct words and arcs are compared with the parse's own
    dependencies, so bugs of a single transition are charged to pp_parse_step alone.
    """
    trials = Trials()
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
        if got["stack"] != ["ROOT"] or got["buffer"]:
            problems.append(f"after all {len(seq)} = 2n steps the configuration is stack {got['stack']}, "
                            f"buffer {got['buffer']}; expected the terminal one: stack ['ROOT'], buffer []")
        if len(got["dependencies"]) != n:
            problems.append(f"{len(got['dependencies'])} dependencies for {n} words; expected one per word")
        trials.record(not problems, f"{what}: " + "; ".join(problems))
    return trials.outcome()


@check("pp_example_3a", files=FILES, names=("parser_transitions.PartialParse",))
def example_3a(ctx: CheckContext) -> Outcome:
    ref = ctx.ref.parser_transitions
    pp = ref.PartialParse(list(EXAMPLE))
    gold = [_ref_state(pp)]
    for t in EXAMPLE_SEQUENCE:
        pp.parse_step(t)
        gold.append(_ref_state(pp))
    got = ctx.call("pp_trace", f"the 3(a) sentence {' '.join(EXAMPLE)!r} step by step",
                   sentence=EXAMPLE, transitions=EXAMPLE_SEQUENCE)
    trials = Trials()
    first_bad = None
    for step, (g, e) in enumerate(zip(got, gold)):
        if g != e and first_bad is None:
            first_bad = step
    ok = first_bad is None and len(got) == len(gold)
    message = ""
    if first_bad is not None:
        t = EXAMPLE_SEQUENCE[first_bad - 1] if first_bad else "the initial configuration"
        e, g = gold[first_bad], got[first_bad]
        message = (f"row {first_bad} of the 3(a) table (after {NAMES.get(t, t)}) differs: got "
                   f"{fmt_config(g['stack'], g['buffer'], g['dependencies'])}; expected "
                   f"{fmt_config(e['stack'], e['buffer'], e['dependencies'])}")
    trials.record(ok, message)
    if ok:
        trials.note(f"all {len(EXAMPLE_SEQUENCE)} = 2n steps reproduce the gold configurations")
    return trials.outcome()
