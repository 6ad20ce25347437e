"""grader.submission: folders and zips become a private run folder, unsafe archives are refused."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from conftest import REFERENCE
from grader.submission import SubmissionError, prepare


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


@pytest.mark.parametrize("name", ["../evil.py", "/etc/evil.py", "a/../../evil.py"])
def test_zip_path_traversal_refused(tmp_path, name):
    archive = make_zip(tmp_path / "s.zip", {name: "x"})
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(SubmissionError, match="refused"):
        prepare(archive, work)
    assert not (tmp_path / "evil.py").exists()


def test_zip_symlink_refused(tmp_path):
    info = zipfile.ZipInfo("sgd.py")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive = make_zip(tmp_path / "s.zip", {"sgd.py": info})
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(SubmissionError, match="symbolic link"):
        prepare(archive, work)


def test_zip_bomb_refused(tmp_path, monkeypatch):
    import grader.submission as sub
    monkeypatch.setattr(sub, "MAX_UNPACKED_BYTES", 10_000)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("sgd.py", b"0" * 100_000)
    archive = tmp_path / "bomb.zip"
    archive.write_bytes(buf.getvalue())
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(SubmissionError, match="unpacks to"):
        prepare(archive, work)


def test_not_a_zip(tmp_path):
    bad = tmp_path / "s.zip"
    bad.write_bytes(b"not a zip")
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(SubmissionError, match="not a readable zip"):
        prepare(bad, work)
