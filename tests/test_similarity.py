"""Similarity (grader/classroom/similarity/): on the class of tools/make_class.py --similarity, every planted
copy ranks above every independent pair and is listed at the default threshold, no independent
pair is; the untouched template matches nothing; the template plus one copied function is found
for that function; known folders at any depth; the CSV, the summary line, the pages (in a real
headless browser); errors in one line; `grader batch --known` runs the same step.

The class's class_key.yml gives the origin of every file: two files of one origin are a planted
copy (disguised by tools/class_copies.py), files of different origins were written apart.
"""

from __future__ import annotations

import ast
import csv
import dataclasses
import functools
import html
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO, load_script

from a2.registry import STUDENT_FILES
from a2.written.process import InProcess
from grader.classroom.reports import similarity_html
from grader.classroom.similarity import detect
from grader.classroom.similarity.class_survey import SUMMARY_PREFIX
from grader.classroom.similarity.sources import WRITTEN, Document, SimilarityError, known_documents
from grader.classroom.similarity_command import run_similarity
from grader.common.paths import TEMPLATE_DIR

ALTERNATIVE = REPO / "tests" / "submissions" / "alternative"
FILES = (*STUDENT_FILES, WRITTEN)
#: Where the known solution sits in its folder: as deep as a cloned repository puts it.
KNOWN_AT = Path("github") / "someone" / "cs224n-2024" / "assignments" / "a2"



make_class = load_script("make_class", REPO / "tools" / "make_class.py")


def _read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _batch(tmp: Path, *, seed: int = 0, layout: str = "gradescope") -> tuple[Path, Path, dict]:
    """A similarity class, a batch folder that names it (as `grader batch` leaves one) and a known
    folder holding the alternative solution's code and the reference's written answers deep inside."""
    classdir, out, known = tmp / "class", tmp / "out", tmp / "known"
    make_class.write_class(classdir, make_class.plan_similarity_class(seed=seed), layout=layout)
    out.mkdir()
    (out / "batch.json").write_text(json.dumps({"source": str(classdir), "seed": 1, "checks": []}), encoding="utf-8")
    (out / "summary.md").write_text("# Class summary\n\nsome table\n", encoding="utf-8")
    (known / KNOWN_AT).mkdir(parents=True)
    (known / "README.md").write_text("solutions found online\n", encoding="utf-8")
    for path in ALTERNATIVE.glob("*.py"):
        shutil.copy(path, known / KNOWN_AT / path.name)
    shutil.copy(REPO / "reference" / "answers.md", known / KNOWN_AT / "answers.md")
    key = yaml.safe_load((classdir / "class_key.yml").read_text(encoding="utf-8"))
    return out, known, key


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """Every pair scored (threshold near zero), with the known folder."""
    out, known, key = _batch(tmp_path_factory.mktemp("similarity"))
    outcome = run_similarity(out, known=[known], threshold=1e-6, runner=InProcess())
    return out, known, key, outcome


@functools.cache
def _bases() -> dict:
    return detect.template_bases(TEMPLATE_DIR)


@functools.cache
def _eligible(origin: str, file: str) -> bool:
    """Whether a file of this origin holds enough code of its own for a copy to be told from two
    independent solutions: sgd.py's solution is two lines every solution shares, and run.py's the
    training loop everyone writes."""
    root = {"reference": REPO / "reference", "alternative": ALTERNATIVE,
            "independent": REPO / "tests" / "submissions" / "independent"}.get(origin.split(":")[0])
    if root is None or file == WRITTEN or not (root / file).is_file():
        return file == WRITTEN and origin != "template"
    text = (root / file).read_text(encoding="utf-8")
    base = _bases()[file]
    fp = detect.fingerprint(Document("x", file, text), text, base).fp
    return fp is not None and fp.token_coverage >= detect.MIN_MATCHED


def _pairs(key: dict, known: Path) -> tuple[list[tuple], list[tuple]]:
    """(copies, independent) pairs of (submission, other, file): other a submission or a known file."""
    copies, independent = [], []
    members = sorted(key)
    for a, b in itertools.combinations(members, 2):
        for file in FILES:
            oa, ob = key[a]["origin"][file], key[b]["origin"][file]
            if "template" in (oa, ob):
                continue
            same = oa.split(":")[0] == ob.split(":")[0]
            if same and _eligible(oa, file):
                copies.append((a, b, file))
            elif not same:
                independent.append((a, b, file))
    knowns = [(str(p), p.name, "alternative") for p in (known / KNOWN_AT).glob("*.py")]
    knowns.append((str(known / KNOWN_AT), WRITTEN, "reference"))
    for a in members:
        for other, file, source in knowns:
            origin = key[a]["origin"][file]
            if origin == "template":
                continue
            if origin.split(":")[0] == source and _eligible(origin, file):
                copies.append((a, other, file))
            elif origin.split(":")[0] != source:
                independent.append((a, other, file))
    return copies, independent


def _score(outcome, a: str, b: str, file: str) -> float:
    for p in outcome.pairs:
        if p.file == file and {p.a.owner, p.b.owner} == {a, b}:
            return p.score
    return 0.0


