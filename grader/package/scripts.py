"""The three files ``grader package`` generates for the autograder zip: ``setup.sh`` (the image:
Python, the virtual environment, PyTorch's CPU build, the sandbox user), ``run_autograder`` (one
grading; always a valid results.json) and ``requirements.txt`` (the lock resolved for the image,
``gradescope/requirements.lock``: see grader/package/lockfile.py).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from packaging.utils import canonicalize_name

from grader.package.lockfile import IMAGE_PYTHON, LOCK_PATH, lock_problems, read_lock
from grader.run.rubric import BUDGET_MARGIN_S, DEFAULT_BUDGET_S, GRADESCOPE_TIMEOUT_S
from grader.sandbox.isolation import EXTRA_HIDDEN_VARIABLE, SANDBOX_USER


class PackageError(RuntimeError):
    """The package cannot be built; the message lists every reason and what to do."""


#: Where setup.sh puts the virtual environment, and so the interpreter run_autograder uses
#: unless A2GRADER_PYTHON names another one.
VENV_DIR = "/opt/a2grader/venv"
DEFAULT_PYTHON = f"{VENV_DIR}/bin/python"
TORCH_INDEX_URL = "https://download.pytorch.org/whl/cpu"
#: setup.sh's override of where torch comes from: another index URL, a folder of wheels, or a
#: wheel file (e.g. the CPU wheel copied next to the image when PyTorch's index is out of reach).
TORCH_VARIABLE = "A2GRADER_TORCH_SOURCE"
#: Environment variables run_autograder reads (set by the tests to simulate Gradescope).
ROOT_VARIABLE = "A2GRADER_AUTOGRADER_ROOT"
PYTHON_VARIABLE = "A2GRADER_PYTHON"
DEFAULT_AUTOGRADER_ROOT = "/autograder"
#: What run_autograder tells staff when the grading was killed (the README's Gradescope section
#: gives the measured figures behind it). Plain words: it goes into a JSON string as is.
MEMORY_ADVICE = "the default 768 MB is enough for the measured gradings; 1.5 GB leaves room for heavy submissions"


# -- pinned requirements -----------------------------------------------------------------------


def pinned_requirements(root: Path) -> tuple[str, list[str]]:
    """(the torch pin, every pin of the lock): ``gradescope/requirements.lock``, resolved for the
    image by tools/lock_requirements.py and checked against pyproject.toml here."""
    pyproject, lock_path = root / "pyproject.toml", root / LOCK_PATH
    problems = lock_problems(pyproject, lock_path)
    if problems:
        raise PackageError("\n".join(problems))
    lock = read_lock(lock_path)
    torch = [line for line in lock.lines if canonicalize_name(line.split("==")[0]) == "torch"]
    if not torch:
        raise PackageError(f"{lock_path}: no torch pin; setup.sh installs the torch version pinned there")
    return torch[0], list(lock.lines)


def requirements_txt(root: Path) -> str:
    """requirements.txt of the zip: the lock's pins, with where they come from."""
    torch, pins = pinned_requirements(root)
    header = [
        f"# The grading image's requirements, copied by `grader package` from {LOCK_PATH.as_posix()}",
        f"# (resolved for Linux x86_64 and Python {IMAGE_PYTHON} by tools/lock_requirements.py).",
        f"# {torch} is installed first by setup.sh from {TORCH_INDEX_URL} (or ${TORCH_VARIABLE}).",
    ]
    return "\n".join(header + pins) + "\n"


# -- the two scripts ---------------------------------------------------------------------------

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source while it builds the grading image
# (an Ubuntu image: 22.04 by default, whose python3 is 3.10). It installs:
#   - Python @IMAGE_PYTHON@, the one requirements.txt is resolved for: the release's own python3
#     when it is that version, otherwise python@IMAGE_PYTHON@ from the deadsnakes PPA (the usual
#     source of other Pythons on Ubuntu; 24.04's python3 is 3.12, for which nothing was resolved);
#   - a virtual environment at @VENV@, readable by every user, with PyTorch's CPU
#     build (@TORCH@) and the pinned versions of requirements.txt (resolved for this image);
#   - the unprivileged user @SANDBOX_USER@, which student code runs as.
set -euxo pipefail
export DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="@VENV@"

