"""The model and training checks (a2/checks/model.py, training.py) and their probes.

Submissions are graded through the real engine with the in-process runner (same probes, same
wire encoding, no process boundary): the reference scores full marks on every seed, the
template scores zero, and each buggy submission under tests/submissions/buggy/ that touches
parser_model.py or run.py loses points on exactly the checks its expect.yaml names. train_uas
trains for ~15 s per submission, so everything that runs it is marked slow.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from conftest import REFERENCE, TEMPLATE, assemble, variant

from a2 import arcstandard
from a2.checks import model as model_checks
from a2.checks import training as training_checks
from a2.checks.helpers import model_params
from grader.reports import gradescope
from grader.run.budget import BudgetExhausted
from grader.run.engine import grade
from grader.run.results import NOT_RUN, GradeReport
from grader.run.settings import GradingSettings
from grader.sandbox import InProcessRunner
from grader.sandbox.runner import ProbeResult

MODEL_CHECKS = ("model_structure", "model_init", "model_embedding_lookup", "model_forward",
                "model_dropout", "model_gradients")
FAST_TRAINING_CHECKS = ("train_loop", "train_setup")
ALL_CHECKS = MODEL_CHECKS + FAST_TRAINING_CHECKS + ("train_uas",)
FAST_CHECKS = MODEL_CHECKS + FAST_TRAINING_CHECKS

BUGGY_DIR = Path(__file__).parent / "submissions" / "buggy"
OUR_FILES = {"parser_model.py", "run.py"}
BUGS = sorted(p for p in BUGGY_DIR.iterdir()
              if p.is_dir() and {f.name for f in p.glob("*.py")} and
              {f.name for f in p.glob("*.py")} <= OUR_FILES)


def grade_in_process(upload: Path, checks, seed: int) -> GradeReport:
    return grade(upload, GradingSettings(seed=seed, only=checks, runner_factory=InProcessRunner))


def failing(report: GradeReport) -> set[str]:
    return {c.id for c in report.checks if c.score < c.max_score}


def explain(report: GradeReport, ids) -> dict[str, tuple[str, ...]]:
    return {c.id: c.outcome.feedback for c in report.checks if c.id in ids}


# -- the reference and the template --------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_reference_scores_full_marks(seed, tmp_path):
    report = grade_in_process(assemble(None, tmp_path / "ref"), FAST_CHECKS, seed)
    assert {c.id for c in report.checks} == set(FAST_CHECKS)
    assert not failing(report), explain(report, failing(report))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_reference_reaches_the_uas_floor(seed, tmp_path):
    report = grade_in_process(assemble(None, tmp_path / "ref"), ("train_uas",), seed)
    (result,) = report.checks
    assert result.passed, result.outcome.feedback
    (name, value), = report.leaderboard
    assert name == "dev UAS" and value >= training_checks.UAS_FLOOR + 5


def test_template_scores_zero(tmp_path):
    report = grade_in_process(TEMPLATE, FAST_CHECKS, 0)
    assert all(c.score == 0 for c in report.checks), {c.id: c.score for c in report.checks}
    assert all(c.outcome.feedback for c in report.checks)


# -- realistic bugs --------------------------------------------------------------------------------


def expected_failures(bug: Path, checks) -> set[str]:
    expect = yaml.safe_load((bug / "expect.yaml").read_text())
    return set(expect["fails"]) & set(checks)


def test_every_bug_of_the_brief_is_in_the_corpus():
    names = {b.name for b in BUGS}
    assert {"model_nn_linear", "model_misspelled_names", "model_layout_transposed", "model_no_dropout",
            "model_dropout_always", "model_fixed_mask", "model_softmax_forward", "model_no_relu",
            "model_detached_lookup", "run_no_zero_grad", "run_adam_ignores_lr", "run_no_eval_mode",
            "run_no_train_mode", "run_cuda", "run_train_uses_main_globals"} <= names


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_bug_fails_exactly_its_checks(bug, tmp_path):
    report = grade_in_process(assemble(bug, tmp_path / "sub"), FAST_CHECKS, seed=7)
    expected = expected_failures(bug, FAST_CHECKS)
    assert failing(report) == expected, explain(report, failing(report) ^ expected)
    for c in report.checks:
        if c.id in expected:
            assert len(c.outcome.feedback) > 1, c.id  # the summary line and at least one reason


@pytest.mark.slow
@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_bug_and_the_uas_floor(bug, tmp_path):
    report = grade_in_process(assemble(bug, tmp_path / "sub"), ("train_uas",), seed=7)
    assert failing(report) == expected_failures(bug, ("train_uas",)), explain(report, ("train_uas",))


@pytest.mark.slow
@pytest.mark.parametrize(("bug", "prerequisite", "label"), [
    ("run_no_zero_grad", "train_loop", "5.7 (train_for_epoch"),
    ("run_no_optimizer_step", "train_loop", "5.7 (train_for_epoch"),
    ("run_onehot_long_targets", "train_loop", "5.7 (train_for_epoch"),
    ("model_lookup_not_flattened", "model_embedding_lookup", "5.3 (ParserModel.embedding_lookup"),
    ("model_lookup_interleaved", "model_embedding_lookup", "5.3 (ParserModel.embedding_lookup"),
    ("model_fixed_mask", "model_dropout", "5.5 (ParserModel.forward: dropout"),
    # its train reads model.embed_size, embeddings.shape, ...: the course's model must have them all
    ("model_lookup_unflattened_train_reads_sizes", "model_embedding_lookup", "5.3 (ParserModel.embedding_lookup"),
])
def test_a_bug_that_breaks_training_is_charged_once_over_its_check_and_5_9_at_the_larger_loss(
        bug, prerequisite, label, tmp_path):
    """Issue 32: the end-to-end check fails with the bug of the training loop (or of the model); run
    again with working code in that part's place it passes, so the two checks together lose the
    larger of their two losses (never the sum, never less), 5.9 says it comes from that check's bug,
    and nothing goes to review (grader/run/settle.py), graded together as in a real grading."""
    report = grade_in_process(assemble(BUGGY_DIR / bug, tmp_path / "sub"), (prerequisite, "train_uas"), seed=7)
    pre, uas = (next(c for c in report.checks if c.id == cid) for cid in (prerequisite, "train_uas"))
    pre_loss, uas_own = pre.max_score - pre.score, uas.max_score  # 5.9 (all or nothing) fails on its own
    assert pre_loss > 0, explain(report, (prerequisite, "train_uas"))
    assert round(pre_loss + uas.max_score - uas.score, 4) == max(pre_loss, uas_own), explain(report, ("train_uas",))
    assert uas.outcome.feedback[0].startswith(f"This comes from the bug check {label}"), uas.outcome.feedback
    assert not uas.needs_review and not pre.needs_review


class _BudgetGoneForTheCounterfactual(InProcessRunner):
    """The grading's budget runs out exactly when the counterfactual run starts."""

    def call(self, probe, args=None, *, timeout=10.0):
        if args and args.get("substitute"):
            raise BudgetExhausted
        return super().call(probe, args, timeout=timeout)


