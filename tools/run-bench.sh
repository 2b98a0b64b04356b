#!/usr/bin/env bash
# Runs every benchmark at full size on a Release build; each prints our figure beside its
# reference measured in the same run, and the ratio. Figures go into bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DDROIDLAB_BUILD_TESTS=OFF >/dev/null
cmake --build build-release -j"$(nproc)" >/dev/null
for b in build-release/bench/*_bench; do
  echo "== $(basename "$b")"
  if [[ $(basename "$b") == logcat_bench ]]; then
    "$b" build-release/daemon/droidlab
    echo "== $(basename "$b") --dense"
    "$b" --dense build-release/daemon/droidlab
  elif [[ $(basename "$b") == gfxinfo_bench ]]; then
    "$b" build-release/daemon/droidlab  # also times `droidlab parse gfxinfo` as a child
  else
    "$b"
  fi
done