def test_every_planted_copy_ranks_above_every_independent_pair(scored):
    out, known, key, outcome = scored
    copies, independent = _pairs(key, known)
    assert len(copies) >= 30 and len(independent) >= 30
    files_with_copies = {f for _, _, f in copies}
    assert files_with_copies >= {"word2vec.py", "parser_transitions.py", "parser_model.py", WRITTEN}
    lowest = min((_score(outcome, *c), c) for c in copies)
    highest = max((_score(outcome, *i), i) for i in independent)
    assert lowest[0] > highest[0], (lowest, highest)
    # the margin the default threshold sits in (README: "Similarity")
    assert lowest[0] >= detect.DEFAULT_THRESHOLD + 0.2 and highest[0] <= detect.DEFAULT_THRESHOLD - 0.2, (lowest, highest)


def test_by_default_the_copies_are_listed_and_nothing_else(tmp_path: Path):
    """Calibrated per file (the default): in this class most pairs of a file are copies, and a
    pair sharing nearly all of its student code is listed however usual that is."""
    out, known, key = _batch(tmp_path, seed=3, layout="zips")      # uploads as zips this time
    outcome = run_similarity(out, known=[known], runner=InProcess())
    rows = _read(out / "similarity.csv")
    assert len(rows) == len(outcome.pairs) > 0
    listed = {(frozenset((r["submission"], r["other"])), r["file"]) for r in rows}
    copies, independent = _pairs(key, known)
    assert {(frozenset((a, b)), f) for a, b, f in copies} == listed
    assert not listed & {(frozenset((a, b)), f) for a, b, f in independent}
    evidence = [float(r["evidence"]) for r in rows]
    assert evidence == sorted(evidence, reverse=True)                    # ranked by evidence
    assert min(float(r["score"]) for r in rows) >= detect.DEFAULT_THRESHOLD
    assert all(int(r["matched_tokens"]) >= detect.MIN_MATCHED for r in rows)
    assert all((out / r["page"]).is_file() for r in rows)
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert summary.splitlines()[-1] == (f"{SUMMARY_PREFIX}{len(rows)} pairs unusually similar for their file in this "
                                        "class; see similarity/index.html")
    run_similarity(out, known=[known], runner=InProcess())      # again: one line, not two
    assert (out / "summary.md").read_text(encoding="utf-8") == summary


def test_the_untouched_template_matches_nothing(scored):
    out, known, key, outcome = scored
    template = [m for m, v in key.items() if set(v["origin"].values()) == {"template"}]
    assert len(template) == 1
    assert not [p for p in outcome.pairs if template[0] in (p.a.owner, p.b.owner)]


def test_the_template_with_one_copied_function_is_found_for_that_function(scored):
    out, known, key, outcome = scored
    file, function = make_class.GRAFTED
    grafted = next(m for m, v in key.items() if v["origin"][file].startswith("reference:"))
    found = [p for p in outcome.pairs if grafted in (p.a.owner, p.b.owner)]
    reference_members = {m for m, v in key.items() if v["origin"][file] == "reference"}
    assert {p.file for p in found} == {file}
    assert {p.b.owner if p.a.owner == grafted else p.a.owner for p in found} == reference_members
    text = (out.parent / "class" / grafted / file).read_text(encoding="utf-8")
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == function)
    for p in found:
        assert p.a.owner == grafted and p.score > 0.9     # nearly all of its own code is shared
        assert p.regions_a
        for s, e in p.regions_a:
            first, last = text.count("\n", 0, s) + 1, text.count("\n", 0, e - 1) + 1
            assert node.lineno <= first and last <= node.end_lineno, (first, last, node.lineno, node.end_lineno)


def test_known_folders_are_read_at_any_depth_and_only_read(scored):
    out, known, key, outcome = scored
    deep = {str(p) for p in (known / KNOWN_AT).glob("*.py")} | {str(known / KNOWN_AT)}
    against_known = [p for p in outcome.pairs if p.b.known]
    assert against_known and {p.b.owner for p in against_known if p.score >= detect.DEFAULT_THRESHOLD} <= deep
    alternative = {m for m, v in key.items() if v["origin"]["word2vec.py"] == "alternative"}
    assert {p.a.owner for p in against_known if p.file == "word2vec.py"
            and p.score >= detect.DEFAULT_THRESHOLD} == alternative
    wrote_reference = {m for m, v in key.items() if v["origin"][WRITTEN] == "reference"}
    assert {p.a.owner for p in against_known if p.file == WRITTEN and p.score >= detect.DEFAULT_THRESHOLD} == wrote_reference
    # nothing was written into the known folder
    assert sorted(p.relative_to(known).as_posix() for p in known.rglob("*")) == sorted(
        ["README.md", *[f"{KNOWN_AT.as_posix()}/{n}" for n in ("answers.md", "parser_model.py", "parser_transitions.py",
                                                              "sgd.py", "word2vec.py")],
         *[(KNOWN_AT.parents[i]).as_posix() for i in range(len(KNOWN_AT.parts) - 1)], KNOWN_AT.as_posix()])


