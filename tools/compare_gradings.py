#!/usr/bin/env python
"""Grade the whole test corpus through the CLI and compare two such records (issue 25: a move of
modules must not change one score or message).

From the repository root:

    python tools/compare_gradings.py record /tmp/before.json                 # seed 1234, 2 workers
    python tools/compare_gradings.py record /tmp/after.json --seeds 1234,7 --jobs 2 --only 'buggy/*'
    python tools/compare_gradings.py compare /tmp/before.json /tmp/after.json   # exit 0 iff identical

``record`` grades, at each seed, every submission of the corpus with ``python -m grader grade DIR
--seed S --json --results TMP/results.json`` (cwd: the checkout the script lives in; the grader is
used only through its CLI, so the script works across any internal move of modules) and keeps the
--json report and results.json as they are, parsed. Uploads are assembled as the tests do it (their
own helpers, imported from tests/):

    buggy/NAME, slow/NAME, alternative, independent   tests/conftest.py ``assemble``: the reference's
        files with the folder's *.py and answers file laid over them
    hostile/NAME   tests/test_hostile.py ``assemble`` or its ``build`` builder (zips, huge files),
        ``__REPO__``/``__RESULTS__`` substituted; graded on every check with the rubric's timeouts
        (the test lowers them and picks checks; the CLI cannot). A case whose expect.yaml
        ``requires`` the sandbox user, namespaces or nproc limits is skipped unless run as root.
    examples/NAME  every folder of examples/ that holds a student file, copied as is
    writeups/FILE, writeups/wild/NAME   the written reader alone: a folder holding only the writeup
        (a .txt as answers.txt, a .md as answers.md, a .tex as is; a wild folder copied whole)

A grading that times out (the rubric's budget + 120 s) or exits non-zero is recorded as such,
with the end of its stderr. ``--only GLOB`` selects ids (``hostile/zip_*``).

``compare`` prints how many gradings and check results were compared and every difference as
(submission, seed, check, field, before, after); exit 0 iff there is none. It normalizes both
records the same way, each rule only removing what differs between two runs of the same code:
  1. the keys ``seconds`` and ``execution_time`` (wall-clock durations of a check and of the
     grading) are dropped wherever they occur;
  2. in every string: the path of the checkout that was recorded becomes ``<REPO>`` (a hostile
     case's ``__REPO__``, the sandbox's paths); the 8 random characters of a temporary folder's
     name (``/tmp/a2grader-cmp-k3j_x9ab``, TEMP_PREFIXES) become ``XXXXXXXX``; ``pid 123`` becomes
     ``pid <PID>``; ISO dates and times (2026-11-26, 06:15:46) become ``<DATE>`` and ``<TIME>``;
     the training cost 5.9 measures on the student's first minibatches ("costs 3.7 ms per
     example") becomes ``<MS> ms per example`` (two runs of one commit measured 3.6-4.3 ms; the
     training size it leads to is still compared);
  3. hostile/thread_forges_replies (RACY): its student thread forges the worker's replies at
     random moments, so which call it hits is a race: its checks' ``feedback``, ``status``,
     ``ran`` and trial counts (results.json: ``output``, ``grader_status``, trial counts) are not
     compared, their scores are (the word2vec checks came out "error", "crashed" or "failed" in
     two runs of one commit, 0 points each time, 32.0 in all).
Scores, statuses, check ids and all other message text are compared exactly. (The dev
UAS of buggy/model_dropout_always, whose dropout stays on in eval mode, varied from run to run until
the dev logits were seeded; since issue 32 the grader computes them itself, without dropout.)
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
SUBMISSIONS = TESTS / "submissions"
WRITEUPS = TESTS / "writeups"
WRITEUP_NAMES = {".txt": "answers.txt", ".md": "answers.md"}
DROPPED_KEYS = ("seconds", "execution_time")
RACY = {"hostile/thread_forges_replies": "a thread forging replies at random moments: which call it hits is a race"}
RACY_FIELDS = ("feedback", "output", "status", "ran", "grader_status", "trials_passed", "trials_total")
RACY_TESTS = "results.tests"
"""A racy grading's results.json tests, compared by number and score alone."""
MARGIN_S = 120.0
STDERR_TAIL = 2000


# -- the corpus ------------------------------------------------------------------------------------


def corpus() -> list[str]:
    """Every grading id, in a stable order (hostile first: its hangs take longest)."""
    ids = [f"hostile/{p.name}" for p in sorted((SUBMISSIONS / "hostile").iterdir()) if (p / "expect.yaml").is_file()]
    for kind in ("buggy", "slow"):
        ids += [f"{kind}/{p.name}" for p in sorted((SUBMISSIONS / kind).iterdir()) if p.is_dir()]
    ids += [kind for kind in ("alternative", "independent") if (SUBMISSIONS / kind).is_dir()]
    ids += [f"examples/{p.name}" for p in sorted((REPO / "examples").iterdir())
            if p.is_dir() and any(f.suffix == ".py" for f in p.iterdir())]
    ids += [f"writeups/{p.name}" for p in sorted(WRITEUPS.iterdir()) if p.is_file()]
    ids += [f"writeups/wild/{p.name}" for p in sorted((WRITEUPS / "wild").iterdir()) if p.is_dir()]
    return ids