@pytest.mark.slow
def test_a_counterfactual_the_budget_cuts_is_flagged_for_review_never_silently_settled(tmp_path):
    """Issue 32: 5.7 and 5.9 fail (no optimizer.step()) and the budget runs out when 5.9 runs again
    with the course's loop: nothing is proven, so each keeps its own loss for now and 5.9 goes to
    review saying why and what was run (it used to keep its loss with no flag: charged twice, silently)."""
    report = grade(assemble(BUGGY_DIR / "run_no_optimizer_step", tmp_path / "sub"),
                   GradingSettings(seed=7, only=("train_loop", "train_uas"), runner_factory=_BudgetGoneForTheCounterfactual))
    loop, uas = (next(c for c in report.checks if c.id == cid) for cid in ("train_loop", "train_uas"))
    assert loop.score < loop.max_score and uas.score == 0 and uas.status != NOT_RUN, explain(report, ("train_uas",))
    assert uas.needs_review and not loop.needs_review
    assert "time budget ran out" in uas.review
    assert "ran once more with the reference's code in place of what check 5.7 (train_for_epoch" in uas.review
    assert uas.outcome.feedback[0].startswith("Not settled: whether this failure comes from the bug check 5.7")
    assert uas in report.reviews
    output = gradescope.to_results_json(report)["output"]
    assert "keep their own loss for now: whether the bug of a check they depend on" in output and "5.9 " in output


class _CounterfactualCrashes(InProcessRunner):
    """The worker dies (or the call times out) in the counterfactual run, and only there."""

    ended = "crashed"

    def call(self, probe, args=None, *, timeout=10.0):
        if args and args.get("substitute"):
            return ProbeResult(self.ended, stderr="Killed")
        return super().call(probe, args, timeout=timeout)


