"""The student kit (`grader kit`): what goes in, what never does, and that its recorded answers
judge as the reference does. The fresh-venv end-to-end run is tests/test_kit_install.py."""

from __future__ import annotations

import ast
import json
import textwrap
import zipfile
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from answer_scan import semantic_hits, template_files
from kit_support import MARKERS, solution_hits, solution_lines, solution_math_code, solution_math_hits

from grader import assignment
from grader.common import paths
from grader.kit import assemble as kit
from grader.reports.student import auto_points
from grader.run.check_api import all_checks
from grader.run.engine import grade
from grader.run.replay import RecordingRef, ReplayMiss, ReplayRef, decode, encode
from grader.run.rubric import load_rubric
from grader.run.settings import GradingSettings
from grader.sandbox.portable import LIMITS_NOTE, PortableRunner

REPO_ROOT = Path(kit.__file__).resolve().parents[2]


def test_kit_modules_exist_and_exclude_what_never_ships():
    for rel in kit.kit_modules():
        assert (REPO_ROOT / rel).is_file(), rel
        assert not any(rel == n or (n.endswith("/") and rel.startswith(n)) for n in kit.never_shipped()), rel
    assert "a2/arcstandard.py" not in kit.kit_modules() and "a2/arcstandard.py" in kit.never_shipped()


#: Imports of shipped modules that the kit never reaches (the assignment's written part, asked for by
#: engine.grade only without ``GradingSettings(include_written=False)``; the Linux Sandbox, used only
#: without a runner of the kit's own; the marking page's question text and reference answer, asked
#: for by `grader review` only).
NOT_REACHED_IN_KIT = {("a2.written.checkers", "written_checker_names"), ("a2.written.grade", "grade_written"),
                      ("a2.written.process", "ChildProcess"), ("a2.written.sections", "pretty"),
                      ("a2.written.fingerprint", "FORMULA_CHECKERS"), ("a2.written.keys", "KeysError"),
                      ("a2.written.keys", "disagreements"), ("a2.written.grouping", "group_kind"),
                      ("a2.written.grouping", "group_label"), ("a2.written.grouping", "answer_items"),
                      ("a2.written.questions", "question_text"), ("a2.written.questions", "reference_answer"),
                      ("grader.sandbox", "Sandbox")}


def test_kit_modules_import_only_kit_modules():
    """Every module of ours a shipped module imports is shipped too (or it would fail installed)."""
    shipped = {rel[:-3].replace("/", ".").removesuffix(".__init__") for rel in kit.kit_modules()}
    stripped = kit.kit_stripped()
    for rel in kit.kit_modules():
        source = (REPO_ROOT / rel).read_text(encoding="utf-8")
        if rel in stripped:  # as it ships: the grader-only matchers import solution_math
            source = kit.strip_solution_math(source, *stripped[rel])
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(("grader", "a2")):
                for alias in node.names:
                    if (node.module, alias.name) in NOT_REACHED_IN_KIT:
                        continue
                    assert node.module in shipped or f"{node.module}.{alias.name}" in shipped, \
                        f"{rel} imports {node.module}.{alias.name}, which the kit does not ship"
                    if node.module == "grader.sandbox":
                        assert f"grader.sandbox.{alias.name}" in shipped, alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith(("grader", "a2")):
                        assert alias.name in shipped, f"{rel} imports {alias.name}, which the kit does not ship"


def test_strip_checks_removes_checks_students_may_not_see():
    rubric = load_rubric(registered=set(all_checks()))
    visible = {s.id for s in rubric.checks if s.student_visible}
    held_back = {s.id for s in rubric.checks if not s.student_visible}
    assert held_back, "the rubric holds checks shown after the deadline"
    for module in ("word2vec.py", "minibatch.py"):
        source = (REPO_ROOT / "a2" / "checks" / module).read_text(encoding="utf-8")
        stripped = kit.strip_checks(source, visible)
        compile(stripped, module, "exec")
        for cid in held_back:
            assert f'@check("{cid}"' not in stripped
        for cid in visible:
            if f'@check("{cid}"' in source:
                assert f'@check("{cid}"' in stripped


def test_replay_values_round_trip():
    values = [None, True, 3, -2.5, float("nan"), "x", np.float32(1.5), np.arange(6).reshape(2, 3),
              [("a", "b"), ("c", "d")], {"k": (1, [2.0])}]
    for value in values:
        back = decode(encode(value))
        if isinstance(value, np.ndarray):
            assert back.dtype == value.dtype and np.array_equal(back, value)
        elif isinstance(value, float) and np.isnan(value):
            assert np.isnan(back)
        else:
            assert back == value and type(back) is type(value)


