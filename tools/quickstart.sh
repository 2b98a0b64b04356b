#!/usr/bin/env bash
# The README's first command: installs what droidlab needs, builds it, and runs its main job —
# the daemon, `droidlab serve`, on its embedded defaults (http://127.0.0.1:8765, droidlab.db in
# the current folder). Before that it makes sure there is something to measure:
#   - an adb server (started with `adb start-server` when none answers, as the daemon would);
#   - devices: when no real device is attached, three simulated ones (droidlab-devsim), said so;
# and once the daemon answers, it queues a sample run (10 cold launches of com.example.app on a
# simulated device, or of Settings on a real one) and prints where to look. Ctrl-C stops the
# daemon and the simulated devices.
#
#   tools/quickstart.sh                 as above
#   DROIDLAB_QUICKSTART_NO_RUN=1 tools/quickstart.sh    no sample run
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/install-deps.sh
echo "quickstart: building (the first build takes a few minutes)" >&2
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target droidlab droidlab-devsim -j"$(nproc)" >/dev/null

droidlab=build/daemon/droidlab
devsim=build/tools/devsim/droidlab-devsim
listen=127.0.0.1:8765
api=http://$listen/api/v1
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

if ! adb devices >/dev/null 2>&1; then
  echo "quickstart: no adb server answered; starting one" >&2
  adb start-server >/dev/null
fi

# Devices adb lists as `device` (not offline or unauthorized).
online=$(adb devices | awk 'NR > 1 && $2 == "device" {print $1}')
simulated=0
if [[ -z "$online" ]]; then
  echo "quickstart: no Android device is attached: starting 3 simulated devices (droidlab-devsim)" >&2
  devsim_out=$(mktemp)
  "$devsim" --port 0 --count 3 >"$devsim_out" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do
    [[ $(grep -c 'listening on' "$devsim_out") -ge 3 ]] && break
    sleep 0.1
  done
  for address in $(grep -o 'listening on [0-9.:]*' "$devsim_out" | awk '{print $3}'); do
    adb connect "$address" >/dev/null
  done
  simulated=1
  online=$(adb devices | awk 'NR > 1 && $2 == "device" {print $1}')
fi

echo "quickstart: starting the daemon: $droidlab serve" >&2
"$droidlab" serve --listen "$listen" &
daemon=$!
pids+=("$daemon")
for _ in $(seq 100); do
  curl -fsS "$api/health" >/dev/null 2>&1 && break
  kill -0 "$daemon" 2>/dev/null || { echo "quickstart: the daemon did not start" >&2; exit 1; }
  sleep 0.1
done

serial=$(printf '%s\n' "$online" | head -n 1)
if [[ -z "${DROIDLAB_QUICKSTART_NO_RUN:-}" && -n "$serial" ]]; then
  if [[ $simulated == 1 ]]; then
    body='{"serial":"'"$serial"'","package":"com.example.app","mode":"cold","iterations":10,"looper_stats":{"sampling_interval":1},"proc_sample_interval_ms":100}'
  else
    body='{"serial":"'"$serial"'","package":"com.android.settings","mode":"cold","iterations":10,"proc_sample_interval_ms":100}'
  fi
  # The device needs a moment to be registered after the daemon starts.
  for _ in $(seq 50); do
    curl -fsS "$api/devices/${serial//:/%3A}" >/dev/null 2>&1 && break
    sleep 0.1
  done
  run=$(curl -fsS -X POST -H 'Content-Type: application/json' -d "$body" "$api/runs")
  id=$(printf '%s' "$run" | sed -E 's/.*"id":([0-9]+).*/\1/')
  echo "quickstart: queued run $id on $serial" >&2
fi

cat >&2 <<EOF

droidlab is serving at http://$listen
  dashboard: http://$listen/
  devices:   curl $api/devices
  runs:      curl $api/runs
  a run:     curl $api/runs/${id:-1}        (launches: $api/runs/${id:-1}/launches)
  live:      curl -N $api/events
  metrics:   curl http://$listen/metrics
Ctrl-C stops it.
EOF
wait "$daemon"
