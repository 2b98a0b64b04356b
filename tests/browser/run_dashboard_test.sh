#!/usr/bin/env bash
# ctest's entry to the browser test: installs playwright-core at the version package-lock.json
# pins (npm ci, into the build dir, again only when the lock file changes), then runs
# dashboard_test.cjs. Exit 77 (skipped) when node, npm or chromium is missing.
#   run_dashboard_test.sh SOURCE_DIR WORK_DIR   (env as dashboard_test.cjs documents)
set -euo pipefail
src=$1
work=$2
for tool in node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "browser test: SKIP: $tool is not installed (deploy/install-deps.sh --test)"
    exit 77
  fi
done
if [[ ! -x "$DROIDLAB_CHROMIUM" ]]; then
  echo "browser test: SKIP: chromium is not installed at $DROIDLAB_CHROMIUM (deploy/install-deps.sh --test)"
  exit 77
fi

mkdir -p "$work"
if ! cmp -s "$src/package-lock.json" "$work/node_modules/.droidlab-lock.json" 2>/dev/null; then
  cp "$src/package.json" "$src/package-lock.json" "$work/"
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$src/package-lock.json" "$work/node_modules/.droidlab-lock.json"
fi
export DROIDLAB_NODE_MODULES="$work/node_modules"
exec node "$src/dashboard_test.cjs"