def test_a_missing_or_empty_known_folder_is_a_one_line_error_naming_it(tmp_path: Path):
    from click.testing import CliRunner

    from grader.cli import main

    with pytest.raises(SimilarityError, match="no such folder") as missing:
        known_documents([tmp_path / "nowhere"])
    assert str(tmp_path / "nowhere") in str(missing.value)
    empty = tmp_path / "empty"
    (empty / "a" / "b").mkdir(parents=True)
    (empty / "a" / "notes.txt").write_text("nothing here", encoding="utf-8")
    with pytest.raises(SimilarityError, match="holds no word2vec.py") as nothing:
        known_documents([empty])
    assert str(empty) in str(nothing.value)
    out = tmp_path / "out"
    out.mkdir()
    for args in (["similarity", str(out), "--known", str(empty)],
                 ["batch", str(tmp_path), "--out", str(out), "--known", str(tmp_path / "nowhere")]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "--known" in lines[0], result.output
    assert not (out / "batch.json").exists()       # the batch stopped before grading anything


def test_errors_without_a_batch_or_without_copydetect(tmp_path: Path, monkeypatch):
    from click.testing import CliRunner

    from grader.cli import main

    result = CliRunner().invoke(main, ["similarity", str(tmp_path)])
    assert result.exit_code == 1 and "no readable batch.json" in result.output
    result = CliRunner().invoke(main, ["similarity", str(tmp_path), "--threshold", "2"])
    assert result.exit_code == 1 and "--threshold" in result.output
    monkeypatch.setitem(sys.modules, "copydetect", None)
    result = CliRunner().invoke(main, ["similarity", str(tmp_path)])
    assert result.exit_code == 1 and "pip install '.[similarity]'" in result.output


def test_renamed_reordered_recommented_reformatted_code_is_still_the_same_code():
    """Each disguise alone keeps a copy of the reference's word2vec.py near 1."""
    copies = load_script("class_copies", REPO / "tools" / "class_copies.py")
    import random

    original = copies.student_markers((REPO / "reference" / "word2vec.py").read_text(encoding="utf-8"))
    bases = detect.template_bases(TEMPLATE_DIR)
    first = Document("a", "word2vec.py", original)
    for step in ("rename", "reorder", "recomment", "reformat", "helper"):
        text = copies.disguise("word2vec.py", original, (step,), random.Random(1))
        assert text != original, step
        pairs, _ = detect.find_pairs([first, Document("b", "word2vec.py", text)], [], bases=bases, threshold=0.5)
        assert len(pairs) == 1 and pairs[0].score > 0.85, (step, pairs and pairs[0].score)


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_pages_are_self_contained_say_similar_and_render_in_a_headless_browser(scored, tmp_path: Path):
    out, known, key, outcome = scored
    pages = sorted((out / "similarity").glob("*.html"))
    assert len(pages) == len(outcome.pairs) + 1
    for page in [*pages[:20], out / "similarity" / "index.html"]:
        text = page.read_text(encoding="utf-8")
        for external in ("http://", "https://", "<script", "<link", "@import", "src="):
            assert external not in text, (page.name, external)
        assert "similar" in text and "copied" not in text.replace("Similar is not copied", "")
    assert "copied" not in (out / "similarity.csv").read_text(encoding="utf-8")
    file, function = make_class.GRAFTED
    grafted = next(m for m, v in key.items() if v["origin"][file].startswith("reference:"))
    page = next(p for p in pages if p.name.startswith(f"{grafted}--"))
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    for target, shot in ((page, out / "similarity" / "pair.png"), (out / "similarity" / "index.html", out / "similarity" / "index.png")):
        dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                              "--disable-component-update", "--disable-sync", "--no-first-run",
                              f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000",
                              f"--screenshot={shot}", "--dump-dom", target.as_uri()],
                             capture_output=True, text=True, timeout=120)
        assert dom.returncode == 0, dom.stderr[-2000:]
        assert shot.is_file() and shot.stat().st_size > 10_000
    assert "are similar" in dom.stdout or "Similar pairs" in dom.stdout
    pair = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert "<mark" in pair.stdout and "shared lines" in pair.stdout and "nothing shared" in pair.stdout


@pytest.mark.slow
def test_batch_with_known_runs_the_similarity_step_and_writes_its_summary_line(tmp_path: Path):
    out, known, key = _batch(tmp_path)
    classdir = out.parent / "class"
    shutil.rmtree(out)
    grader = [sys.executable, "-m", "grader"]
    run = subprocess.run([*grader, "batch", str(classdir), "--out", str(out), "--workers", "2", "--seed", "3",
                          "--only", "w2v_sigmoid", "--known", str(known)],
                         capture_output=True, text=True, timeout=900, cwd=REPO)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = _read(out / "similarity.csv")
    assert rows and any(r["other"].startswith(str(known)) for r in rows)
    line = (out / "summary.md").read_text(encoding="utf-8").splitlines()[-1]
    assert line == f"{SUMMARY_PREFIX}{len(rows)} pairs unusually similar for their file in this class; see similarity/index.html"
    assert "unusually similar for their file" in run.stdout
    again = subprocess.run([*grader, "similarity", str(out), "--threshold", "0.95"],
                           capture_output=True, text=True, timeout=300, cwd=REPO)
    assert again.returncode == 0, again.stderr[-3000:]
    fewer = _read(out / "similarity.csv")
    assert 0 < len(fewer) < len(rows) and all(float(r["score"]) >= 0.95 for r in fewer)
    assert not any(r["other"].startswith(str(known)) for r in fewer)   # without --known this time