def _test_module(name: str):
    """A module of tests/ (conftest, test_hostile), imported as pytest would find it."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    return __import__(name)


def upload(gid: str, tmp: Path, results: Path) -> Path | str:
    """The upload of grading ``gid`` built in ``tmp`` (or the reason it is skipped)."""
    kind, _, name = gid.partition("/")
    if kind == "hostile":
        hostile = _test_module("test_hostile")
        expect = hostile.load_case(SUBMISSIONS / "hostile" / name)
        if expect.get("requires") and os.geteuid() != 0:
            return f"skipped: requires {expect['requires']} (not root)"
        return hostile.upload_for(SUBMISSIONS / "hostile" / name, expect, tmp, results)
    if kind in ("buggy", "slow", "alternative", "independent"):
        return _test_module("conftest").assemble(SUBMISSIONS / gid, tmp / (name or kind))
    dest = tmp / Path(gid).name
    if kind == "examples" or name.startswith("wild/"):
        shutil.copytree(REPO / gid if kind == "examples" else WRITEUPS / name, dest)
        return dest
    source = WRITEUPS / name
    dest = tmp / source.stem
    dest.mkdir()
    shutil.copyfile(source, dest / WRITEUP_NAMES.get(source.suffix, source.name))
    return dest


# -- normalization ---------------------------------------------------------------------------------

# The temporary folders the grader and this script make (tempfile adds 8 characters of [a-z0-9_]).
TEMP_PREFIXES = r"tmp|a2grader-(?:sandbox-|cmp-|probe-|matplotlib-)?|grader-train-|a2kit-|a2sim-"


def normalizer(repo: str):
    """What ``compare`` applies to both records (see the module's docstring)."""
    rules = [(re.escape(repo), "<REPO>"), (rf"\b({TEMP_PREFIXES})[a-z0-9_]{{8}}\b", r"\1XXXXXXXX"),
             (r"\b(pid|PID) \d+", r"\1 <PID>"), (r"\b\d{4}-\d{2}-\d{2}\b", "<DATE>"),
             (r"\b\d{2}:\d{2}:\d{2}(\.\d+)?\b", "<TIME>"),
             (r"\b\d+(?:\.\d+)? ms per example\b", "<MS> ms per example")]
    compiled = [(re.compile(pattern), new) for pattern, new in rules]

    def norm(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items() if k not in DROPPED_KEYS}
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, str):
            for pattern, new in compiled:
                value = pattern.sub(new, value)
        return value
    return norm


# -- record ----------------------------------------------------------------------------------------


def grade_one(gid: str, seed: int, timeout: float) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="a2grader-cmp-"))
    results = tmp / "results.json"
    entry: dict[str, Any] = {"id": gid, "seed": seed}
    try:
        target = upload(gid, tmp, results)
        if isinstance(target, str):
            return {**entry, "status": target}
        cmd = [sys.executable, "-m", "grader", "grade", str(target), "--seed", str(seed), "--json", "--results", str(results)]
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            entry["status"] = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)   # the grading's own process group, started above
            out, err = proc.communicate()
            entry["status"] = f"timeout after {timeout:.0f} s"
        try:
            entry["report"] = json.loads(out)
        except ValueError:   # no report: the end of stderr says why
            entry["report"] = None
        entry["results"] = json.loads(results.read_text()) if results.is_file() else None
        if entry["status"] != "ok" or entry["report"] is None:
            entry["stderr"] = err[-STDERR_TAIL:]
        return entry
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def record(out: Path, seeds: list[int], jobs: int, only: str | None) -> int:
    ids = [g for g in corpus() if only is None or fnmatch.fnmatch(g, only)]
    timeout = float(yaml.safe_load((REPO / "rubric.yaml").read_text())["budget"]) + MARGIN_S
    tasks = [(gid, seed) for gid in ids for seed in seeds]
    for module, prefixes in (("conftest", ("buggy/", "slow/", "alternative", "independent")), ("test_hostile", ("hostile/",))):
        if any(gid.startswith(prefixes) for gid in ids):
            _test_module(module)   # imported once, before the workers' threads
    started = time.monotonic()
    done: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(grade_one, gid, seed, timeout) for gid, seed in tasks]
        for n, future in enumerate(futures, 1):
            entry = future.result()
            done.append(entry)
            print(f"[{n}/{len(tasks)}] {entry['id']} seed {entry['seed']}: {entry['status']}", flush=True)
    wall = time.monotonic() - started
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    doc = {"repo": str(REPO), "commit": commit, "seeds": seeds, "jobs": jobs, "only": only, "wall_seconds": round(wall, 1),
           "gradings": {f"{e['id']}@{e['seed']}": e for e in done}}
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    failed = sum(e["status"] != "ok" for e in done)
    print(f"{len(done)} gradings ({failed} not ok) in {wall:.0f} s -> {out}")
    return 0


