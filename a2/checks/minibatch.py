"""Checks of minibatch_parse (3d) with scripted dummy models.

The worker's model replays, for each sentence, a transition sequence chosen here: the
course's unidirectional and interleaving dummy models (simulated with the reference), or
random legal sequences. If the student's PartialParse is wrong, the worker replays the
configurations the reference goes through (recorded here and sent as data: no parser runs next
to student code), so a 3(c) bug does not cost 3(d) points as well. The student kit sends none:
there minibatch_parse runs on the student's own PartialParse.
"""

from __future__ import annotations

from typing import Any

from a2.bug_shapes import BugShape, diagnose
from a2.checks.helpers.parsing_inputs import legal_sequence, rule_sequence, sentence
from grader.run.check_api import CheckContext, Trials, check, check_label
from grader.run.results import Outcome

FILES = ("parser_transitions.py",)


def _sentences(ctx: CheckContext, n: int, first_words=("right", "left"),
               lengths: tuple[int, ...] | None = None) -> list[list[str]]:
    """n distinct sentences (distinct content lets the model tell copies apart); the k-th has
    lengths[k] words after its first when ``lengths`` is given, else 0 to 7."""
    out: list[list[str]] = []
    while len(out) < n:
        low, high = (lengths[len(out)],) * 2 if lengths else (0, 7)
        s = [str(ctx.rng.choice(first_words))] + sentence(ctx.rng, low, high)
        if s not in out:
            out.append(s)
    return out


def _batch_size(ctx: CheckContext, n: int, trial: int) -> int:
    """Alternate small batches, batch_size == n and batch_size > n."""
    return [int(ctx.rng.integers(1, max(2, n))), n, n + int(ctx.rng.integers(1, 5))][trial % 3]


def _run(ctx: CheckContext, sentences, scripts, batch_size, label) -> tuple[dict | None, str | None, str]:
    what = (f"minibatch_parse({len(sentences)} sentences, {label} model, batch_size={batch_size})")
    extra = {} if getattr(ctx.ref, "kit", False) else {"traces": _traces(ctx, sentences, scripts)}
    got, err = ctx.try_call("mb_parse", what, sentences=sentences, scripts=scripts, batch_size=batch_size,
                            **extra)
    return got, err, what


def _traces(ctx: CheckContext, sentences, scripts) -> list[list[dict[str, Any]]]:
    """The reference's configuration before and after each step of each script, as plain data."""
    out = []
    for s, script in zip(sentences, scripts):
        pp = ctx.ref.parser_transitions.PartialParse(list(s))
        trace = [_state(pp)]
        for t in script:
            pp.parse_step(t)
            trace.append(_state(pp))
        out.append(trace)
    return out


def _state(pp: Any) -> dict[str, Any]:
    return {"stack": [str(x) for x in pp.stack], "buffer": [str(x) for x in pp.buffer],
            "dependencies": [[str(h), str(d)] for h, d in pp.dependencies]}


def _expected(ctx: CheckContext, sentences, scripts) -> list[list[list[str]]]:
    ref = ctx.ref.parser_transitions
    return [[[str(h), str(d)] for h, d in ref.PartialParse(list(s)).parse(seq)]
            for s, seq in zip(sentences, scripts)]


def _results_problem(got: dict[str, Any], expected) -> str:
    deps = got["dependencies"]
    if len(deps) != len(expected):
        return f"returned {len(deps)} dependency lists for {len(expected)} sentences"
    for i, (g, e) in enumerate(zip(deps, expected)):
        if g != e:
            if sorted(map(tuple, g)) in [sorted(map(tuple, x)) for x in expected if x != e]:
                return (f"sentence {i}'s entry holds another sentence's dependencies: return them "
                        "in the order of the input sentences")
            message = f"sentence {i}: got {[tuple(x) for x in g]}; expected {[tuple(x) for x in e]}"
            if len(g) < len(e) and g == e[:len(g)]:
                message += f". Its parse stopped after {len(g)} of {len(e)} arcs" + _why_stopped(got)
            return message
    return ""


def _is_run(got: dict[str, Any], variant: str, keys: tuple[str, ...] | None = None) -> bool:
    """Whether the worker's report is, on ``keys`` (default: all), what the trusted process
    computed for that wrong ``variant`` of minibatch_parse on the same inputs."""
    run = got.get(variant)
    return run is not None and all(got.get(k) == run[k] for k in keys or run)