def test_the_gradescope_zip_and_the_kit_hold_only_their_listed_folders():
    """A known folder next to the grader (say `known/` in the repository) is never packed: the
    zip takes its listed folders and files only, the kit its listed modules, none of similarity."""
    from grader.kit import assemble as kit
    from grader.package import gradescope_zip as package
    plan = package.plan_package()
    tops = {Path(e.path).parts[0] for e in plan.entries}
    assert tops <= {*package.package_dirs(REPO), *package.PACKAGE_FILES, "setup.sh", "run_autograder", "requirements.txt"}
    assert not [m for m in kit.kit_modules() if "similarity" in str(m)]
    assert "copydetect" not in (REPO / "gradescope" / "requirements.lock").read_text(encoding="utf-8")


# --- a corpus of independent solutions (tools/similarity_corpus.py): common code, calibration, base


corpus = load_script("similarity_corpus", REPO / "tools" / "similarity_corpus.py")
#: The files whose student part is long enough to be evidence (sgd.py's two lines never are).
EVIDENT = ("word2vec.py", "parser_transitions.py", "parser_model.py")


def _corpus_survey(root: Path, *, source: str, seed: int = 0, old_base: bool = True, threshold=None):
    key = corpus.make_corpus(root, source=source, seed=seed)
    docs = [Document(member, name, (root / "class" / member / name).read_text(encoding="utf-8"))
            for member in sorted(key["members"]) for name in STUDENT_FILES]
    bases = detect.template_bases([TEMPLATE_DIR, *([root / "old_starter"] if old_base else [])])
    found = detect.survey(docs, known_documents([root / "known"]), bases=bases, threshold=threshold)
    return key, found


def _origin(key: dict, doc: Document, file: str) -> str:
    return key["source"] if doc.known else key["members"][doc.owner]["origin"][file]


@pytest.mark.parametrize("source", ["einsum", "reference", "loops", "terse"])
def test_independent_solutions_stay_apart_and_planted_copies_find_their_source(tmp_path: Path, source: str):
    key, found = _corpus_survey(tmp_path, source=source)
    members = key["members"]
    copies = [m for m, v in members.items() if v["member"].startswith("copy_")]
    assert len(copies) == 3 and len(members) >= 9
    # every pair of files written apart: two members of different origins, or a member and the source
    independent = [(a, b, f) for f in STUDENT_FILES for a, b in itertools.combinations(sorted(members), 2)
                   if members[a]["origin"][f] != members[b]["origin"][f]]
    independent += [(a, "known", f) for f in STUDENT_FILES for a in members if members[a]["origin"][f] != source]
    flagged = [p for p in found.pairs if _origin(key, p.a, p.file) != _origin(key, p.b, p.file)]
    assert len(independent) >= 150
    assert len(flagged) <= 0.02 * len(independent), [(p.a.owner, p.b.owner, p.file, p.score) for p in flagged]
    for copy in copies:
        for file in EVIDENT:
            mine = [p for p in found.pairs if p.file == file and copy in (p.a.owner, p.b.owner)]
            with_source = [p for p in mine if p.b.known]
            assert with_source, (copy, file)
            # no document but another copy of the same source matches better
            better = [p for p in mine if p.score > with_source[0].score]
            assert all(_origin(key, p.a, file) == _origin(key, p.b, file) == source for p in better), (copy, file)
    assert re.search(r"sgd\.py: \d lines? of student code", " ".join(found.not_compared))
    assert not [p for p in found.pairs if p.file == "sgd.py"]


def test_code_common_to_the_class_counts_for_nothing(tmp_path: Path):
    """Twelve submissions whose parse_step is the same (the reference's) and whose other regions
    were written apart: the shared parse_step is in more than 10 documents, so it is common and
    no pair shares it; in a class of three it is not, and they do."""
    bench = load_script("simbench", REPO / "bench" / "similarity.py")
    import random

    reference = (REPO / "reference" / "parser_transitions.py").read_text(encoding="utf-8")
    step = re.search(r"def parse_step.*?### BEGIN SOLUTION\n(.*?)\s*### END SOLUTION", reference, re.S).group(1)
    rng = random.Random(5)
    docs = []
    template = (TEMPLATE_DIR / "parser_transitions.py").read_text(encoding="utf-8")
    for i in range(12):
        text = corpus.fill(template, (bench._block(rng, "", rng.randint(6, 12)), step,
                                      bench._block(rng, "", rng.randint(6, 12))))
        docs.append(Document(f"s{i:02d}", "parser_transitions.py", text))
    bases = detect.template_bases(TEMPLATE_DIR)
    crowd = detect.survey(docs, [], bases=bases, threshold=1e-6)
    assert crowd.files["parser_transitions.py"].common > 0

    def in_step(p) -> float:
        """The share of a's parse_step (up to its raise) in regions shared with b."""
        first = p.text_a.index('if transition == "S"')
        last = p.text_a.index("raise ValueError", first)
        return sum(max(0, min(e, last) - max(s, first)) for s, e in p.regions_a) / (last - first)

    # at most a chance k-gram across the step's first line (from the last statement before it)
    assert crowd.pairs and max(in_step(p) for p in crowd.pairs) < 0.25
    few = detect.survey(docs[:3], [], bases=bases, threshold=1e-6)
    assert few.files["parser_transitions.py"].common == 0
    assert len(few.pairs) == 3 and all(in_step(p) > 0.9 for p in few.pairs)
    assert all(any("self.dependencies.append" in p.text_a[s:e] for s, e in p.regions_a) for p in few.pairs)


