#!/usr/bin/env python
"""Resolve gradescope/requirements.lock for the grading image, with uv's resolver.

From the repository root (needs the network, to read PyPI's metadata; uv comes with the
``package`` extra and never goes into the image):

    .venv/bin/pip install -e '.[package]'
    .venv/bin/python tools/lock_requirements.py              # write the lock
    .venv/bin/python tools/lock_requirements.py --check      # exit 1 if it would change
    .venv/bin/python tools/lock_requirements.py --torch-wheel /opt/wheels/torch-2.13.0+cpu-...whl

The resolution is for Linux x86_64 (manylinux_2_28) and Python 3.11, the image setup.sh makes,
whatever machine runs it. Its input is pyproject.toml's [project].dependencies (what grading
needs and what student files import; nothing of the test or bench extras).

torch is PyTorch's CPU build in the image, from PyTorch's CPU index. Its dependencies are
resolved from PyPI's metadata of the pinned version, whose Linux wheel also requires the CUDA
runtime (nvidia-*, cuda-*, triton); the CPU build requires none of them, so a first pass finds
them and a second pass resolves again with them excluded. The torch line is then written as the
CPU build (torch==X+cpu). ``--torch-wheel`` checks the result against a CPU wheel's own metadata:
each of its requirements must be pinned.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from grader.package.lockfile import (  # noqa: E402
    IMAGE_PLATFORM,
    IMAGE_PYTHON,
    INPUT_PREFIX,
    LOCK_PATH,
    TORCH_LOCAL,
    lock_problems,
    runtime_requirements,
)

#: What PyPI's Linux torch wheel requires and PyTorch's CPU build does not: the CUDA runtime.
CUDA_ONLY = re.compile(r"^(nvidia-.*|cuda-.*|triton)$")
COMMAND = "python tools/lock_requirements.py"


def uv_binary() -> str:
    try:
        from uv import find_uv_bin  # noqa: PLC0415 - uv is optional: only when it is installed
        return str(find_uv_bin())
    except ImportError:
        found = shutil.which("uv")
        if not found:
            sys.exit("uv is not installed: .venv/bin/pip install -e '.[package]'")
        return found


def compile_pins(inputs: list[str], excluded: list[str], work: Path) -> list[str]:
    """``name==version`` lines of uv's resolution of ``inputs`` for the image."""
    (work / "in.txt").write_text("\n".join(inputs) + "\n", encoding="utf-8")
    command = [uv_binary(), "pip", "compile", str(work / "in.txt"), "--python-version", IMAGE_PYTHON,
               "--python-platform", IMAGE_PLATFORM, "--no-header", "--no-annotate", "--quiet",
               "--index-url", "https://pypi.org/simple"]
    if excluded:
        (work / "excluded.txt").write_text("\n".join(excluded) + "\n", encoding="utf-8")
        command += ["--excludes", str(work / "excluded.txt")]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"uv pip compile failed:\n{done.stderr}")
    return [line.strip() for line in done.stdout.splitlines() if line.strip() and not line.startswith("#")]


def resolve(inputs: list[str]) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        first = compile_pins(inputs, [], Path(tmp))
        cuda = sorted(line.split("==")[0] for line in first if CUDA_ONLY.match(canonicalize_name(line.split("==")[0])))
        pins = compile_pins(inputs, cuda, Path(tmp)) if cuda else first
    pins = [f"{line}+{TORCH_LOCAL}" if canonicalize_name(line.split("==")[0]) == "torch" else line for line in pins]
    if any(CUDA_ONLY.match(canonicalize_name(line.split("==")[0])) for line in pins):
        sys.exit("the CUDA runtime is still in the resolution; refusing to write it into the CPU image")
    return pins


def check_torch_wheel(wheel: Path, pins: list[str]) -> list[str]:
    """Requirements of the CPU wheel's own metadata that the lock does not pin."""
    with zipfile.ZipFile(wheel) as zf:
        [name] = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(zf.read(name).decode("utf-8"))
    pinned = {canonicalize_name(line.split("==")[0]) for line in pins}
    needed = [Requirement(line) for line in metadata.get_all("Requires-Dist") or []]
    return [str(r) for r in needed if (r.marker is None or r.marker.evaluate({"extra": ""}))
            and canonicalize_name(r.name) not in pinned]


def lock_text(inputs: list[str], pins: list[str]) -> str:
    header = [
        "# The grading image's requirements: every runtime dependency and all of theirs, pinned.",
        f"# Resolved for Linux x86_64 ({IMAGE_PLATFORM}) and Python {IMAGE_PYTHON} by uv, with torch as",
        "# PyTorch's CPU build (setup.sh installs it first, from PyTorch's CPU index) and its",
        "# dependencies resolved from PyPI's metadata without the CUDA runtime. Do not edit: run",
        f"#     {COMMAND}",
        "# after changing [project].dependencies in pyproject.toml, which this was resolved from:",
    ]
    return "\n".join(header + [INPUT_PREFIX + line for line in inputs] + pins) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the lock would change")
    parser.add_argument("--torch-wheel", type=Path, help="a CPU wheel of torch whose requirements must be pinned")
    args = parser.parse_args(argv)
    inputs = sorted(str(r) for r in runtime_requirements(REPO / "pyproject.toml"))
    pins = resolve(inputs)
    if args.torch_wheel and (missing := check_torch_wheel(args.torch_wheel, pins)):
        sys.exit(f"{args.torch_wheel} requires what the lock does not pin: {', '.join(missing)}")
    text = lock_text(inputs, pins)
    path = REPO / LOCK_PATH
    if args.check:
        same = path.is_file() and path.read_text(encoding="utf-8") == text
        print(f"{path}: " + ("up to date" if same else f"out of date; run {COMMAND}"))
        return 0 if same else 1
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    problems = lock_problems(REPO / "pyproject.toml", path)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"wrote {path}: {len(pins)} pins")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