class _Parse:
    def __init__(self, words):
        self.stack, self.buffer = ["ROOT"], list(words)

    def step(self):
        self.stack.append(self.buffer.pop(0))


def test_replay_keys_follow_object_state_and_miss_loudly():
    """The same question asked of an object before and after a call gets each answer; a question
    never recorded raises ReplayMiss instead of returning anything."""
    module = SimpleNamespace(Parse=_Parse, double=lambda x: 2 * x)
    rec = RecordingRef(SimpleNamespace(m=module))

    def ask(ref):
        p = ref.m.Parse(["a", "b"])
        first = p.stack
        p.step()
        return first, p.stack, ref.m.double(np.ones(2))

    ask(rec)
    replayed = ask(ReplayRef(rec.table, ("m",)))
    assert replayed[0] == ["ROOT"]  # as it was when asked
    assert replayed[1] == ["ROOT", "a"]
    assert np.array_equal(replayed[2], [2.0, 2.0])
    with pytest.raises(ReplayMiss):
        ReplayRef(rec.table, ("m",)).m.double(np.ones(3))


def _visible_recorded_ids() -> list[str]:
    rubric = load_rubric(registered=set(all_checks()))
    return [s.id for s in rubric.checks if s.student_visible and s.id not in kit.not_recorded()]


def test_replay_judges_as_the_reference_on_its_seed():
    """Recorded on the reference's files and the template only, the replay gives the reference's
    verdicts on a submission it never saw (one bug each in word2vec.py and parser_transitions.py)."""
    registry = all_checks()
    ids = [c for c in _visible_recorded_ids() if set(registry[c].files) <= {"word2vec.py", "parser_transitions.py"}]
    recorded = kit.record([11], [paths.REFERENCE_DIR, paths.TEMPLATE_DIR])
    assert recorded["conflicts"] == 0

    def provider(check_id: str, seed: int) -> ReplayRef:
        return ReplayRef(recorded["checks"][check_id][str(seed)], tuple(recorded["modules"]))

    buggy = Path(__file__).parent / "submissions" / "buggy"
    for submission in (paths.REFERENCE_DIR, buggy / "w2v_grad_sign", buggy / "mb_batch_plus_one"):
        present = {p.name for p in submission.iterdir()}
        only = [c for c in ids if set(registry[c].files) <= present]
        real = grade(submission, GradingSettings(seed=11, visible_only=True, only=only, include_written=False))
        kitr = grade(submission, GradingSettings(seed=11, visible_only=True, only=only, include_written=False, ref_provider=provider))
        assert [(c.id, c.score, c.status) for c in kitr.checks] == [(c.id, c.score, c.status) for c in real.checks]


def test_kit_zip_holds_the_folder_and_no_solution(tmp_path):
    out = kit.build_kit(tmp_path / "a2_student.zip", seeds=(1,), corpus=False)
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
    folder = assignment.registry().KIT_FOLDER
    for name in ("word2vec.py", "sgd.py", "parser_transitions.py", "parser_model.py", "run.py", "answers.md",
                 "pyproject.toml", "utils/parser_utils.py", "grader/kit/kit_command.py", "grader/kit_data/replay.json",
                 "grader/kit_data/rubric.yaml", "grader/kit_data/kit.json"):
        assert f"{folder}/{name}" in names, name
    assert not [n for n in names if "arcstandard" in n or "/reference/" in n or "/written/" in n]
    assert solution_lines(), "the scan must have something to look for"
    assert solution_hits(out) == []
    names, lines = solution_math_code()
    assert {"model_forward", "sgd_path", "neg_outputs_with_sigmoid", "scripted_output"} <= names
    assert len(lines) > 40, "the grader's solution-derived code lines must be there to look for"
    assert solution_math_hits(out) == []
    with zipfile.ZipFile(out) as zf:
        shipped_rubric = zf.read(f"{folder}/grader/kit_data/rubric.yaml").decode("utf-8")
        pyproject = zf.read(f"{folder}/pyproject.toml").decode("utf-8")
    held_back = [s.id for s in load_rubric(registered=set(all_checks())).checks if not s.student_visible]
    assert held_back and not [cid for cid in held_back if cid in shipped_rubric]
    assert "torch" not in pyproject  # the student's course environment keeps its own torch


