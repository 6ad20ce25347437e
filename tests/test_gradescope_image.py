"""setup.sh and run_autograder end to end in a root filesystem close to Gradescope's image.

Gradescope builds an Ubuntu image with python3 preinstalled, runs setup.sh in it as root, then
run_autograder for every submission. Ubuntu's archive and PyTorch's index are not reachable here,
Debian's archive is: the image is a Debian bookworm root made by debootstrap (minbase, python3 and
CA certificates preinstalled as in Gradescope's images), cached under /var/cache/a2grader-test by
its inputs. The test copies it, unpacks `grader package`'s zip into /autograder as Gradescope does,
and runs both scripts as root in a chroot with a clean environment, torch coming from the local
wheel through A2GRADER_TORCH_SOURCE (the documented override).

Safety: every mount (/proc, /dev/shm and the read-only package folders) is made inside a private
mount namespace of the one process that runs the chroot, so they all end with it; the root gets
its own device nodes (made by debootstrap), never the host's /dev or /sys. The copy is deleted only
after checking that nothing under it is mounted, and with --one-file-system.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlparse

import jsonschema
import pytest
from conftest import REPO, RESULTS_SCHEMA

from grader.package import gradescope_zip as package
from grader.package import scripts as package_scripts

pytestmark = pytest.mark.slow

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
INCLUDE = ("python3", "ca-certificates")
CACHE = Path("/var/cache/a2grader-test")
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
ROOT_CA = "/etc/ssl/certs/host-ca.crt"
CLEAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _missing() -> str:
    if os.geteuid() != 0:
        return "needs root (debootstrap, chroot and mount namespaces)"
    for tool in ("debootstrap", "unshare", "chroot"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (.ci/run installs debootstrap with apt-get when it runs as root)"
    return ""


def _mounted_under(folder: Path) -> list[str]:
    """Mount points at or under ``folder`` seen by this process (fields of /proc/self/mountinfo)."""
    prefix = str(folder.resolve())
    points = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    return [p for p in points if p == prefix or p.startswith(prefix + "/")]


def _remove_root(folder: Path) -> None:
    """Delete a root copy, but only when nothing is mounted under it, and never across mounts."""
    if not folder.exists():
        return
    mounted = _mounted_under(folder)
    assert not mounted, f"refusing to delete {folder}: still mounted under it: {mounted}"
    subprocess.run(["rm", "-rf", "--one-file-system", str(folder)], check=True, timeout=600)


def _cached_root() -> Path:
    """The debootstrap'd root for these inputs, built once per machine (debootstrap mounts /proc
    in its target while it installs, so it too runs in a private mount namespace)."""
    key = hashlib.sha256(repr((SUITE, "minbase", INCLUDE, MIRROR)).encode()).hexdigest()[:12]
    root = CACHE / f"{SUITE}-minbase-python3-{key}"
    if (root / "usr" / "bin" / "python3").exists():
        return root
    CACHE.mkdir(parents=True, exist_ok=True)
    build = CACHE / f".build-{key}-{os.getpid()}"
    _remove_root(build)
    subprocess.run(["unshare", "--mount", "--propagation", "private", "--fork", "debootstrap",
                    "--variant=minbase", f"--include={','.join(INCLUDE)}", SUITE, str(build), MIRROR],
                   check=True, timeout=1800)
    assert not _mounted_under(build), "debootstrap left mounts behind"
    build.rename(root)
    return root


def _pip_sources() -> dict[str, str]:
    """The host's pip settings that say where packages come from (find-links, extra index
    URLs), as PIP_* variables for the chroot's clean environment."""
    out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                         timeout=120, check=False).stdout
    settings: dict[str, str] = {}
    for line in out.splitlines():
        name, _, value = line.partition("=")
        key = name.split(".")[-1]
        if key in ("find-links", "extra-index-url", "index-url"):
            settings.setdefault(key, value.strip().strip("'\""))
    return {f"PIP_{k.upper().replace('-', '_')}": v for k, v in settings.items()}