def test_scores_are_calibrated_per_file():
    """The same score is an outlier in a file where pairs share nothing and usual in one where
    every pair shares much; a fixed threshold ignores the class."""
    from grader.classroom.similarity import calibrate

    base = calibrate.FileCalibration("x.py", 40, 10, 0, 200, 20, True)
    quiet = calibrate.distribution(base, np.zeros(780))
    alike = calibrate.distribution(base, np.random.default_rng(0).normal(0.55, 0.08, 780).clip(0, 1))
    assert calibrate.flagged(quiet, 0.7, 120, None) and not calibrate.flagged(alike, 0.7, 120, None)
    assert calibrate.flagged(alike, 0.95, 120, None)                 # nearly all of it: always listed
    assert not calibrate.flagged(quiet, 0.7, calibrate.MIN_MATCHED - 1, None)   # too little shared
    assert calibrate.flagged(alike, 0.7, 120, 0.5) and not calibrate.flagged(quiet, 0.4, 120, 0.5)
    short = calibrate.FileCalibration("sgd.py", 40, 10, 0, 12, 2, False)
    assert not calibrate.flagged(short, 1.0, 500, None) and not calibrate.flagged(short, 1.0, 500, 0.5)
    assert short.note.startswith("sgd.py: 2 lines of student code") and short.note.endswith("not compared")


def test_a_score_only_a_few_spreads_above_a_class_of_alike_pairs_is_not_listed():
    """Where idioms make many pairs of a file alike (a small class, the handout's __init__), a
    score 4.5 times the spread above the median is not unusual enough; 5.5 times is (and in a
    file where pairs share nothing, the score floor alone decides)."""
    from grader.classroom.similarity import calibrate

    spread = calibrate.FileCalibration("parser_model.py", 11, 10, 0, 241, 13, True, median=0.1, scale=0.1, pairs=55)
    assert not calibrate.flagged(spread, 0.55, 120, None) and calibrate.flagged(spread, 0.65, 120, None)
    quiet = calibrate.distribution(dataclasses.replace(spread), np.zeros(55))
    assert calibrate.flagged(quiet, calibrate.SCORE_FLOOR, 120, None)


def test_idioms_several_documents_hold_weigh_less_than_code_only_two_hold():
    """Thirty word2vec.py written apart, in which four idioms (a few lines each) are held by five
    documents: two of them hold two idioms together, which is more than half of one's own code,
    yet they are not listed; two that share their code (one a copy of the other, renamed) are,
    near 1."""
    bench = load_script("simbench", REPO / "bench" / "similarity.py")
    copies = load_script("class_copies", REPO / "tools" / "class_copies.py")
    import random

    rng = random.Random(11)
    template = (TEMPLATE_DIR / "word2vec.py").read_text(encoding="utf-8")
    idioms = [bench._block(rng, "", 4) for _ in range(4)]
    regions = [[bench._block(rng, "", rng.randint(5, 8)) for _ in range(4)] for _ in range(30)]
    regions[0][1:3] = [idioms[0], idioms[1]]                      # short: the idioms are most of it
    regions[0][0], regions[0][3] = bench._block(rng, "", 3), bench._block(rng, "", 4)
    regions[1][1:3] = [idioms[0], idioms[1] + regions[1][2]]
    for i, member in enumerate(range(2, 14)):                      # each idiom in five documents
        regions[member][i % 4] = idioms[i % 4] + regions[member][i % 4]
    docs = [Document(f"s{i:02d}", "word2vec.py", corpus.fill(template, tuple(r))) for i, r in enumerate(regions)]
    docs.append(Document("copy", "word2vec.py", copies.disguise("word2vec.py", docs[20].text, ("rename",), rng)))
    found = detect.survey(docs, [], bases=_bases())
    listed = {frozenset((p.a.owner, p.b.owner)) for p in found.pairs}
    assert listed == {frozenset(("s20", "copy"))}
    assert found.pairs[0].score > 0.9
    every = detect.survey(docs, [], bases=_bases(), threshold=1e-6)
    idiom_pair = next(p for p in every.pairs if {p.a.owner, p.b.owner} == {"s00", "s01"})
    assert idiom_pair.a.owner == "s00" and idiom_pair.matched >= detect.MIN_MATCHED
    # unweighted, s01 holds more than half of s00's student code (listed before idioms weighed less)
    own = detect.fingerprint(docs[0], docs[0].text, _bases()["word2vec.py"]).fp
    assert idiom_pair.matched > 0.5 * own.token_coverage and idiom_pair.score < detect.DEFAULT_THRESHOLD - 0.1


