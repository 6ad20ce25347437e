"""Hostile submissions, third round (issue 34): inputs bounded before they are encoded or read.

The attacks: eight 4 MB ``.tex`` files of control bytes in a 41 KB zip (JSON writes a control
byte as six, so the writeup reader's request passed its 128 MiB frame cap: ``grader grade`` exited
1 with "internal grader error" and 0 points, similarity crashed), and 39 x 5 MiB ``.tex`` in a
220 KB zip (similarity reached 3 GB). Each upload's written files are now read by one rule
(:func:`grader.run.written_inputs.read_written`: count, size per file and size in all capped), a frame
is refused while it is written, and a reading error costs the written item alone (flagged for a TA).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import REFERENCE, REPO, RESULTS_SCHEMA

from a2.registry import STUDENT_FILES
from a2.written.grade import grade_written
from a2.written.process import InProcess
from grader.classroom.similarity import detect
from grader.classroom.similarity.sources import MAX_COMPARED_CHARS, WRITTEN, Document, cut_note
from grader.cli import main
from grader.common.paths import TEMPLATE_DIR
from grader.run import submission, written_inputs
from grader.run.engine import grade
from grader.run.rubric import load_rubric
from grader.run.settings import GradingSettings
from grader.sandbox import ProbeResult
from grader.untrusted import wire

CONTROL_FILE_BYTES = 4 * 10**6
BIG_TEX_BYTES = 5 * 2**20
MAX_SIMILARITY_RSS = 512 * 2**20


def control_zip(path: Path, *, files: int = 8, size: int = CONTROL_FILE_BYTES, byte: bytes = b"\x01") -> Path:
    """The reference's code and ``files`` .tex files of ``size`` control bytes each (a few KB zipped)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in STUDENT_FILES:
            zf.writestr(name, (REFERENCE / name).read_bytes())
        for index in range(files):
            zf.writestr(f"q{index}.tex", byte * size)
    return path