# -- compare ---------------------------------------------------------------------------------------


def _item_key(item: dict[str, Any]) -> str | None:
    """A check's id; a results.json test's check id or question (``/manual`` for a TA's part)."""
    extra = item.get("extra_data") or {}
    if "manual_points" in extra:
        return f"{extra.get('question')}/manual"
    return item.get("id") or extra.get("check_id") or extra.get("question") or item.get("name")


def flatten(value: Any, path: str = "") -> dict[str, Any]:
    """Leaves of ``value`` by path; a list of checks (or results.json tests) is keyed by check id."""
    if isinstance(value, dict):
        leaves: dict[str, Any] = {}
        for k, v in value.items():
            leaves.update(flatten(v, f"{path}.{k}" if path else k))
        return leaves or {path: {}}
    if isinstance(value, list):
        keys = [_item_key(v) if isinstance(v, dict) else None for v in value]
        if value and all(keys) and len(set(keys)) == len(keys):
            return {p: v for k, item in zip(keys, value) for p, v in flatten(item, f"{path}[{k}]").items()}
        return {path: value}
    return {path: value}


def check_results(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The grading's leaves grouped by check: ``check`` -> {field: value}; "-" holds the rest."""
    grouped: dict[str, dict[str, Any]] = {}
    for doc in ("report", "results"):
        for path, value in flatten(entry.get(doc)).items():
            match = re.match(r"(checks|tests|manual|review)\[([^\]]+)\]\.?(.*)", path)
            check, field = (match.group(2), f"{doc}.{match.group(1)}.{match.group(3)}") if match else ("-", f"{doc}.{path}")
            grouped.setdefault(check, {})[field] = value
    grouped["-"] = {**grouped.get("-", {}), "status": entry.get("status"), "stderr": entry.get("stderr")}
    return grouped


def compare(before: dict[str, Any], after: dict[str, Any]) -> tuple[int, int, list[tuple]]:
    """(gradings compared, check results compared, differences as (submission, seed, check, field,
    before, after))."""
    diffs: list[tuple] = []
    gradings = checks = 0
    norm_a, norm_b = normalizer(before.get("repo", str(REPO))), normalizer(after.get("repo", str(REPO)))
    a_all, b_all = before["gradings"], after["gradings"]
    for key in sorted(set(a_all) | set(b_all)):
        a, b = a_all.get(key), b_all.get(key)
        if a is None or b is None:
            diffs.append(((a or b)["id"], (a or b)["seed"], "-", "grading", "present" if a else "absent", "present" if b else "absent"))
            continue
        gradings += 1
        ga, gb = check_results(norm_a(a)), check_results(norm_b(b))
        for grouped in (ga, gb) if a["id"] in RACY else ():
            for check in set(grouped) - {"-"}:
                grouped[check] = {f: v for f, v in grouped[check].items() if f.rsplit(".", 1)[-1] not in RACY_FIELDS}
            tests = grouped.get("-", {}).get(RACY_TESTS)
            if isinstance(tests, list):
                grouped["-"][RACY_TESTS] = [(t.get("number"), t.get("score")) for t in tests if isinstance(t, dict)]
        checks += sum(len((a.get("report") or {}).get(part, [])) for part in ("checks", "manual"))  # graded + TA items
        for check in sorted(set(ga) | set(gb)):
            fa, fb = ga.get(check, {}), gb.get(check, {})
            for field in sorted(set(fa) | set(fb)):
                if fa.get(field, "<absent>") != fb.get(field, "<absent>"):
                    diffs.append((a["id"], a["seed"], check, field, fa.get(field, "<absent>"), fb.get(field, "<absent>")))
    return gradings, checks, diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="grade the corpus and write OUT.json")
    rec.add_argument("out", type=Path)
    rec.add_argument("--seeds", default="1234", help="comma-separated seeds (default: 1234)")
    rec.add_argument("--jobs", type=int, default=2, help="gradings run at once (default: 2)")
    rec.add_argument("--only", default=None, metavar="GLOB", help="only the ids matching GLOB (hostile/zip_*)")
    cmp = sub.add_parser("compare", help="compare two records; exit 0 iff identical")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "record":
        return record(args.out, [int(s) for s in args.seeds.split(",")], args.jobs, args.only)
    gradings, checks, diffs = compare(json.loads(args.before.read_text()), json.loads(args.after.read_text()))
    show = lambda v: (t := json.dumps(v, ensure_ascii=False))[:300] + ("..." if len(t) > 300 else "")
    for submission, seed, check, field, old, new in diffs:
        print(f"{submission} seed {seed} check {check} {field}:\n  before: {show(old)}\n  after:  {show(new)}")
    print(f"compared {gradings} gradings, {checks} check results: {len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
