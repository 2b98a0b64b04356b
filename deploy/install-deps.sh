#!/usr/bin/env bash
# Installs what droidlab needs from Debian 12's packages, and nothing else.
#   deploy/install-deps.sh           to build and run the daemon (and dpkg-dev: dpkg-shlibdeps,
#                                    which cpack -G DEB runs to compute the .deb's dependencies)
#   deploy/install-deps.sh --test    also what the test suite needs (clang and its fuzzer runtime;
#                                    wrk and nginx for bench/api_http_bench; chromium, nodejs and
#                                    npm for the dashboard's browser test, tests/browser/; expat
#                                    to read the JUnit reports of the client commands back;
#                                    python3 for tools/checks/ and their tests, tests/checks/;
#                                    postgresql, the server the store's PostgreSQL tests start on
#                                    a private port in a temporary folder, tests/common/pg_server.h;
#                                    prometheus, which tests/deploy/prometheus_test.py starts on a
#                                    private port to check deploy/prometheus and deploy/grafana)
# Quick and silent when everything is present; runs apt-get update only when a package is missing.
set -euo pipefail

packages=(
  g++ cmake make ccache mold
  libboost1.81-dev nlohmann-json3-dev libspdlog-dev libsqlite3-dev libzip-dev libssl-dev
  libgtest-dev libbenchmark-dev adb libhowardhinnant-date-dev tzdata curl
  libjs-chart.js libpq-dev dpkg-dev
)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(clang libclang-rt-14-dev wrk nginx-light chromium nodejs npm libexpat1-dev python3
    postgresql prometheus)
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--test]" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  # NodeSource's nodejs bundles npm and conflicts with Debian's: an npm on the PATH will do.
  [[ "$p" == npm ]] && command -v npm >/dev/null && continue
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