def test_a_frame_is_refused_while_it_is_written_not_after():
    """A message whose JSON would be 1.2 GB (200 MB of control characters) is refused at the cap,
    having held about the cap in memory, not the gigabyte."""
    value = {"files": [["q.tex", "\x01" * (2 * 10**6)]] * 100}
    tracemalloc.start()
    try:
        with pytest.raises(wire.FrameTooLarge, match="limit is 4194304"):
            wire.encode_message(value, max_bytes=4 * 2**20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, f"encoding held {peak} bytes before refusing"
    frame = wire.encode_message({"a": "\x01" * 10, "b": [1.5, None]}, max_bytes=1000)
    assert wire.decode_message(frame[wire.FRAME_HEADER.size:]) == {"a": "\x01" * 10, "b": [1.5, None]}


def test_written_files_are_read_within_one_rule(tmp_path: Path):
    """Count, size per file and size in all: what is read is bounded, and every cut is said."""
    paths = []
    for index in range(30):
        path = tmp_path / f"q{index:02d}.tex"
        path.write_bytes(b"\x01" * (2 * 2**20))
        paths.append(path)
    (tmp_path / "answers.md").write_text("### 1(a)\nfine\n")
    files, notes = written_inputs.read_written([*paths, tmp_path / "answers.md"])
    assert files[0][0] == "answers.md"
    assert sum(len(text) for _, text in files) <= written_inputs.MAX_WRITTEN_BYTES
    assert all(len(text) <= written_inputs.MAX_WRITTEN_FILE_BYTES for _, text in files)
    assert len(files) <= written_inputs.MAX_WRITTEN_FILES
    assert any("only its start was read" in n for n in notes)
    assert any("more written files were not read" in n for n in notes)
    worst = wire.encode_message({"files": [list(f) for f in files]})
    assert len(worst) < 64 * 2**20, "the reader's request stays far under its frame cap"


class _Refusing:
    """A reader whose every request fails to be sent (as an over-long frame did)."""

    def call(self, probe, args=None, *, timeout=0.0) -> ProbeResult:
        raise wire.FrameTooLarge("the message is 192000283 bytes; the limit is 134217728")

    def close(self) -> None:
        pass


def test_a_reading_error_costs_the_written_items_and_flags_them(tmp_path: Path):
    """Whatever the reader raises, grade_written returns: each auto item 0, on the TA's review
    list with the reason; nothing says "internal grader error"."""
    (tmp_path / "answers.md").write_text("### 2(b)(i)\n$\\gamma = 1/(1-p)$\n")
    parts = [p for p in load_rubric().written if p.id in ("2bi", "3b")]
    assert parts
    results, _manual, _notes = grade_written([tmp_path / "answers.md"], parts, 1, runner=_Refusing())
    assert [r.score for r in results] == [0] * len(results)
    for result in results:
        text = "\n".join(result.outcome.feedback)
        assert "could not be read" in text and "Internal grader error" not in text
        assert result.written is not None and "192000283" in result.written.review


def test_the_reader_refuses_an_over_long_request_as_an_error_not_an_exception():
    reply = InProcess().call("locate", {"files": [["q.tex", "\x01" * (30 * 2**20)]], "questions": ["1a"]})
    assert reply.status == "error" and "too large" in reply.error.message


@pytest.mark.slow
def test_control_bytes_writeup_grades_the_code_in_full(tmp_path: Path):
    """`grader grade` of the 41 KB zip: exit 0, a valid results.json, every code check full marks,
    the cut written files named in the notes."""
    upload = control_zip(tmp_path / "upload.zip")
    assert upload.stat().st_size < 64 * 1024
    results = tmp_path / "results.json"
    outcome = CliRunner().invoke(main, ["grade", str(upload), "--results", str(results), "--seed", "34", "--json"])
    assert outcome.exit_code == 0, outcome.output[-3000:]
    doc = json.loads(results.read_text())
    jsonschema.validate(doc, RESULTS_SCHEMA)
    code = [t for t in doc["tests"] if t.get("extra_data", {}).get("check_id") in {s.id for s in load_rubric().checks}]
    assert code and [t["name"] for t in code if t["score"] != t["max_score"]] == []
    assert "Internal grader error" not in json.dumps(doc)
    assert "only its start was read" in doc["output"]


def _zip_of_big_tex(path: Path) -> Path:
    """39 .tex files of 5 MiB (each at the student-file limit), the reference's code: ~220 KB zipped."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in STUDENT_FILES:
            zf.writestr(name, (REFERENCE / name).read_bytes())
        for index in range(39):
            zf.writestr(f"part{index:02d}.tex", b"\x02" * BIG_TEX_BYTES)
    return path


#: The writeup reader in the probe below, when it does not answer (a timeout under load: the
#: written answers are then compared whole, the route CI took when similarity peaked at 2.4 GB).
SILENT_READER = ("import a2.registry\nfrom grader.sandbox.runner import ProbeResult\n"
                 "class Silent:\n    def call(self, *a, **k):\n        return ProbeResult('timeout')\n"
                 "    def close(self):\n        pass\n"
                 "a2.registry.reader_process = Silent\n")


@pytest.mark.slow
@pytest.mark.parametrize("reader", ["answers", "silent"])
def test_similarity_of_a_class_with_both_attacks_stays_small(tmp_path: Path, reader: str):
    """`grader similarity` on a class holding both zips, a folder upload of big .tex files and two
    plain submissions: exit 0, its CSV written, its own peak memory under 512 MiB, whether the
    writeup reader finds the sections or the answers are compared whole."""
    classdir, out = tmp_path / "class", tmp_path / "out"
    classdir.mkdir()
    control_zip(classdir / "control.zip")
    _zip_of_big_tex(classdir / "bigtex.zip")
    folder = classdir / "folder_upload"
    folder.mkdir()
    for name in STUDENT_FILES:
        shutil.copy(REFERENCE / name, folder / name)
    for index in range(30):
        (folder / f"part{index:02d}.tex").write_bytes("漢".encode() * (BIG_TEX_BYTES // 3))
    for name in ("plain_a", "plain_b"):
        (classdir / name).mkdir()
        for file in (*STUDENT_FILES, "answers.md"):
            shutil.copy(REFERENCE / file, classdir / name / file)
    out.mkdir()
    (out / "batch.json").write_text(json.dumps({"source": str(classdir), "seed": 1, "checks": []}))
    # Its own peak is VmHWM, the high-water mark of this process's memory since it started. Not
    # ru_maxrss: Linux carries the parent's peak into a child through fork and exec, so a child of
    # a pytest process that has grown to 2.4 GB (CI's, late in the suite) reports 2.4 GB whatever it does.
    probe = ((SILENT_READER if reader == "silent" else "") + "import sys\nfrom grader.cli import main\ncode = 0\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n    code = exc.code or 0\n"
             "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
             "print('PEAK', int(hwm) * 1024)\nsys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", probe, "--root", str(REPO), "similarity", str(out)],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    peak = int(done.stdout.rsplit("PEAK", 1)[1].split()[0])
    assert peak < MAX_SIMILARITY_RSS, f"similarity peaked at {peak / 2**20:.0f} MiB"
    assert (out / "similarity.csv").is_file()
    if reader == "silent":
        assert "control: the written answers are longer than" in " ".join(done.stdout.split())


@pytest.mark.parametrize("file", [WRITTEN, "word2vec.py"])
def test_what_similarity_compares_of_one_document_is_bounded(file: str):
    """Two documents of 4 MB (control bytes, as a writeup compared whole; or code): the comparison
    reads the first MAX_COMPARED_CHARS characters of each, says so, and holds tens of MiB, not the
    gigabyte that fingerprinting 4 MB took."""
    text = "\x01" * CONTROL_FILE_BYTES if file == WRITTEN else "x = y + 1\n" * (CONTROL_FILE_BYTES // 10)
    docs = [Document(owner, file, text) for owner in ("a", "b")]
    tracemalloc.start()
    try:
        found = detect.survey(docs, [], bases=detect.template_bases(TEMPLATE_DIR))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20, f"{peak / 2**20:.0f} MiB"
    assert found.notes == [cut_note(doc) for doc in docs]
    assert str(MAX_COMPARED_CHARS) in found.notes[0]


# -- zip entries of one name -----------------------------------------------------------------------

def _duplicate_zip(path: Path, entries: list[tuple[str, bytes]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns of the duplicate name: it is the attack
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name, data in entries:
                zf.writestr(name, data)
    return path


def _padded(name: str) -> bytes:
    return (REFERENCE / name).read_bytes() + b"#" + b"x" * (6 * 2**20) + b"\n"


@pytest.mark.parametrize("order", ["huge_then_valid", "valid_then_huge", "link_then_valid"])
def test_a_duplicate_zip_entry_is_said_in_one_line_and_the_last_valid_one_is_graded(tmp_path: Path, order: str):
    valid = (REFERENCE / "word2vec.py").read_bytes()
    link = zipfile.ZipInfo("word2vec.py")
    link.external_attr = (0o120777) << 16
    first, second = {"huge_then_valid": (_padded("word2vec.py"), valid), "valid_then_huge": (valid, _padded("word2vec.py")),
                     "link_then_valid": ("/etc/passwd", valid)}[order]
    others = [(name, (REFERENCE / name).read_bytes()) for name in STUDENT_FILES if name != "word2vec.py"]
    upload = _duplicate_zip(tmp_path / "upload.zip", [(link if order == "link_then_valid" else "word2vec.py", first),
                                                      ("word2vec.py", second), *others])
    work = tmp_path / "work"
    work.mkdir()
    prepared = submission.prepare(upload, work)
    assert "word2vec.py" in prepared.present and "word2vec.py" not in prepared.refused
    assert (prepared.run_dir / "word2vec.py").read_bytes() == valid
    said = [n for n in prepared.notes if "appears 2 times" in n]
    assert len(said) == 1 and said[0].startswith("word2vec.py appears 2 times in upload.zip; entry"), prepared.notes


def test_a_duplicate_entry_with_no_valid_copy_is_refused_once(tmp_path: Path):
    upload = _duplicate_zip(tmp_path / "upload.zip", [("sgd.py", _padded("sgd.py")), ("sgd.py", _padded("sgd.py"))])
    work = tmp_path / "work"
    work.mkdir()
    prepared = submission.prepare(upload, work)
    assert "sgd.py" in prepared.refused and "sgd.py appears 2 times in upload.zip; none could be extracted" in prepared.notes


@pytest.mark.slow
def test_the_duplicate_entry_zip_gets_the_valid_files_score(tmp_path: Path):
    upload = _duplicate_zip(tmp_path / "upload.zip", [("word2vec.py", _padded("word2vec.py")),
                                                      ("word2vec.py", (REFERENCE / "word2vec.py").read_bytes()),
                                                      ("sgd.py", (REFERENCE / "sgd.py").read_bytes())])
    only = ["w2v_sigmoid", "w2v_naive_softmax", "w2v_neg_sampling", "w2v_skipgram"]
    report = grade(upload, GradingSettings(seed=34, only=only, rubric=load_rubric()))
    assert [(c.id, c.score) for c in report.checks if c.score < c.max_score] == []


def test_a_zip_of_many_tex_files_still_gives_its_answers_md(tmp_path: Path):
    upload = tmp_path / "upload.zip"
    with zipfile.ZipFile(upload, "w") as zf:
        for index in range(40):
            zf.writestr(f"part{index:02d}.tex", "x")
        zf.writestr("answers.md", "### 1(a)\nmine\n")
    work = tmp_path / "work"
    work.mkdir()
    prepared = submission.prepare(upload, work)
    names = [p.name for p in prepared.written]
    assert "answers.md" in names and len(names) == written_inputs.MAX_WRITTEN_FILES + 1
    assert any("only the first 20 were extracted" in n for n in prepared.notes)
    files, _ = written_inputs.read_written(prepared.written)
    assert files[0] == ("answers.md", "### 1(a)\nmine\n")
