#!/usr/bin/env python3
"""Tests of tools/checks/: each checker run on its fixtures under tests/checks/fixtures/.

A fixture line that ends with the EXPECT-FLAG marker (in a comment) must be reported, and no
other line may be; a fixture without markers must pass (exit 0, no output). Also checks that a
run over the whole repository never reports the fixtures themselves (they are bad on purpose).

    run_check_tests.py co_await     tools/checks/co_await_check.py
    run_check_tests.py doc_paths    tools/checks/doc_paths_check.py
    run_check_tests.py              both
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
MARKER = re.compile(r"EXPECT-FLAG\s*(-->)?\s*$")
FINDING = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): ")


def expected(paths: list[str]) -> set[tuple[str, int]]:
    out = set()
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            for n, text in enumerate(fh, start=1):
                if MARKER.search(text.rstrip("\n")):
                    out.add((os.path.realpath(p), n))
    return out


def run(checker: str, args: list[str]) -> tuple[int, str]:
    script = os.path.join(ROOT, "tools", "checks", checker)
    proc = subprocess.run([sys.executable, script, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    return proc.returncode, proc.stdout


def reported(stdout: str) -> set[tuple[str, int]]:
    out = set()
    for line in stdout.splitlines():
        m = FINDING.match(line)
        if m:
            out.add((os.path.realpath(os.path.join(ROOT, m["path"])), int(m["line"])))
    return out


def expect_findings(checker: str, files: list[str], target: list[str]) -> list[str]:
    """Errors (empty: passed) of one checker run over `target` against the markers of `files`."""
    errors = []
    code, stdout = run(checker, target)
    want = expected(files)
    got = reported(stdout)
    rel = lambda p: os.path.relpath(p[0], ROOT) + ":" + str(p[1])  # noqa: E731
    for miss in sorted(want - got):
        errors.append(f"{checker}: not reported: {rel(miss)}")
    for extra in sorted(got - want):
        errors.append(f"{checker}: reported but not expected: {rel(extra)}")
    if code != (1 if want else 0):
        errors.append(f"{checker}: exit {code} on {' '.join(target)}, expected {1 if want else 0}")
    if errors:
        errors.append("output was:\n" + stdout)
    return errors


def fixtures_never_scanned(checker: str) -> list[str]:
    _, stdout = run(checker, [])
    shown = [line for line in stdout.splitlines() if line.startswith("tests/checks/fixtures/")]
    return [f"{checker}: a run over the repository scanned a fixture: {s}" for s in shown]


def co_await() -> list[str]:
    bad = os.path.join(FIXTURES, "co_await_bad.cpp")
    safe = os.path.join(FIXTURES, "co_await_safe.cpp")
    errors = expect_findings("co_await_check.py", [bad], [bad])
    errors += expect_findings("co_await_check.py", [safe], [safe])
    if not expected([bad]):
        errors.append("co_await_bad.cpp has no EXPECT-FLAG line")
    return errors + fixtures_never_scanned("co_await_check.py")


def doc_paths() -> list[str]:
    folder = os.path.join(FIXTURES, "doc_paths")
    files = [os.path.join(folder, f) for f in sorted(os.listdir(folder))]
    errors = expect_findings("doc_paths_check.py", files, [folder])
    if not expected(files):
        errors.append("the doc_paths fixtures have no EXPECT-FLAG line")
    return errors + fixtures_never_scanned("doc_paths_check.py")


def main(argv: list[str]) -> int:
    suites = {"co_await": co_await, "doc_paths": doc_paths}
    names = argv or list(suites)
    failed = False
    for name in names:
        if name not in suites:
            print(f"unknown suite {name}; one of {', '.join(suites)}", file=sys.stderr)
            return 2
        errors = suites[name]()
        print(("FAIL " if errors else "ok   ") + name)
        for e in errors:
            print("  " + e)
        failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