def test_a_file_no_document_holds_a_k_gram_of_is_named_not_compared():
    """Real sgd.py solutions are two short lines (`loss, grad = f(x)`, `x -= step * grad`): no
    document holds a k-gram of its own, and the pages still name the file as not compared."""
    template = (TEMPLATE_DIR / "sgd.py").read_text(encoding="utf-8")
    lines = ["loss, grad = f(x)\nx -= step * grad\n", "loss, gradient = f(x)\nx = x - step * gradient\n",
             "loss, dx = f(x)\nx -= dx * step\n"]
    docs = [Document(f"s{i}", "sgd.py", corpus.fill(template, (body,))) for i, body in enumerate(lines * 3)]
    found = detect.survey(docs, [], bases=_bases())
    assert not found.pairs
    assert [n for n in found.not_compared if n.startswith("sgd.py: 2 lines of student code")], found.not_compared


def test_older_starter_code_named_with_base_is_removed(tmp_path: Path):
    """Two members keep an older quarter's provided tests in parser_transitions.py: without
    --base that code is shared between them; with it, it is starter code."""
    key, without = _corpus_survey(tmp_path / "a", source="einsum", old_base=False, threshold=1e-6)
    kept = [m for m in key["members"]
            if "test_parse_legacy" in (tmp_path / "a" / "class" / m / "parser_transitions.py").read_text(encoding="utf-8")]
    assert len(kept) == 2

    def legacy(found) -> list:
        return [p for p in found.pairs if p.file == "parser_transitions.py" and {p.a.owner, p.b.owner} == set(kept)
                and any("legacy" in p.text_a[s:e] or "SHIFT" in p.text_a[s:e] for s, e in p.regions_a)]

    assert legacy(without) and legacy(without)[0].score > 0.2
    _, with_base = _corpus_survey(tmp_path / "b", source="einsum", old_base=True, threshold=1e-6)
    assert not legacy(with_base)


def test_base_folder_errors_name_it(tmp_path: Path):
    from click.testing import CliRunner

    from grader.cli import main

    out = tmp_path / "out"
    out.mkdir()
    for args in (["similarity", str(out), "--base", str(tmp_path / "nowhere")],
                 ["batch", str(tmp_path), "--out", str(out), "--base", str(tmp_path / "nowhere")]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1 and "--base" in result.output and "nowhere" in result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1, result.output
    assert not (out / "batch.json").exists()       # the batch stopped before grading anything


def test_batch_takes_base_folders_to_its_similarity_step(tmp_path: Path, monkeypatch):
    """`grader batch --base DIR` (repeatable) runs the similarity step with those starter versions
    removed, as `grader similarity --base` does; --base alone implies --similarity."""
    from click.testing import CliRunner

    from grader.classroom import batch as batch_mod
    from grader.cli import main

    asked = {}

    def run_batch(*args, similarity=None, **kwargs):
        asked["similarity"] = similarity
        raise batch_mod.BatchError("stopped here by the test")

    monkeypatch.setattr(batch_mod, "run_batch", run_batch)
    older, oldest = tmp_path / "older", tmp_path / "oldest"
    for folder in (older, oldest):
        folder.mkdir()
        shutil.copy(TEMPLATE_DIR / "sgd.py", folder / "sgd.py")
    (tmp_path / "class" / "someone").mkdir(parents=True)
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out"),
                                       "--base", str(older), "--base", str(oldest)])
    assert "stopped here by the test" in result.output, result.output
    assert asked["similarity"] is not None and asked["similarity"].bases == (older, oldest)


FIT_SCRIPT = """<script>
window.addEventListener('load', () => {
  const panes = [...document.querySelectorAll('.side')].map(e => e.getBoundingClientRect().right);
  document.body.setAttribute('data-fit', JSON.stringify({width: window.innerWidth, panes,
    scroll: document.documentElement.scrollWidth}));
});
</script>"""


