#!/usr/bin/env python3
"""Every repository path a README.md or a C++ comment names must exist.

A path is a relative path whose first component is one of the repository's top-level folders
(`store/open.cpp`, `store/async_store.h`, `schema/0001_init.sql`, `tests/data/`) and that
ends in a file extension or in `/`. It must exist from the repository's root, or from the
folder of the file that names it. Skipped: paths with placeholders (`{id}`, `*`, `NNNN`, `NAME`,
`<name>`, `...`), paths under build folders, and paths that are not this repository's (first
component not one of its folders: `../shared/DESIGN.md`, AOSP's `frameworks/base/...`; a path
inside a URL or after another `/`; a comment block or a paragraph that cites AOSP sources, where
`daemon/shell_service.cpp` is adb's daemon, not ours).

    tools/checks/doc_paths_check.py              every README.md, *.cpp and *.h of the repository
    tools/checks/doc_paths_check.py FILE|DIR...  those only

Prints `path:line: names a path that does not exist: <path>` per finding and exits 1 if there is
any, 0 otherwise. Standard library only.
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from co_await_check import ROOT, SKIP_DIRS, SKIP_PREFIXES, source_files, tokenize  # noqa: E402


def top_level_folders(root: str) -> list[str]:
    """The repository's own top-level folders (build and hidden folders left out)."""
    out = []
    for name in sorted(os.listdir(root)):
        full = os.path.join(root, name)
        if not os.path.isdir(full) or name.startswith(".") or name.startswith(SKIP_PREFIXES):
            continue
        if name in SKIP_DIRS or os.path.exists(os.path.join(full, "CMakeCache.txt")):
            continue
        out.append(name)
    return out


PLACEHOLDER = re.compile(r"[{}*<>]|\.\.\.|(^|/)([A-Z][A-Z_0-9]{2,})(/|\.|$)")


def path_pattern(folders: list[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(f) for f in folders)
    # Not after a word character, a dot, a slash or a dash: `../shared/x`, `a/store/x`, URLs.
    return re.compile(r"(?<![\w./~-])((?:" + names + r")/[\w.+/{}<>*-]*)")


def candidate(raw: str) -> str | None:
    """The path to check in a matched token, or None when it is not one to check."""
    path = raw.rstrip(".,;:")
    if PLACEHOLDER.search(path):
        return None
    if path.endswith("/"):
        return path
    last = path.rsplit("/", 1)[-1]
    if re.search(r"\.[A-Za-z0-9]{1,8}$", last) and not last.startswith("."):
        return path
    return None


# A comment block or paragraph citing Android's sources: its `daemon/...` is not our daemon/.
AOSP = re.compile(r"\bAOSP\b|packages/modules/|frameworks/(base|native)|system/core/|"
                  r"android\.googlesource\.com|cs\.android\.com")


def blocks(lines: list[tuple[int, str, bool]]) -> list[list[tuple[int, str]]]:
    """Lines grouped by contiguity (a block of comment lines, a Markdown paragraph)."""
    out: list[list[tuple[int, str]]] = []
    joinable = False
    for line, text, alone in lines:
        if not text.strip():
            joinable = False
            continue
        if joinable and alone and out[-1][-1][0] == line - 1:
            out[-1].append((line, text))
        else:
            out.append([(line, text)])
        joinable = alone
    return out


def exists(path: str, from_dir: str) -> bool:
    return os.path.exists(os.path.join(ROOT, path)) or os.path.exists(os.path.join(from_dir, path))


def texts_to_check(path: str) -> list[tuple[int, str, bool]]:
    """(line, text, alone) triples: a README's lines, or a C++ file's comments (alone: the
    comment is the line's only content, so it can belong to a block of comment lines)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    if path.endswith(".md"):
        return [(n, t, True) for n, t in enumerate(text.split("\n"), start=1)]
    toks, comments = tokenize(text)
    code_lines = {t.line for t in toks}
    return [(n, c, n not in code_lines) for n, c in sorted(comments.items())]


def files_to_check(paths: list[str]) -> list[str]:
    return source_files(paths, lambda name: name == "README.md" or name.endswith((".cpp", ".h")))


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    pattern = path_pattern(top_level_folders(ROOT))
    count = 0
    for f in files_to_check(argv or [ROOT]):
        shown = os.path.relpath(f, ROOT) if not argv else os.path.relpath(f)
        if shown.startswith(".."):
            shown = f
        from_dir = os.path.dirname(os.path.abspath(f))
        for block in blocks(texts_to_check(f)):
            if any(AOSP.search(text) for _, text in block):
                continue
            for line, text in block:
                for m in pattern.finditer(text):
                    path = candidate(m.group(1))
                    if path is None or exists(path, from_dir):
                        continue
                    print(f"{shown}:{line}: names a path that does not exist: {path}")
                    count += 1
    if count:
        print(f"doc_paths_check: {count} finding(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
