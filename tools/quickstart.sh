#!/usr/bin/env bash
# The README's first command: installs what droidlab needs, builds it, and runs its main job on
# a shipped sample. Until the daemon exists (see README, "Status"), the main job is
# `droidlab parse`: launch events from real Android 10+ logcat lines.
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target droidlab -j"$(nproc)" >/dev/null

sample=${1:-tests/data/logcat/android10plus_threadtime.txt}
echo "\$ build/daemon/droidlab parse logcat $sample" >&2
build/daemon/droidlab parse logcat "$sample"