apt-get update
if command -v python3 >/dev/null && python3 -c 'import sys; sys.exit(sys.version_info[:2] != (@IMAGE_PYTHON_TUPLE@))'; then
    apt-get install -y --no-install-recommends python3-venv python3-dev
    BASE_PYTHON=python3
else
    apt-get install -y --no-install-recommends software-properties-common gpg-agent
    add-apt-repository -y ppa:deadsnakes/ppa
    apt-get update
    apt-get install -y --no-install-recommends python@IMAGE_PYTHON@ python@IMAGE_PYTHON@-venv python@IMAGE_PYTHON@-dev
    BASE_PYTHON=python@IMAGE_PYTHON@
fi

"$BASE_PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --upgrade pip
# torch: PyTorch's CPU build, without its dependencies (requirements.txt pins them). From
# PyTorch's CPU index unless @TORCH_VARIABLE@ names another index URL, a folder of wheels or a
# wheel file; requirements.txt's own torch line then checks that the version is the pinned one.
TORCH_SOURCE="${@TORCH_VARIABLE@:-@TORCH_INDEX_URL@}"
if [ -f "$TORCH_SOURCE" ]; then
    "$VENV/bin/python" -m pip install --no-deps "$TORCH_SOURCE"
elif [ -d "$TORCH_SOURCE" ]; then
    "$VENV/bin/python" -m pip install --no-deps --no-index --find-links "$TORCH_SOURCE" "@TORCH@"
else
    "$VENV/bin/python" -m pip install --no-deps "@TORCH@" --index-url "$TORCH_SOURCE"
fi
"$VENV/bin/python" -m pip install -r "$SOURCE/requirements.txt"
chmod -R a+rX "$(dirname "$VENV")"

