"""grader.run.submission: folders and zips become a private run folder, unsafe archives are refused."""

from __future__ import annotations

import shutil
import stat
import zipfile

import pytest
from conftest import REFERENCE

from grader.run.submission import SubmissionError, prepare


def make_zip(path, entries):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            if isinstance(data, zipfile.ZipInfo):
                zf.writestr(data, b"target")
            else:
                zf.writestr(name, data)
    return path


def test_folder_overlays_student_files_on_support(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(REFERENCE, work)
    assert set(prepared.present) == {"word2vec.py", "sgd.py", "parser_transitions.py",
                                     "parser_model.py", "run.py"}
    assert (prepared.run_dir / "utils" / "parser_utils.py").is_file()
    assert not (prepared.run_dir / "answers.md").exists()
    assert [p.name for p in prepared.written] == ["answers.md"]


def test_zip_with_single_nested_folder(tmp_path):
    archive = make_zip(tmp_path / "s.zip", {"hw2/sgd.py": "x = 1\n", "hw2/answers.md": "# a\n",
                                            "__MACOSX/._sgd.py": "junk"})
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(archive, work)
    assert prepared.present == ("sgd.py",)
    assert "word2vec.py" in prepared.missing
    assert any("hw2/" in n for n in prepared.notes)


@pytest.mark.parametrize("name", ["../evil.py", "/etc/evil.py", "a/../../evil.py",
                                  "C:/evil.py", "..\\sgd.py"])
def test_zip_entries_outside_the_folder_are_skipped_and_the_rest_graded(tmp_path, name):
    archive = make_zip(tmp_path / "s.zip", {name: "x", "sgd.py": "x = 1\n"})
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(archive, work)
    assert prepared.present == ("sgd.py",)
    assert any("was skipped" in note and name.replace("\\", "/") in note
               for note in prepared.notes), prepared.notes
    assert not (tmp_path / "evil.py").exists() and not (tmp_path / "sgd.py").exists()
    assert sorted(p.name for p in work.rglob("*.py") if p.parent.name != "utils") == \
        ["sgd.py", "sgd.py"]  # the upload's copy and the run folder's


def test_zip_symlink_is_skipped(tmp_path):
    info = zipfile.ZipInfo("sgd.py")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive = make_zip(tmp_path / "s.zip", {"sgd.py": info, "word2vec.py": "x = 1\n"})
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(archive, work)
    assert prepared.present == ("word2vec.py",) and "sgd.py" in prepared.missing
    assert any("symbolic link" in note for note in prepared.notes)
    assert not (work / "run" / "sgd.py").exists()


def bomb(path, name, size):
    """A zip whose entry ``name`` inflates to ``size`` zero bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        entry = zipfile.ZipInfo(name)
        entry.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(entry, "w", force_zip64=True) as out:
            block = b"0" * (1 << 20)
            for _ in range(size // len(block)):
                out.write(block)
        zf.writestr("word2vec.py", "x = 1\n")
    return path


def test_zip_bomb_entry_is_refused_without_inflating_it_and_the_rest_graded(tmp_path, monkeypatch):
    import grader.run.submission as sub
    monkeypatch.setattr(sub, "MAX_STUDENT_FILE_BYTES", 100_000)
    archive = bomb(tmp_path / "bomb.zip", "sgd.py", 4 << 20)
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(archive, work)
    assert prepared.present == ("word2vec.py",)
    assert "unpacks to more than" in prepared.refused["sgd.py"]
    assert not (work / "upload" / "sgd.py").exists()


def test_zip_entry_with_a_lying_header_is_refused(tmp_path, monkeypatch):
    import grader.run.submission as sub
    monkeypatch.setattr(sub, "MAX_STUDENT_FILE_BYTES", 100_000)
    archive = tmp_path / "liar.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("sgd.py", b"0" * (1 << 20))
        zf.writestr("word2vec.py", "x = 1\n")
    data = bytearray(archive.read_bytes())
    # The central directory's record of sgd.py claims 10 bytes (it inflates to 1 MiB).
    central = next(at for at in range(len(data)) if data[at:at + 4] == b"PK\x01\x02"
                   and data[at + 46:at + 52] == b"sgd.py")
    data[central + 24:central + 28] = (10).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(archive, work)
    assert prepared.present == ("word2vec.py",) and "sgd.py" in prepared.refused, prepared
    assert not (work / "upload" / "sgd.py").exists()


def test_only_files_the_grader_reads_are_extracted(tmp_path):
    archive = make_zip(tmp_path / "s.zip", {
        "hw/sgd.py": "x = 1\n", "hw/answers.md": "# a\n", "hw/model.weights": b"0" * 1000,
        "hw/utils/utils.py": "evil = 1\n", "hw/deep/er/word2vec.py": "x = 1\n"})
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(archive, work)
    extracted = sorted(str(p.relative_to(work / "upload")) for p in (work / "upload").rglob("*")
                       if p.is_file())
    assert extracted == ["hw/answers.md", "hw/sgd.py"]
    assert prepared.present == ("sgd.py",)
    assert any("utils/ folder was ignored" in note for note in prepared.notes)


def test_too_large_or_linked_files_in_a_folder_are_refused_with_a_reason(tmp_path, monkeypatch):
    import grader.run.submission as sub
    monkeypatch.setattr(sub, "MAX_STUDENT_FILE_BYTES", 1000)
    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "sgd.py").write_text("#" * 2000)
    (upload / "word2vec.py").symlink_to(REFERENCE / "word2vec.py")
    (upload / "run.py").write_text("x = 1\n")
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(upload, work)
    assert prepared.present == ("run.py",)
    assert "is 2000 bytes; the limit is 1000" in prepared.refused["sgd.py"]
    assert "symbolic link" in prepared.refused["word2vec.py"]
    assert not (work / "run" / "word2vec.py").exists()


def test_too_many_entries_is_an_unreadable_upload(tmp_path, monkeypatch):
    import grader.run.submission as sub
    monkeypatch.setattr(sub, "MAX_ZIP_ENTRIES", 3)
    archive = make_zip(tmp_path / "s.zip", {f"f{i}.txt": "x" for i in range(4)})
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(SubmissionError, match="4 entries; the limit is 3"):
        prepare(archive, work)


def test_not_a_zip(tmp_path):
    bad = tmp_path / "s.zip"
    bad.write_bytes(b"not a zip")
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(SubmissionError, match="not a readable zip"):
        prepare(bad, work)


def test_a_notebook_instead_of_its_py_file_is_named_in_one_line(tmp_path):
    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "word2vec.ipynb").write_text('{"cells": []}')
    (upload / "sgd.py").write_text((REFERENCE / "sgd.py").read_text())
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(upload, work)
    said = [n for n in prepared.notes if "ipynb" in n]
    assert len(said) == 1 and said[0].startswith("found word2vec.ipynb: upload word2vec.py")
    assert "\n" not in said[0]
    assert prepared.refused["word2vec.py"] == said[0] and "word2vec.py" in prepared.missing
    assert not any(p.suffix == ".ipynb" for p in prepared.written)
    # In a zip too.
    archive = tmp_path / "upload.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("hw2/word2vec.ipynb", '{"cells": []}')
        zf.writestr("hw2/answers.md", "# answers")
    work2 = tmp_path / "work2"
    work2.mkdir()
    assert any(n.startswith("found word2vec.ipynb: upload word2vec.py") for n in prepare(archive, work2).notes)


def test_an_untouched_starter_folder_gets_no_warning_and_a_changed_one_says_what_changed(tmp_path):
    """`grader check` on the starter folder as handed out: no "your utils/ folder was ignored";
    once a support file is edited, the note names it and says the edit is not used."""
    from grader.common.paths import TEMPLATE_DIR

    starter = tmp_path / "starter"
    shutil.copytree(TEMPLATE_DIR, starter)
    (starter / "utils" / "__pycache__").mkdir(exist_ok=True)
    (starter / "utils" / "__pycache__" / "utils.cpython-311.pyc").write_bytes(b"\0")
    work = tmp_path / "work"
    work.mkdir()
    assert not [n for n in prepare(starter, work).notes if "utils/" in n or "data/" in n]
    with open(starter / "utils" / "utils.py", "a", encoding="utf-8") as f:
        f.write("\n# my change\n")
    work2 = tmp_path / "work2"
    work2.mkdir()
    notes = [n for n in prepare(starter, work2).notes if "utils/" in n]
    assert notes == ["your utils/ folder differs from the starter's (utils/utils.py): the grader uses its own "
                     "copy, so changes there are not used"]


@pytest.mark.parametrize("entries", [
    {"a2_answer.md": "# 1(b)\n", "a2/sgd.py": "x = 1\n", "a2/word2vec.py": "x = 1\n"},
    {"a2_answer.md": "# 1(b)\n", "code/sgd.py": "x = 1\n", "code/word2vec.py": "x = 1\n",
     "figures/loss.png": "png"},
    {"report/a2_answer.md": "# 1(b)\n", "a2/sgd.py": "x = 1\n", "a2/word2vec.py": "x = 1\n"},
])
def test_a_writeup_beside_the_code_folder_is_read_with_the_code(tmp_path, entries):
    """The writeup at the top of a zip (or in its own folder) and the code in a folder of its own:
    the code is graded from its folder, wherever it is, and the writeup is read."""
    archive = make_zip(tmp_path / "s.zip", entries)
    work = tmp_path / "work"
    work.mkdir()
    prepared = prepare(archive, work)
    assert set(prepared.present) == {"sgd.py", "word2vec.py"}
    assert "a2_answer.md" in [p.name for p in prepared.written]