def test_pair_page_lists_rare_regions_names_known_matches_and_files_not_compared_and_fits_a_laptop(tmp_path: Path):
    key = corpus.make_corpus(tmp_path / "corpus", source="terse", seed=1)
    out = tmp_path / "out"
    out.mkdir()
    (out / "batch.json").write_text(json.dumps({"source": str(tmp_path / "corpus" / "class"), "seed": 1, "checks": []}),
                                    encoding="utf-8")
    outcome = run_similarity(out, known=[tmp_path / "corpus" / "known"], runner=InProcess())
    note = next(note for note in outcome.not_compared if note.startswith("sgd.py: "))
    assert re.fullmatch(r"sgd\.py: \d lines? of student code \(\d+ tokens not common to the class, fewer than 60\), "
                        "not compared", note)
    index = (out / "similarity" / "index.html").read_text(encoding="utf-8")
    assert html.escape(note) in index and "also matches known" in index
    copies = {m for m, v in key["members"].items() if v["member"].startswith("copy_")}
    between = next(p for p in outcome.pairs if {p.a.owner, p.b.owner} <= copies and p.file == "parser_model.py")
    page = (out / "similarity" / similarity_html.page_name(between)).read_text(encoding="utf-8")
    assert "Shared regions, rarest first" in page and "4 of " in page         # three copies and the source
    assert page.count("also matches the known solution") == 2
    source = {str(f) for f in (tmp_path / "corpus" / "known").rglob("parser_model.py")}
    said = re.findall(r"also matches the known solution (\S+) \(score", page)
    assert len(said) == 2 and {html.unescape(w) for w in said} <= source, (said, source)   # says which
    assert html.escape(note) in page
    # a long line (a comment of 400 characters) must not push the right pane off a 1280-pixel screen
    text = corpus.student_markers((REPO / "reference" / "word2vec.py").read_text(encoding="utf-8"))
    long = text.replace("### YOUR CODE HERE\n", "### YOUR CODE HERE\n    # " + "wide " * 80 + "\n", 1)
    pair = detect.find_pairs([Document("a", "word2vec.py", long), Document("b", "word2vec.py", long)], [],
                             bases=detect.template_bases(TEMPLATE_DIR))[0][0]
    assert "wide wide" in similarity_html.pair_page(pair, 1)
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    probe = tmp_path / "probe.html"
    probe.write_text(similarity_html.pair_page(pair, 1).replace("</body>", FIT_SCRIPT + "</body>"), encoding="utf-8")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,800",
                          "--virtual-time-budget=2000", "--dump-dom", probe.as_uri()],
                         capture_output=True, text=True, timeout=120)
    fit = json.loads(html.unescape(re.search(r'data-fit="([^"]+)"', dom.stdout).group(1)))
    assert len(fit["panes"]) == 2 and max(fit["panes"]) <= fit["width"] and fit["scroll"] <= fit["width"], fit


def test_code_outside_the_course_region_marks_is_never_student_code():
    """An older quarter's provided tests appended to two files that keep the region marks: not
    student code, with or without --base; the same files without the marks share them."""
    template = (TEMPLATE_DIR / "parser_transitions.py").read_text(encoding="utf-8")
    regions = corpus.AUTHORS["loops"]["parser_transitions.py"], corpus.AUTHORS["terse"]["parser_transitions.py"]
    legacy = corpus.OLD_STARTER["parser_transitions.py"]
    marked = [corpus.fill(template, r) + legacy for r in regions]
    bases = detect.template_bases(TEMPLATE_DIR)

    def shared(texts: list[str]) -> list:
        docs = [Document(f"s{i}", "parser_transitions.py", t) for i, t in enumerate(texts)]
        return [p for p in detect.find_pairs(docs, [], bases=bases, threshold=1e-6)[0]
                if any("legacy" in p.text_a[s:e] or "SHIFT" in p.text_a[s:e] for s, e in p.regions_a)]

    assert "### YOUR CODE HERE" in marked[0] and not shared(marked)
    assert shared([corpus.unmarked(t) for t in marked])


def _outside_marks(text: str) -> str:
    """``text`` with the code of every region moved above its ``### YOUR CODE HERE`` mark (the
    marks left empty), as students who write above the marks, or hide a copy there, have it."""
    out: list[str] = []
    held: list[str] = []
    start = None
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("### YOUR CODE HERE"):
            start = len(out)
            out.append(line)
        elif line.lstrip().startswith("### END YOUR CODE") and start is not None:
            out[start:start] = held
            held, start = [], None
            out.append(line)
        elif start is not None and line.strip() and not line.lstrip().startswith("#"):
            held.append(line)
        else:
            out.append(line)
    return "".join(out)


def test_code_written_outside_its_functions_marks_is_compared():
    """A student who writes a function's code above its (empty) marks, or deletes one function's
    marks and keeps the others', wrote that code: it is compared (so a copy moved out of the marks
    is still found with its source), while a function the template does not mark (an older
    quarter's test kept outside the marks) stays starter code."""
    from class_copies import student_markers

    bases = _bases()
    source = student_markers((REPO / "reference" / "parser_transitions.py").read_text(encoding="utf-8"))
    moved = _outside_marks(source)
    step = moved[moved.index("def parse_step"):]
    assert step.index("self.stack.append(self.buffer.pop(0))") < step.index("### YOUR CODE HERE")
    legacy = moved + "\n\ndef test_parse_legacy():\n    pp = PartialParse(['a', 'b'])\n    pp.parse(['S', 'S', 'LA', 'RA'])\n" \
                     "    assert pp.dependencies == [('b', 'a'), ('ROOT', 'b')]\n"
    known = Document("public/parser_transitions.py", "parser_transitions.py", source, known=True)
    found = detect.survey([Document("copier", "parser_transitions.py", moved)], [known], bases=bases, threshold=0.5)
    assert [(p.a.owner, p.b.owner) for p in found.pairs] == [("copier", known.owner)] and found.pairs[0].score > 0.9
    own, _ = detect.own_part(legacy, bases["parser_transitions.py"].keys, "parser_transitions.py",
                             bases["parser_transitions.py"].functions)
    assert "self.stack.append(self.buffer.pop(0))" in own and "unfinished = partial_parses[:]" in own
    assert "test_parse_legacy" not in own and "pp.parse" not in own


