"""bench/gradescope.py --against: the old and the new grader graded alternately and compared (issue 32:
the reference's grading time and peak memory within 5% of the old code's). Nothing here is timed:
the comparison's arithmetic and the old checkout it grades with."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import gradescope as bench


def _figures(wall: float, cpu: float, pss_mib: float) -> bench.Figures:
    return bench.Figures("reference", wall, cpu, bench.Sample(pss=int(pss_mib * bench.MIB)), {"score": 75.0},
                         "quota", "", (0.1, 0.2))


def test_the_new_grader_is_within_the_tolerance_of_the_old_on_every_median_or_it_says_over(capsys):
    old = [_figures(100, 50, 440), _figures(300, 52, 445), _figures(104, 51, 450)]  # one outlier: medians
    assert bench.compare("reference", old, [_figures(104, 53, 460), _figures(103, 53, 455), _figures(500, 90, 900)], 0.05)
    assert not bench.compare("reference", old, [_figures(110, 51, 440)] * 3, 0.05)  # wall 110 / 104
    printed = capsys.readouterr().out
    assert "new/old" in printed and "within 5%" in printed


def test_a_figure_over_the_tolerance_fails_the_comparison(capsys):
    old = [_figures(100, 50, 440)] * 3
    assert not bench.compare("reference", old, [_figures(100, 53, 440)] * 3, 0.05)  # cpu 1.06
    assert "OVER 5%" in capsys.readouterr().out


def test_the_old_grader_is_a_detached_checkout_of_the_commit_removed_afterwards():
    head = subprocess.run(["git", "rev-parse", "HEAD~1"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    with bench.checkout(head) as tree:
        at = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True, check=True).stdout.strip()
        assert at == head and (tree / "grader" / "cli.py").is_file() and (tree / "reference" / "run.py").is_file()
    assert not tree.exists()
    listed = subprocess.run(["git", "worktree", "list"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert str(tree) not in listed


def test_an_overlay_is_graded_with_its_files_laid_over_the_reference(monkeypatch, tmp_path):
    """--overlay DIR: the folder the benchmark grades is the reference with DIR's files over it (a
    buggy or real-file shape holds run.py only: graded as a folder alone it would miss every other file)."""
    graded = []

    def measure(path, seed, budget, name, repo=None):
        graded.append((name, sorted(p.name for p in path.glob("*.py")), (path / "run.py").read_text()))
        raise SystemExit(0)

    monkeypatch.setattr(bench, "measure", measure)
    monkeypatch.setattr(bench, "Quota", lambda: type("Q", (), {"kind": "none", "remove": lambda self: None})())
    overlay = tmp_path / "run_only"
    overlay.mkdir()
    (overlay / "run.py").write_text("# the overlay's run.py\n")
    try:
        bench.main(["--overlay", str(overlay)])
    except SystemExit:
        pass
    name, files, run = graded[0]
    assert name == "run_only over the reference" and run == "# the overlay's run.py\n"
    assert {"word2vec.py", "parser_model.py", "parser_transitions.py", "sgd.py", "run.py"} <= set(files)