def test_solution_math_scan_finds_a_planted_function_and_line(tmp_path):
    """The solution-math scan is not blind: a definition by name, or one code line of a stripped
    matcher or of a2/solution_math.py, is caught."""
    names, lines = solution_math_code()
    line = sorted(lines)[len(lines) // 2]
    planted = tmp_path / "planted.zip"
    with zipfile.ZipFile(planted, "w") as zf:
        zf.writestr("a/x.py", f"def {sorted(names)[0]}(a):\n    return a\n")
        zf.writestr("a/y.py", f"def g():\n    {line}\n")
        zf.writestr("a/z.py", "x = 1\n")
    assert len(solution_math_hits(planted)) == 2
    assert "x = x - sign * step * (a @ x - b)" in lines


def test_solution_scan_finds_a_planted_solution(tmp_path):
    """The scan is not blind: a zip holding one reference solution line, or a marker, is caught."""
    line = sorted(solution_lines())[0]
    planted = tmp_path / "planted.zip"
    with zipfile.ZipFile(planted, "w") as zf:
        zf.writestr("a/x.py", f"def f():\n    {line}\n")
        zf.writestr("a/y.md", MARKERS[2] + "\n")
    assert len(solution_hits(planted)) == 2


def _hanging_submission(folder: Path) -> Path:
    (folder / "word2vec.py").write_text(textwrap.dedent("""
        import time
        import numpy as np
        print("hello from the student's file")
        def sigmoid(x):
            print("a print must not break the protocol")
            if np.ndim(x) == 0:
                while True:
                    time.sleep(0.05)
            return 1 / (1 + np.exp(-x))
    """), encoding="utf-8")
    return folder


def test_portable_runner_without_posix_limits(tmp_path):
    """The Windows path, forced on Linux: prints are captured, a hang is stopped at its time
    limit, the worker is replaced, and the next call is answered."""
    runner = PortableRunner(_hanging_submission(tmp_path), posix_limits=False)
    try:
        assert runner.note == LIMITS_NOTE
        imported = runner.call("import_module", {"module": "word2vec", "attributes": ["sigmoid"]}, timeout=30)
        assert imported.status == "ok", imported
        hung = runner.call("w2v_sigmoid", {"inputs": [0.5]}, timeout=1.5)
        assert hung.status == "timeout"
        runner.call("import_module", {"module": "word2vec", "attributes": ["sigmoid"]}, timeout=30)
        fine = runner.call("w2v_sigmoid", {"inputs": [np.zeros(3)]}, timeout=10)
        assert fine.status == "ok" and np.allclose(fine.value[0], 0.5)
        assert "must not break" in fine.stderr
    finally:
        runner.close()


def test_portable_runner_grades_like_the_sandbox():
    ids = ["w2v_sigmoid", "pp_init", "pp_parse_step", "sgd_update"]
    settings = GradingSettings(seed=4, only=ids, include_written=False,
                               runner_factory=lambda run_dir: PortableRunner(run_dir, posix_limits=False))
    portable = grade(paths.REFERENCE_DIR, settings)
    assert [c.score for c in portable.checks] == [c.max_score for c in portable.checks]
    template = grade(paths.TEMPLATE_DIR, settings)
    assert all(c.score == 0 for c in template.checks)


def test_kit_modules_type_check_for_windows():
    """The kit's modules as mypy sees them on Windows (no resource, no pwd, no os.killpg...)."""
    import subprocess
    import sys

    files = [str(REPO_ROOT / rel) for rel in kit.kit_modules()]
    done = subprocess.run([sys.executable, "-m", "mypy", "--platform", "win32", "--follow-imports=silent",
                           "--no-incremental", *files], capture_output=True, text=True, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_non_editable_install_says_editable_is_required(tmp_path):
    """`pip install .` (not editable) of the instructor's package: `--version` works and a command
    says in one line that the grader runs from its repository, instead of a FileNotFoundError."""
    import os
    import subprocess
    import sys

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(paths.REPO_ROOT)], check=True, capture_output=True,
                   stdin=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("A2GRADER", "PYTHONPATH"))}
    env["PYTHONPATH"] = str(target)
    code = "import sys; from grader.cli import main; sys.argv = ['grader', *sys.argv[1:]]; main()"
    done = subprocess.run([sys.executable, "-c", code, "check", str(paths.TEMPLATE_DIR)], capture_output=True,
                          text=True, env=env, cwd=tmp_path)
    assert done.returncode == 1
    assert "pip install -e ." in done.stderr and "FileNotFoundError" not in done.stderr
    assert "Traceback" not in done.stderr