class _CounterfactualTimesOut(_CounterfactualCrashes):
    ended = "timeout"


@pytest.mark.slow
@pytest.mark.parametrize("runner", [_CounterfactualCrashes, _CounterfactualTimesOut], ids=["crash", "timeout"])
def test_a_counterfactual_that_crashes_or_times_out_is_flagged_for_review_never_scored(runner, tmp_path):
    """Issue 32: 5.7 and 5.9 fail (no optimizer.step()) and 5.9's run with the course's loop crashes
    or times out: that proves nothing, so 5.9 keeps its own loss for now and goes to review with the
    reason (it used to count as "not explained": both losses kept, silently, with no flag)."""
    report = grade(assemble(BUGGY_DIR / "run_no_optimizer_step", tmp_path / "sub"),
                   GradingSettings(seed=7, only=("train_loop", "train_uas"), runner_factory=runner))
    loop, uas = (next(c for c in report.checks if c.id == cid) for cid in ("train_loop", "train_uas"))
    assert loop.score < loop.max_score and uas.score == 0, explain(report, ("train_uas",))
    assert uas.needs_review and not loop.needs_review and uas in report.reviews
    assert ("ran past the check's time limit" if runner.ended == "timeout" else "worker process died") in uas.review
    assert "time budget" not in uas.review and "ran once more with the reference's code" in uas.review
    assert uas.outcome.feedback[0].startswith("Not settled: whether this failure comes from the bug check 5.7")


@pytest.mark.slow
def test_a_train_reading_the_main_blocks_globals_trains_on_the_one_route(tmp_path):
    """Issue 35: train() builds Adam from the main block's `model` (and train_for_epoch uses its
    `device`): the grader supplies both from the student's own main block and calls train as for
    everyone, at the same sizing, with feedback that describes what ran (no `python run.py -d`
    at 10 epochs of 1024, no timeout)."""
    checks = ("train_loop", "train_setup", "train_uas")
    report = grade_in_process(assemble(BUGGY_DIR / "run_globals_from_main", tmp_path / "sub"), checks, seed=7)
    assert not failing(report), explain(report, checks)
    uas = next(c for c in report.checks if c.id == "train_uas")
    shown = " ".join(uas.outcome.feedback)
    assert "read the global(s) `device`, `model` that only `python run.py` defines" in shown, shown
    assert "python run.py -d" not in shown and "Dev UAS of the trained model" in shown, shown


# -- correct solutions written differently ---------------------------------------------------------


ALTERNATIVE_MODEL = [
    # Feature by feature, dropout before the ReLU and only `if self.training`, addmm for the layers.
    ("        x = self.embeddings[w].reshape(w.shape[0], -1)",
     "        x = torch.cat([torch.index_select(self.embeddings, 0, w[:, i]) for i in range(w.shape[1])], dim=1)"),
    ("""        h = F.relu(x @ self.embed_to_hidden_weight + self.embed_to_hidden_bias)
        logits = self.dropout(h) @ self.hidden_to_logits_weight + self.hidden_to_logits_bias""",
     """        z = torch.addmm(self.embed_to_hidden_bias, x, self.embed_to_hidden_weight)
        if self.training:
            z = F.dropout(z, self.dropout_prob, training=True)
        logits = torch.addmm(self.hidden_to_logits_bias, F.relu(z), self.hidden_to_logits_weight)"""),
]


@pytest.mark.parametrize("seed", [11, 12])
def test_differently_written_model_scores_full_marks(seed, tmp_path):
    folder = variant(tmp_path, "parser_model.py", ALTERNATIVE_MODEL)
    report = grade_in_process(assemble(folder, tmp_path / "sub"), FAST_CHECKS, seed)
    assert not failing(report), explain(report, failing(report))


def test_train_for_epoch_returning_uas_and_loss_is_tolerated(tmp_path):
    folder = variant(tmp_path, "run.py", [
        ("        dev_UAS = train_for_epoch(", "        dev_UAS, _loss = train_for_epoch("),
        ("    return dev_UAS\n", "    return dev_UAS, loss_meter.avg\n")])
    report = grade_in_process(assemble(folder, tmp_path / "sub"), FAST_TRAINING_CHECKS, 4)
    assert not failing(report), explain(report, failing(report))
    assert any("tuple" in line for line in report.checks[0].outcome.feedback)