def _why_stopped(got: dict[str, Any]) -> str:
    """Why a parse stopped short, said only as far as the run shows it: the index hint only when
    every sentence's result is what deleting finished parses by index gives (computed here)."""
    if _is_run(got, "index_deletion"):
        return (": it left the unfinished parses before it was finished. Deleting parses by index while "
                "iterating shifts the indices of the later ones: build the list of unfinished parses anew instead")
    if not got["returned_normally"] and got["finished_given"]:
        return (f": minibatch_parse never gave it its remaining steps and was stopped while model.predict was "
                f"still given finished parses ({got['finished_given']} time(s)): a finished parse left in the "
                f"list the minibatches are taken from holds the place of an unfinished one (see "
                f"{check_label('mb_finished_removed')})")
    if not got["returned_normally"]:
        return ": minibatch_parse was stopped (it went on calling model.predict) before this parse was finished"
    return ": minibatch_parse returned before it was finished; go on until no unfinished parse is left"


def _deleted_by_index(scripts: list[list[str]], expected, batch_size: int,
                      skipping: bool = False) -> dict[str, Any] | None:
    """What the worker reports (each sentence's dependencies, whether it returned, how often a
    finished parse was given to predict, the minibatch sizes) when finished parses are deleted by
    index while the loop goes on, with the worker's scripted model: as they finish, by their index
    in the minibatch (``del unfinished[i]``: each deletion shifts the later parses, so the wrong
    ones leave), or, ``skipping``, by their index in the unfinished list while iterating over it
    (the parse shifted into the slot just checked is skipped). None when that raises IndexError.
    Plain bookkeeping over the scripts: no parser runs here."""
    steps = [0] * len(scripts)
    unfinished = list(range(len(scripts)))
    sizes: list[int] = []
    given, limit = 0, 20 * (1 + sum(len(s) for s in scripts))
    returned = True
    while unfinished:
        batch = unfinished[:batch_size]
        sizes.append(len(batch))
        done = [steps[j] >= len(scripts[j]) for j in batch]
        given += sum(done)
        if len(sizes) > limit or all(done) and all(k >= len(s) for k, s in zip(steps, scripts)):
            returned = False    # where the worker's model stops a minibatch_parse that goes on
            break
        for i, j in enumerate(batch):
            steps[j] = min(steps[j] + 1, len(scripts[j]))
            if not skipping and steps[j] == len(scripts[j]):
                if i >= len(unfinished):
                    return None
                del unfinished[i]
        i = 0
        while skipping and i < len(unfinished):
            if steps[unfinished[i]] == len(scripts[unfinished[i]]):
                del unfinished[i]
            i += 1
    deps = [e[:sum(t != "S" for t in script[:k])] for e, script, k in zip(expected, scripts, steps)]
    return {"dependencies": deps, "returned_normally": returned, "finished_given": given, "batch_sizes": sizes}


def _together(ctx: CheckContext) -> list[list[str]]:
    """Two sentences of one length then a longer one: with one rule for all, the first two finish
    at the same step while the third goes on (removing finished parses by index trips on this)."""
    length = int(ctx.rng.integers(2, 6))
    return _sentences(ctx, 3, lengths=(length - 1, length - 1, length + 1))


def _mb_trials(ctx: CheckContext, kinds: list[str], judge) -> Outcome:
    trials = Trials()
    for trial, kind in enumerate(kinds):
        n = int(ctx.rng.integers(2, 9))
        sentences = _together(ctx) if kind == "together" else _sentences(ctx, n)
        if kind == "random":
            scripts = [legal_sequence(len(s), ctx.rng) for s in sentences]
        else:
            rule = "unidirectional" if kind == "together" else kind
            scripts = [rule_sequence(ctx.ref.parser_transitions, s, rule) for s in sentences]
        batch_size = len(sentences) if kind == "together" else _batch_size(ctx, n, trial)
        got, err, what = _run(ctx, sentences, scripts, batch_size, kind)
        if err or got is None:
            trials.record(False, err or f"{what}: no result")
            continue
        if not got["used_student_partial_parse"]:
            trials.note("your PartialParse gave wrong configurations, so minibatch_parse was run "
                        "with stand-in parses that replay the right configurations (its own bugs are "
                        "charged in 3(c) only)")
        # Compared here, not in the worker: the sentences as they were sent, and as they came back;
        # and what two wrong ways of removing finished parses give on the same inputs.
        got["sentences_unchanged"] = got.get("sentences_after") == sentences
        expected = _expected(ctx, sentences, scripts)
        got["index_deletion"] = _deleted_by_index(scripts, expected, batch_size)
        got["index_skipping"] = _deleted_by_index(scripts, expected, batch_size, skipping=True)
        if "raised" in got:
            named = diagnose(RAISED, got)
            raised = f"{what} raised {got['raised']}" + (f": {named.message}" if named else "")
            if judge is _judge_results:
                trials.record(False, raised)
                continue
            # The crash is charged to the results checks; this check judges the calls made before it.
            got.update(returned_normally=True, dependencies=[])
            problem = judge(got, [], batch_size) if got["batch_sizes"] else raised
            if not problem:
                trials.note(f"minibatch_parse raised an error (charged to {check_label('mb_results')}); the calls "
                            "to predict before it were judged here")
            trials.record(not problem, f"{what}: {problem}")
            continue
        problem = judge(got, expected, batch_size)
        if problem and 0 in got["batch_sizes"]:  # one cause, named in every check it breaks
            problem = EMPTY_BATCH
        trials.record(not problem, f"{what}: {problem}")
    if getattr(ctx.ref, "kit", False) and trials.passed < trials.total:
        trials.note("the student kit runs minibatch_parse on your own PartialParse: if "
                    f"{check_label('pp_parse_step')} fails, fix that check first")
    return trials.outcome()