def test_out_of_date_kit_warns(tmp_path):
    from grader.kit.kit_command import out_of_date

    built = {"rubric_sha256": "a" * 64, "built": "2026-11-24 10:00 UTC"}
    assert out_of_date(tmp_path, built) == ""  # no KIT.json: nothing to compare
    (tmp_path / "KIT.json").write_text('{"rubric_sha256": "' + "a" * 64 + '"}', encoding="utf-8")
    assert out_of_date(tmp_path, built) == ""
    (tmp_path / "KIT.json").write_text('{"rubric_sha256": "' + "b" * 64 + '", "built": "2026-12-01"}',
                                       encoding="utf-8")
    assert "pip install ." in out_of_date(tmp_path, built)


def test_part_selection():
    from grader.run.engine import part_selection

    registry = all_checks()
    rubric = load_rubric(registered=set(registry))
    assert part_selection(rubric, registry, "3c") == ["pp_init", "pp_parse_step", "pp_parse", "pp_example_3a"]
    assert set(part_selection(rubric, registry, "word2vec.py")) == \
        {s.id for s in rubric.checks if s.part == "word2vec"}
    assert part_selection(rubric, registry, "3a") == ["3a"]
    assert "1a" in part_selection(rubric, registry, "answers.md")
    with pytest.raises(ValueError, match="names no part"):
        part_selection(rubric, registry, "4z")


def test_kit_rubric_leaves_out_held_back_checks_and_keeps_the_assignment_total(tmp_path):
    rubric = load_rubric(registered=set(all_checks()))
    held_back = [s for s in rubric.checks if not s.student_visible]
    assert held_back, "the rubric holds checks shown after the deadline"
    text, total = kit.kit_rubric(paths.RUBRIC_PATH.read_text(encoding="utf-8"))
    for spec in held_back:
        assert spec.id not in text and spec.name not in text
    assert total == auto_points(rubric) == 75
    (tmp_path / "rubric.yaml").write_text(text, encoding="utf-8")
    copy = load_rubric(tmp_path / "rubric.yaml")
    assert {s.id for s in copy.checks} == {s.id for s in rubric.checks if s.student_visible}
    assert sum(s.points for s in copy.checks) == sum(s.points for s in rubric.checks) - sum(s.points for s in held_back)


def test_kit_check_says_in_one_line_when_torch_is_missing(monkeypatch, tmp_path):
    """The kit declares no torch (the course environment's stays): without one, one clear line."""
    import importlib.util

    from click.testing import CliRunner

    from grader.kit import kit_command as kit_cli

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    result = CliRunner().invoke(kit_cli.main, ["check", str(tmp_path)])
    assert result.exit_code != 0
    assert "PyTorch is not installed" in result.output and len(result.output.strip().splitlines()) == 1


def test_replay_gives_a_credited_bug_shape_the_grader_s_credit():
    """A bug whose catalogue entry gives credit because another check charges it (a step halved
    every iteration; a bias unused in forward) gets the same verdict from the recorded answers as
    from the grader, once the known-bug corpus was graded while recording; recorded on the
    reference and the template only, the kit lacks the variant's answer and gives no credit. The
    check charged is graded too: the credit stands only when it fails in the same grading."""
    buggy = Path(__file__).parent / "submissions" / "buggy"
    cases = {buggy / "sgd_anneal_every_iteration": ("sgd_update", "sgd_anneal"),
             buggy / "model_hidden_bias_unused": ("model_gradients", "model_forward")}
    with_corpus = kit.record([11], [paths.REFERENCE_DIR, paths.TEMPLATE_DIR, *cases])
    without = kit.record([11], [paths.REFERENCE_DIR, paths.TEMPLATE_DIR])
    for submission, (check_id, charged) in cases.items():
        settings = GradingSettings(seed=11, visible_only=True, only=[check_id, charged], include_written=False)
        real = next(c for c in grade(submission, settings).checks if c.id == check_id)
        assert real.passed, (check_id, real.outcome.feedback)  # the entry's credit
        for recorded, same in ((with_corpus, True), (without, False)):
            def provider(cid: str, seed: int, recorded=recorded) -> ReplayRef:
                return ReplayRef(recorded["checks"][cid][str(seed)], tuple(recorded["modules"]))

            got = next(c for c in grade(submission, replace(settings, ref_provider=provider)).checks if c.id == check_id)
            assert ((got.score, got.status) == (real.score, real.status)) is same, (check_id, same, got.outcome.feedback)