def test_a_loop_reading_main_blocks_model_behind_an_old_torch_version_assert_gets_it(tmp_path):
    """Issue 35, a real run.py of an older year: train_for_epoch calls the global `model` that only the
    main block defines, and the main block first asserts the course's torch version of that year.
    The grader runs the main block up to its train call to supply `model` as `python -O` would (an
    assert defines nothing): it used to stop at the assert, supply nothing, and 5.7 lost every trial
    to a NameError."""
    folder = variant(tmp_path, "run.py", [
        ("            logits = parser.model(train_x)\n", "            logits = model.forward(train_x)\n"),
        ("    model = ParserModel(embeddings)\n",
         "    assert torch.__version__ == \"1.0.0\", \"Please install torch version 1.0.0\"\n"
         "    model = ParserModel(embeddings)\n")])
    report = grade_in_process(assemble(folder, tmp_path / "sub"), FAST_TRAINING_CHECKS, 4)
    assert not failing(report), explain(report, failing(report))
    assert any("`model`" in line for line in report.checks[0].outcome.feedback)


def test_softmax_before_the_loss_is_named_when_the_loss_is_called_by_keyword(tmp_path):
    """Real loops call the loss by keyword (loss_func(target=..., input=...)): what reaches it is
    read from the keyword too, so a softmax there is named as it is for a positional call."""
    folder = variant(tmp_path, "run.py", [
        ("            loss = loss_func(logits, train_y)\n",
         "            loss = loss_func(target=train_y, input=torch.softmax(logits, dim=1))\n")])
    report = grade_in_process(assemble(folder, tmp_path / "sub"), ("train_loop",), 4)
    assert failing(report) == {"train_loop"}, explain(report, ("train_loop",))
    assert "the loss function was given the softmax of the model's logits" in " ".join(report.checks[0].outcome.feedback)


def test_train_for_epoch_returning_loss_then_uas_is_tolerated(tmp_path):
    """Issue 35, a real run.py: train_for_epoch returns (average loss, dev UAS) and train unpacks it in
    that order. 5.7 lost 2 of 8 trials (it took the first item as the UAS) and 5.8 2 of 8 (the stand-in
    train_for_epoch unpacked as (UAS, 0.0), so the student's train read a UAS of 0 and never saved)."""
    folder = variant(tmp_path, "run.py", [
        ("        dev_UAS = train_for_epoch(", "        avg_loss, dev_UAS = train_for_epoch("),
        ("    return dev_UAS\n", "    return loss_meter.avg, dev_UAS\n")])
    report = grade_in_process(assemble(folder, tmp_path / "sub"), FAST_TRAINING_CHECKS, 4)
    assert not failing(report), explain(report, failing(report))
    assert any("item 2 is the dev UAS" in line for line in report.checks[0].outcome.feedback)


# -- feedback that teaches ------------------------------------------------------------------------


def feedback_of(bug: str, check: str, tmp_path) -> str:
    report = grade_in_process(assemble(BUGGY_DIR / bug, tmp_path / "sub"), (check,), seed=3)
    return "\n".join(report.checks[0].outcome.feedback)


@pytest.mark.parametrize("bug, check, phrase", [
    ("model_softmax_forward", "model_forward", "softmax of the expected logits"),
    ("model_no_relu", "model_forward", "without the ReLU"),
    ("model_no_dropout", "model_dropout", "no hidden unit was zeroed"),
    ("model_dropout_always", "model_dropout", "two identical calls returned different logits"),
    ("model_detached_lookup", "model_gradients", "no gradient reached `embeddings`"),
    ("model_nn_linear", "model_structure", "torch.nn.Linear and torch.nn.Embedding are not allowed"),
    ("model_misspelled_names", "model_structure", "name it embed_to_hidden_weight"),
    ("run_no_zero_grad", "train_loop", "zero_grad was called 0 times"),
    ("run_adam_ignores_lr", "train_setup", "0.001 is Adam's default"),
    ("run_no_eval_mode", "train_loop", "call parser.model.eval()"),
    ("run_no_train_mode", "train_loop", "call parser.model.train()"),
    ("run_cuda", "train_loop", "There is no GPU on the grading machine"),
    ("model_layout_transposed", "model_forward", "(transposed): tolerated"),
    ("run_train_uses_main_globals", "train_setup", "read the global(s) `model` that only `python run.py`"),
    # A bug charged once: the checks that depend on it say where it is charged.
    ("model_lookup_interleaved", "model_forward", "the lookup bug is charged there only"),
    ("model_lookup_not_flattened", "model_gradients", "the lookup bug is charged there only"),
    ("model_embeddings_plain_tensor", "model_forward", "test values were placed in it"),
    ("model_hidden_bias_unused", "model_gradients", "is not used in forward"),
    ("model_no_hidden_bias", "model_init", "charges the missing parameter"),
    ("model_dropout_on_input", "model_dropout", "dropout is applied to the input x"),
    ("run_onehot_long_targets", "train_loop", "one-hot rows of train_y"),
])
def test_feedback_names_the_cause(bug, check, phrase, tmp_path):
    assert phrase in feedback_of(bug, check, tmp_path)