def _local_folders(values: list[str]) -> list[str]:
    """Local folders named by pip sources (paths and file:// URLs)."""
    folders = []
    for value in values:
        for item in value.split():
            path = urlparse(item).path if item.startswith("file:") else item
            if path.startswith("/") and Path(path).is_dir():
                top = str(Path(*Path(path).parts[:3]))  # /opt/pypi/simple -> /opt/pypi
                folders.append(top if Path(top).is_dir() else path)
    return sorted(set(folders))


def _torch_wheel(folders: list[str]) -> str:
    """The CPU torch wheel the lock pins, from the host's local package folders."""
    for folder in folders:
        wheels = sorted(Path(folder).rglob("torch-2.13.0+cpu-cp311-*.whl"))
        if wheels:
            return str(wheels[0])
    return ""


SCRIPT = r"""
set -euxo pipefail
ROOT="$1"; shift
# Everything below is mounted in this process's private mount namespace: it all ends with it.
mount -t proc proc "$ROOT/proc"
mount -t tmpfs -o size=256m,mode=1777 tmpfs "$ROOT/dev/shm"
for folder in "$@"; do
    mkdir -p "$ROOT$folder"
    mount --bind "$folder" "$ROOT$folder"
    mount -o remount,bind,ro "$ROOT$folder"
done
grep -F " $ROOT" /proc/self/mountinfo  # what is mounted in the root (in this namespace only)
chroot "$ROOT" /usr/bin/env -i @ENV@ bash /autograder/source/setup.sh
chroot "$ROOT" /usr/bin/env -i @ENV@ bash -c 'cd /autograder && ./run_autograder'
"""


def test_setup_and_run_autograder_in_a_debian_root(tmp_path: Path):
    reason = _missing()
    if reason:
        pytest.skip(reason)
    image = _cached_root()
    root = tmp_path / "root"
    try:
        subprocess.run(["cp", "-a", "--one-file-system", str(image), str(root)], check=True, timeout=600)
        autograder = root / "autograder"
        archive = tmp_path / "autograder.zip"
        package.build_package(archive)
        with zipfile.ZipFile(archive) as zf:  # laid out as Gradescope does
            for info in zf.infolist():
                target = Path(zf.extract(info, autograder / "source"))
                os.chmod(target, (info.external_attr >> 16) & 0o777)
        shutil.copy2(autograder / "source" / "run_autograder", autograder / "run_autograder")
        shutil.copytree(REPO / "examples" / "buggy_submission", autograder / "submission")
        (autograder / "results").mkdir()
        shutil.copy2("/etc/resolv.conf", root / "etc" / "resolv.conf")
        if CA_BUNDLE.exists():  # a TLS-inspecting proxy's CA lives only in the host's bundle
            shutil.copy2(CA_BUNDLE, root / ROOT_CA.lstrip("/"))

        sources = _pip_sources()
        folders = _local_folders(list(sources.values()))
        torch = _torch_wheel(folders)
        env = [f"PATH={CLEAN_PATH}", "HOME=/root", "LANG=C.UTF-8", f"PIP_CERT={ROOT_CA}",
               f"SSL_CERT_FILE={ROOT_CA}", *(f"{k}={v}" for k, v in sources.items())]
        if torch:
            env.append(f"{package_scripts.TORCH_VARIABLE}={torch}")
        proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "--fork",
                               "bash", "-c", SCRIPT.replace("@ENV@", shlex.join(env)), "image", str(root),
                               *folders], capture_output=True,
                              text=True, timeout=3600, check=False)
        log = proc.stdout[-6000:] + proc.stderr[-6000:]
        assert proc.returncode == 0, log
        assert "imports torch 2.13.0" in proc.stdout + proc.stderr, log
        assert "DFA states stored in /autograder/source/grader/reading/formula_dfa.pickle" in proc.stdout, log
        doc = json.loads((autograder / "results" / "results.json").read_text())
        jsonschema.validate(doc, RESULTS_SCHEMA)
        assert doc["tests"], doc.get("output")
        assert 0 < doc["score"] < sum(t.get("max_score", 0) for t in doc["tests"])
    finally:
        _remove_root(root)