def test_kit_passes_the_semantic_scan(tmp_path):
    """Issue 20: no ParserModel, no student function, no non-delegating parse_step and no written
    answer in any module or recorded value of the kit's package."""
    out = kit.build_kit(tmp_path / "a2_student.zip", seeds=(1,), corpus=False)
    with zipfile.ZipFile(out) as zf:
        assert [n for n in zf.namelist() if n.endswith("replay.json")], "recorded values must be scanned"
    assert semantic_hits(out, template_files(paths.TEMPLATE_DIR)) == []


def test_semantic_scan_catches_each_planted_rule(tmp_path):
    """Each rule of the semantic scan catches a planted control, one hit each."""
    planted = {
        "model.py": "class M:\n    def embedding_lookup(self, w):\n        return w\n\n    def forward(self, w):\n"
                    "        return w\n",
        "function.py": "def minibatch_parse(sentences, model, batch_size):\n    return []\n",
        "step.py": "class P:\n    def parse_step(self, transition):\n        if transition == 'S':\n"
                   "            self.stack.append(self.buffer.pop(0))\n",
        "delegate.py": "class Q:\n    def parse_step(self, transition):\n        return self.inner(transition)\n",
        "message.py": "MESSAGE = 'scale the kept units by 1/(1 - p)'\n",
    }
    path = tmp_path / "planted.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in planted.items():
            zf.writestr(f"a2_student/grader/{name}", text)
        zf.writestr("a2_student/grader/kit_data/replay.json", json.dumps({"k": [["S", "S", "LA", "S", "S", "LA", "RA", "S",
                                                                                "S", "S", "S", "LA", "LA", "LA", "RA", "RA"]]}))
        # A dropout scale recorded as the kit records a reference answer: 1/(1 - p) at p = 0.327.
        scale = {"checks": {"model_dropout": {"1": {"k1": encode(1 / (1 - 0.327)), "k2": encode(0.327),
                                                    "k3": encode(np.float64(1.5))}}}}
        zf.writestr("a2_student/grader/kit_data/scale.json", json.dumps(scale))
        zf.writestr("a2_student/parser_transitions.py", "def minibatch_parse(s, m, b):\n    return []\n")
    hits = semantic_hits(path)
    assert len(hits) == 6, hits
    for name in ("model.py", "function.py", "step.py", "message.py", "replay.json", "scale.json"):
        assert sum(name in h for h in hits) == 1, (name, hits)


def test_installing_the_kit_leaves_no_build_litter_and_its_readme_says_what_to_upload(tmp_path):
    """`pip install .` in the kit's folder builds a wheel without writing build/ or *.egg-info
    into the student's working folder; KIT_README.md names the files to upload."""
    import subprocess
    import sys

    folder = kit.stage_kit(tmp_path / "staged", {"seeds": [1], "modules": [], "checks": {}}, "1.0")
    before = {p.relative_to(folder) for p in folder.rglob("*")}
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "wheels"),
                           "."], cwd=folder, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    after = {p.relative_to(folder) for p in folder.rglob("*")}
    assert after == before, sorted(map(str, after - before))[:10]
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    for name in ("grader/kit/kit_command.py", "grader/kit_data/rubric.yaml", "grader/kit_data/starter/utils/utils.py",
                 "a2/checks/word2vec.py"):
        assert name in names, name
    assert not [n for n in names if "__pycache__" in n or n.startswith(("utils/", "data/"))]
    readme = (folder / "KIT_README.md").read_text(encoding="utf-8")
    upload = readme.split("## What to upload", 1)[1]
    for name in (*assignment.student_files(), assignment.written_files()[0]):
        assert f"`{name}`" in upload, name
    assert "`utils/`" in upload and "Do not upload" in upload


def test_the_upload_section_of_a_course_without_a_written_part_or_support_folders():
    """A test-file course (no written file, no support folder) gets a whole sentence, not an
    IndexError; the assignment's own section names its written file and its support folder."""
    plain = kit.upload_section(code=("arrays.py", "stats.py"), written=(), support=())
    assert "`arrays.py`, `stats.py`." in plain and "written answers" not in plain
    assert "Do not upload the kit's own files" in plain
    own = kit.upload_section()
    assert f"written answers, `{assignment.written_files()[0]}`" in own and "`utils/`, `data/`, the kit's own" in own