def test_dropout_feedback_gives_the_wrong_scale(tmp_path):
    src = (REFERENCE / "parser_model.py").read_text().replace(
        "self.dropout(h) @", "(h * (torch.rand_like(h) >= self.dropout_prob).float()) @")
    bug = tmp_path / "bug"
    bug.mkdir()
    (bug / "parser_model.py").write_text(src)
    report = grade_in_process(assemble(bug, tmp_path / "sub"), ("model_dropout",), seed=5)
    text = "\n".join(report.checks[0].outcome.feedback)
    assert not report.checks[0].passed
    # The scale found is named, the expected one is not (it is written question 2(b)(i)'s answer).
    assert "are scaled by 1, which does not keep the expected value" in text, text
    assert "1/(1-p)" not in text and "1/(1 - p)" not in text, text


# -- pure helpers ------------------------------------------------------------------------------------


def test_parameters_are_matched_by_name_then_shape_with_transposes():
    s = model_params.Sizes(n_tokens=40, embed_size=5, n_features=4, hidden=7)
    params = [{"name": "emb.weight", "shape": [40, 5]},
              {"name": "embed_to_hidden.weight", "shape": [7, 20]},
              {"name": "b", "shape": [1, 7]},
              {"name": "hidden_to_logits_weight", "shape": [3, 7]},
              {"name": "out_bias", "shape": [3]}]
    m = model_params.match_parameters(params, s)
    assert {r: (x.name, x.layout) for r, x in m.items()} == {
        "embeddings": ("emb.weight", "same"),
        "embed_to_hidden_weight": ("embed_to_hidden.weight", "T"),
        "embed_to_hidden_bias": ("b", "reshape"),
        "hidden_to_logits_weight": ("hidden_to_logits_weight", "T"),
        "hidden_to_logits_bias": ("out_bias", "same")}
    values = model_params.draw_values(np.random.default_rng(0), s)
    assign = model_params.assignment(m, values)
    assert assign["embed_to_hidden.weight"].shape == (7, 20)
    assert np.array_equal(assign["embed_to_hidden.weight"], values["embed_to_hidden_weight"].T)
    assert assign["b"].shape == (1, 7)


def test_sizes_make_every_dimension_distinct():
    rng = np.random.default_rng(1)
    for _ in range(200):
        s = model_params.draw_sizes(rng)
        assert len({s.n_tokens, s.embed_size, s.in_dim, s.hidden, 3}) == 5


@pytest.mark.parametrize("fans", [(40, 400), (240, 600), (600, 3), (400, 3)])
def test_xavier_uniform_always_passes_and_alternatives_fail(fans):
    fan_in, fan_out = fans
    gen = torch.Generator().manual_seed(0)
    for _ in range(50):
        w = torch.nn.init.xavier_uniform_(torch.empty(fan_in, fan_out), generator=gen).double().numpy()
        assert model_checks._init_verdict("W", w, fan_in, fan_out) == ""
    rng = np.random.default_rng(0)
    bound = np.sqrt(6 / (fan_in + fan_out))
    for bad in (rng.normal(0, 1, fans), np.zeros(fans), rng.uniform(0, 1, fans),
                rng.normal(0, bound / np.sqrt(3), fans), rng.uniform(0, bound, fans),
                rng.uniform(-bound / 2, bound / 2, fans)):
        assert model_checks._init_verdict("W", bad, fan_in, fan_out)