RAISED: tuple[BugShape[dict], ...] = (
    BugShape("mb_delete_by_index",
             lambda got: got["raised"].startswith("IndexError")
             and any(op in got.get("raised_line", "") for op in ("del ", ".pop(")),
             "parses are deleted from the list by index while the loop goes on with the old indices: "
             "after a deletion every later parse has shifted down by one, so the indices point at the wrong "
             "parses or past the end. Build the list of unfinished parses anew after each step (or "
             "remove the parse objects themselves) instead"),
)


#: predict given [] while parses remain: the parse stops progressing, which every check sees.
EMPTY_BATCH = ("model.predict was called with an empty list of parses while some were unfinished, so "
               "those never progressed: the minibatch must be the first batch_size of the unfinished "
               "parses (a slice that starts at batch_size takes the others, and none once at most "
               "batch_size remain)")


def _judge_results(got, expected, batch_size) -> str:
    return _results_problem(got, expected)


def _judge_batches(got, expected, batch_size) -> str:
    sizes = got["batch_sizes"]
    if not sizes:
        return "model.predict was never called"
    too_big = [s for s in sizes if s > batch_size]
    if too_big:
        return (f"model.predict was given {max(too_big)} partial parses in one call "
                f"({len(too_big)} of {len(sizes)} calls over the limit); at most batch_size={batch_size}")
    if 0 in sizes:
        return "model.predict was called with an empty list of parses"
    return ""


PARTLY_REMOVED = ("; some finished parses were removed and others were not, as when parses are deleted by "
                  "index while iterating over them (each deletion shifts the next one into the slot just "
                  "checked): build the list of unfinished parses anew after each step")


def _judge_finished(got, expected, batch_size) -> str:
    problems = []
    if got["finished_given"]:
        partly = any(_is_run(got, v, ("finished_given", "batch_sizes")) for v in ("index_deletion", "index_skipping"))
        problems.append(f"model.predict was given already-finished parses {got['finished_given']} time(s); "
                        "remove a parse from the unfinished ones as soon as its buffer is empty and "
                        "its stack holds only ROOT" + (PARTLY_REMOVED if partly else ""))
    if not got["returned_normally"]:
        problems.append("minibatch_parse kept going after every parse had finished (it was stopped)")
    if not got["sentences_unchanged"]:
        problems.append("the input sentences were modified: PartialParse must copy them into its buffer")
    return "; ".join(problems)


# An empty or oversized minibatch is 4.3's bug, finished parses removed wrongly 4.4's: the results
# checks that such a bug breaks name that check first.
@check("mb_results", files=FILES, names=("parser_transitions.minibatch_parse",),
       depends_on=("mb_batch_size", "mb_finished_removed"))
def results(ctx: CheckContext) -> Outcome:
    return _mb_trials(ctx, ["unidirectional", "interleave"] * 3, _judge_results)


@check("mb_random_model", files=FILES, names=("parser_transitions.minibatch_parse",),
       depends_on=("mb_results", "mb_batch_size"))
def random_model(ctx: CheckContext) -> Outcome:
    return _mb_trials(ctx, ["random"] * 4, _judge_results)


@check("mb_batch_size", files=FILES, names=("parser_transitions.minibatch_parse",))
def batch_size(ctx: CheckContext) -> Outcome:
    return _mb_trials(ctx, ["unidirectional", "random", "interleave", "random"], _judge_batches)


@check("mb_finished_removed", files=FILES, names=("parser_transitions.minibatch_parse",),
       depends_on=("mb_batch_size",))
def finished_removed(ctx: CheckContext) -> Outcome:
    return _mb_trials(ctx, ["random", "interleave", "random", "unidirectional", "together"], _judge_finished)
