#!/usr/bin/env bash
# Builds and runs the soak of issue 13 (tests/soak/): 30 devsim phones on a real adb server, the
# real `droidlab serve`, runs submitted continuously and ten minutes of random faults, then the
# checks (phones as found, runs ended with a reason, integrity_check, launches still there). Not
# part of tools/run-tests.sh: it takes a quarter of an hour. Exit 0 when every check passed.
#
#   tools/run-soak.sh                              10 min of faults, 30 phones
#   tools/run-soak.sh --minutes 2 --phones 10      a short one while developing
#   tools/run-soak.sh --seed 4242                  the same faults again (the seed is printed)
#   tools/run-soak.sh --drain-minutes 5 --keep     bound on the drain; keep the logs and database
#
# Bounded: faults for --minutes, at most --drain-minutes for the queue to empty, 3 minutes for
# restores after the final start; a watchdog (timeout) ends the whole soak past twice that.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=10
drain=5
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --minutes) minutes=${args[i + 1]:-10} ;;
    --drain-minutes) drain=${args[i + 1]:-5} ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
  esac
done

command -v adb >/dev/null || { echo "run-soak: adb is not installed (deploy/install-deps.sh --test)" >&2; exit 2; }
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDROIDLAB_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)" --target droidlab_soak

# Start-up, the drain, the final start and the checks take minutes on a busy machine: the
# watchdog allows twice the sum, plus 15 minutes.
limit=$(( (2 * (minutes + drain) + 15) * 60 ))
exec timeout -k 30 "$limit" build/tests/soak/droidlab_soak "$@"