@pytest.mark.parametrize("events, n, problem", [
    ("Z F1 B S Z F1 B S Z F1 B S", 3, ""),
    ("F1 B S Z F1 B S Z F1 B S Z", 3, ""),          # zero_grad after step
    ("F1 Z B S F1 Z B S", 2, ""),                   # zero_grad between forward and backward
    ("F1 B S F1 B S F1 B S", 3, "zero_grad was called 0 times for 3 minibatches"),
    ("Z F1 B S Z F1 B", 2, "optimizer.step() was called 1 times for 2 minibatches"),
    ("Z F1 S Z F1 S", 2, "loss.backward() was never called"),
    ("P0 P0", 2, "forward was never called"),
])
def test_loop_events_are_judged(events, n, problem):
    problems = training_checks._loop_problems(events.split(), n)
    assert (problem in " ".join(problems)) if problem else problems == []


def test_returned_uas_forms():
    assert training_checks._returned_uas(0.75, 0.75) == (True, "")
    assert training_checks._returned_uas(75.0, 0.75)[0]
    ok, note = training_checks._returned_uas([0.75, 0.3], 0.75)
    assert ok and "tuple" in note
    ok, note = training_checks._returned_uas([1.9685, 0.75], 0.75)  # (loss, UAS)
    assert ok and "item 2" in note
    assert not training_checks._returned_uas([1.9685, 0.5], 0.75)[0]
    assert not training_checks._returned_uas(None, 0.75)[0]
    assert not training_checks._returned_uas(0.5, 0.75)[0]


def test_grader_minibatch_parse_is_correct(ref):
    """The training probes parse dev data with their own minibatch_parse: it must agree with the
    reference's, for a model whose choice depends only on each parse's configuration."""

    class RandomLegal:
        def predict(self, parses):
            out = []
            for pp in parses:
                legal = ["S"] if pp.buffer else []
                if len(pp.stack) > 2:
                    legal += ["LA", "RA"]
                elif len(pp.stack) == 2 and not pp.buffer:
                    legal = ["RA"]
                state = (tuple(pp.sentence), len(pp.buffer), len(pp.dependencies))
                out.append(random.Random(repr(state)).choice(legal))
            return out

    rng = np.random.default_rng(0)
    sentences = [[f"w{i}_{j}" for j in range(int(rng.integers(1, 8)))] for i in range(12)]
    for batch_size in (1, 5, 20):
        ours = arcstandard.minibatch_parse(sentences, RandomLegal(), batch_size)
        theirs = ref.parser_transitions.minibatch_parse(sentences, RandomLegal(), batch_size)
        assert ours == theirs


DROPOUT_SCALES = {  # what a train-mode forward multiplies the kept units by: whether the check passes
    "reference": ("self.dropout(h) @", True),
    "unscaled": ("(h * (torch.rand_like(h) >= self.dropout_prob).float()) @", False),
    "keep_prob": ("(h * (torch.rand_like(h) >= self.dropout_prob).float() * (1 - self.dropout_prob)) @", False),
    "inverse_p": ("(h * (torch.rand_like(h) >= self.dropout_prob).float() / self.dropout_prob) @", False),
}


@pytest.mark.parametrize("name", sorted(DROPOUT_SCALES))
def test_dropout_kit_judges_the_scale_without_recording_it(name, tmp_path):
    """Issue 20: recorded for the student kit, the dropout check asks the grader for no scale (its
    value is written question 2(b)(i)'s answer, and the kit's recorded data must not hold it): it
    judges the scale the model applies by the expected value it gives a unit, with the full
    grader's verdict, and no recorded value is 1/(1 - p) for a p the check drew."""
    from answer_scan import numeric_answer_hits, recorded_numbers

    from a2.reference import load_reference
    from grader.run.replay import RecordingRef

    code, ok = DROPOUT_SCALES[name]
    bug = tmp_path / "bug"
    bug.mkdir()
    (bug / "parser_model.py").write_text((REFERENCE / "parser_model.py").read_text().replace("self.dropout(h) @", code))
    upload = assemble(bug, tmp_path / "sub")
    books: list[RecordingRef] = []

    def provider(check_id: str, seed: int) -> RecordingRef:
        books.append(RecordingRef(load_reference()))
        return books[-1]

    for seed in (5, 6):
        full = grade_in_process(upload, ("model_dropout",), seed=seed).checks[0]
        kit = grade(upload, GradingSettings(seed=seed, only=("model_dropout",), runner_factory=InProcessRunner,
                                            ref_provider=provider)).checks[0]
        assert (kit.score, kit.status, full.passed) == (full.score, full.status, ok), kit.outcome.feedback
    assert books and [n for b in books for n in recorded_numbers(b.table) if numeric_answer_hits(n)] == []