@pytest.mark.parametrize("source", ["einsum", "reference"])
def test_statements_reordered_alone_are_still_found_with_their_source_best(source: str):
    """Issue 36: a copy of a known (public-shaped) solution with only its independent statements
    reordered, nothing renamed (the planted copies' own transforms: tools/similarity_corpus.py's
    swap_statements, every swap it can make taken, then tools/class_copies.py's reorder of the
    top-level functions), in a class of independent solutions: flagged in every file the
    reordering changed, and the known source is its best match there."""
    import random

    copies = load_script("class_copies", REPO / "tools" / "class_copies.py")
    every = corpus.solutions()
    source_files = every[source][0]
    copy = {f: copies.reorder(corpus.swap_statements(text, random.Random(3), chance=1.0), random.Random(4))
            for f, text in source_files.items()}
    changed = [f for f in EVIDENT if copy[f] != source_files[f]]
    assert len(changed) >= 2, changed
    docs = [Document(name, f, files[f]) for name, (files, _) in every.items() if name != source for f in STUDENT_FILES]
    docs += [Document("reordered", f, copy[f]) for f in STUDENT_FILES]
    known = [Document(f"known/{source}/{f}", f, text, known=True) for f, text in source_files.items()]
    found = detect.survey(docs, known, bases=detect.template_bases(TEMPLATE_DIR))
    for file in changed:
        mine = sorted((p for p in found.pairs if p.file == file and "reordered" in (p.a.owner, p.b.owner)),
                      key=lambda p: -p.score)
        assert mine and mine[0].b.known and mine[0].b.owner.startswith(f"known/{source}/"), \
            (file, [(p.a.owner, p.b.owner, round(p.score, 2)) for p in mine])


def test_the_pages_call_a_share_weighted_and_say_how_in_one_line():
    """A pair's shares count each token by how few documents hold it (calibrate.rarity_weight): the
    pair page and the index say "weighted" and give the weight, never a bare "% of student code"."""
    text = corpus.student_markers((REPO / "reference" / "word2vec.py").read_text(encoding="utf-8"))
    pair = detect.find_pairs([Document("a", "word2vec.py", text), Document("b", "word2vec.py", text)], [],
                             bases=detect.template_bases(TEMPLATE_DIR))[0][0]
    page = html.unescape(similarity_html.pair_page(pair, 1))
    assert f"A weighted {100 * pair.share_a:.0f}% of the first file's student code is found in the second" in page
    assert similarity_html.WEIGHT in page and "2/n when n documents of the file do" in similarity_html.WEIGHT
    assert not re.search(r"\d% of the first file's student code \(", page)
    index = html.unescape(similarity_html.index_page([pair], ["p.html"], threshold=None, submissions=2, known=[]))
    assert "the larger of the two weighted shares" in index and similarity_html.WEIGHT_RULE in index


def _forks(text: str, count: int) -> list[str]:
    """``count`` forks of one solution: each the same code with a small function of its own."""
    return [text + f"\n\ndef fork_note_{i}(value):\n    return value * {i + 2} + {i * 7 + 1}\n" for i in range(count)]


@pytest.mark.parametrize("file", ["word2vec.py", "parser_transitions.py"])
def test_forks_in_the_known_folder_count_as_one_solution(file: str):
    """Issue 36: known solutions are often forks of one another. Twelve near-identical forks of the
    solution a student copied (renamed) must not make its code common to the class (held by more than
    10 documents) nor weigh its evidence down: the copy is listed with a fork as its source, with
    the same score and evidence as against the one solution; each fork is still compared."""
    import random

    copies = load_script("class_copies", REPO / "tools" / "class_copies.py")
    every = corpus.solutions()
    source = every["einsum"][0][file]
    docs = [Document(name, file, files[file]) for name, (files, _) in every.items() if name != "einsum"]
    docs.append(Document("copied", file, copies.disguise(file, source, ("rename",), random.Random(2))))
    bases = detect.template_bases(TEMPLATE_DIR)
    alone = detect.survey(docs, [Document("known/einsum", file, source, known=True)], bases=bases)
    forks = [Document(f"known/fork{i:02d}", file, text, known=True) for i, text in enumerate(_forks(source, 12))]
    found = detect.survey(docs, forks, bases=bases)

    def best(survey):
        mine = sorted((p for p in survey.pairs if "copied" in (p.a.owner, p.b.owner)), key=lambda p: -p.evidence)
        assert mine and mine[0].b.known, [(p.a.owner, p.b.owner, p.score) for p in mine]
        return mine[0]

    one, fork = best(alone), best(found)
    assert fork.score == pytest.approx(one.score, abs=0.02) and fork.evidence == pytest.approx(one.evidence, rel=0.05)
    assert len({p.b.owner for p in found.pairs if p.a.owner == "copied"}) == 12     # every fork still compared
    assert found.files[file].documents == len(docs) + 1 and found.files[file].common == alone.files[file].common
