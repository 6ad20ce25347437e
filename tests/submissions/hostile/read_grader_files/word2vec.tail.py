import glob as _glob
import os as _os

_real_sigmoid = sigmoid
_TARGETS = ["__REPO__/rubric.yaml", "__REPO__/reference/word2vec.py",
            "__REPO__/a2/checks/word2vec.py", "__REPO__/tests/submissions/hostile",
            "/autograder/source/rubric.yaml", "../../rubric.yaml"]


def _peek():
    found = []
    candidates = list(_TARGETS)
    for proc in _glob.glob("/proc/[0-9]*"):
        candidates += [f"{proc}/cwd/rubric.yaml", f"{proc}/root__REPO__/rubric.yaml",
                       f"{proc}/cwd/reference/word2vec.py"]
    for path in candidates:
        try:
            if _os.path.isdir(path):
                found.append((path, _os.listdir(path)))
            else:
                with open(path) as f:
                    found.append((path, f.read(100)))
        except OSError:
            pass
    return found


def sigmoid(x):
    found = _peek()
    if found:
        return _real_sigmoid(x)
    raise PermissionError("read nothing of the grader")