# The formula parser's DFA, built once from the course's declared formula shapes: without it every
# submission's reader starts from an empty DFA (about 0.5 s a writeup instead of 0.1 s). Optional.
for shapes in "$SOURCE"/*/written/formula_shapes.json; do
    [ -f "$shapes" ] || continue
    (cd "$SOURCE" && PYTHONPATH="$SOURCE" "$VENV/bin/python" -m grader.reading.prediction_build "$shapes") \
        && chmod a+r "$SOURCE/grader/reading/formula_dfa.pickle" \
        || echo "the formula DFA was not built: the written reader starts from an empty one"
done

if ! id -u @SANDBOX_USER@ >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin @SANDBOX_USER@
fi

# Smoke tests: the sandbox user can import what student code needs, and the grader loads.
(cd / && runuser -u @SANDBOX_USER@ -- "$VENV/bin/python" -c \
    "import numpy, torch; print('@SANDBOX_USER@ imports torch', torch.__version__)")
(cd "$SOURCE" && A2GRADER_ROOT="$SOURCE" PYTHONPATH="$SOURCE" "$VENV/bin/python" -c \
    "import grader.cli, grader.run.check_api as checks; checks.all_checks()")
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission, as root. It grades the files in
# $ROOT/submission with the grader in $ROOT/source and writes $ROOT/results/results.json.
# A valid results.json is written whatever happens: the grader writes one for anything a
# submission does, and this script writes one if the grader itself could not run.
#   @ROOT_VARIABLE@  the autograder root (default @DEFAULT_ROOT@)
#   @PYTHON_VARIABLE@           the interpreter (default @DEFAULT_PYTHON@, made by setup.sh)
set -u
ROOT="${@ROOT_VARIABLE@:-@DEFAULT_ROOT@}"
PYTHON="${@PYTHON_VARIABLE@:-@DEFAULT_PYTHON@}"
SOURCE="$ROOT/source"
RESULTS="$ROOT/results/results.json"

mkdir -p "$ROOT/results"
rm -f "$RESULTS"
cd "$SOURCE" || exit 1
export A2GRADER_ROOT="$SOURCE" PYTHONPATH="$SOURCE" PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg
# Student code must not see the root (source, submission, results) wherever it is.
export @HIDE_VARIABLE@="$ROOT${@HIDE_VARIABLE@:+:$@HIDE_VARIABLE@}"
# The grader keeps within rubric.yaml's budget (@BUDGET@ s) and writes results.json before it ends;
# should it not, it is stopped @HARD_LIMIT@ s in, still inside Gradescope's timeout, so that the
# fallback below is written.
timeout --kill-after=5 @HARD_LIMIT@ "$PYTHON" -m grader grade "$ROOT/submission" --results "$RESULTS"
status=$?
if [ ! -s "$RESULTS" ]; then
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 -a "$SECONDS" -ge @HARD_LIMIT@ ]; then
        message="The autograder passed its time limit of @HARD_LIMIT@ s (rubric.yaml's budget is @BUDGET@ s)"
        message="$message before it finished, so this submission was not graded. This is not your fault:"
        message="$message please tell the course staff, who can regrade it."
    elif [ "$status" -gt 128 ]; then
        # Ended by a signal (bash reports 128 + its number): SIGKILL (137) is what the container
        # sends a process when the grading exceeds its memory.
        signal=$((status - 128))
        name="$(kill -l "$signal" 2>/dev/null || echo "$signal")"
        message="The autograder was stopped by signal SIG$name (exit status $status) before it finished,"
        if [ "$signal" -eq 9 ]; then
            message="$message most likely because the grading ran out of memory,"
        fi
        message="$message so this submission was not graded. This is not your fault: please tell the course staff."
        message="$message Course staff: raise the memory (and CPU) of the autograder container in the"
        message="$message assignment's Autograder Settings on Gradescope (@MEMORY_ADVICE@), then regrade."
    else
        message="The autograder could not run (exit status $status), so this submission was not graded."
        message="$message This is not your fault: please tell the course staff."
    fi
    printf '{"score": 0.0, "execution_time": 0, "output": "%s", "output_format": "text", %s}\n' \
        "$message" '"visibility": "visible", "stdout_visibility": "hidden", "tests": []' > "$RESULTS"
fi
exit 0
"""


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(f"@{key}@", value)
    leftover = re.findall(r"@[A-Z_]+@", template)
    if leftover:
        raise AssertionError(f"unfilled placeholders {leftover} in a packaged script")
    return template


def setup_sh(torch: str) -> str:
    return _fill(SETUP_SH, {
        "IMAGE_PYTHON": IMAGE_PYTHON,
        "IMAGE_PYTHON_TUPLE": ", ".join(IMAGE_PYTHON.split(".")),
        "VENV": VENV_DIR, "TORCH": torch, "TORCH_INDEX_URL": TORCH_INDEX_URL, "TORCH_VARIABLE": TORCH_VARIABLE,
        "SANDBOX_USER": SANDBOX_USER,
    })


def hard_limit(budget: float) -> int:
    """Seconds after which run_autograder stops a grading that overran its budget: half the
    margin between the budget and Gradescope's timeout later."""
    return math.ceil(budget + BUDGET_MARGIN_S / 2)


def timeout_advice(budget: float) -> str:
    """The Autograder Settings' timeout that fits a grading budget."""
    minutes = max(math.ceil((budget + BUDGET_MARGIN_S) / 60), 1)
    return (f"Autograder Settings: a timeout of at least {minutes} minute(s) (rubric.yaml's budget "
            f"{budget:g} s plus {BUDGET_MARGIN_S:g} s for start-up and writing results"
            + ("; Gradescope's default 10 minutes fits)" if minutes <= GRADESCOPE_TIMEOUT_S / 60 else ")"))


def run_autograder(budget: float = DEFAULT_BUDGET_S) -> str:
    return _fill(RUN_AUTOGRADER, {
        "BUDGET": f"{budget:g}", "HARD_LIMIT": str(hard_limit(budget)),
        "ROOT_VARIABLE": ROOT_VARIABLE, "PYTHON_VARIABLE": PYTHON_VARIABLE,
        "DEFAULT_ROOT": DEFAULT_AUTOGRADER_ROOT, "DEFAULT_PYTHON": DEFAULT_PYTHON,
        "HIDE_VARIABLE": EXTRA_HIDDEN_VARIABLE, "MEMORY_ADVICE": MEMORY_ADVICE,
    })
