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
#   tools/quickstart.sh --postgres      the same lab with its history in PostgreSQL instead of
#                                       droidlab.db: Debian's postgresql installed, a private
#                                       server started on port 5433 with its data and socket in
#                                       one folder (./droidlab-pg, or /var/tmp/droidlab-pg as
#                                       root, run by the `postgres` user), kept for the next try
#                                       and stopped with the daemon
#   DROIDLAB_QUICKSTART_NO_RUN=1 tools/quickstart.sh    no sample run
set -euo pipefail
cd "$(dirname "$0")/.."

postgres=0
case "${1:-}" in
  "") ;;
  --postgres) postgres=1 ;;
  *) echo "usage: $0 [--postgres]" >&2; exit 2 ;;
esac

bash deploy/install-deps.sh
if [[ $postgres == 1 ]]; then
  if ! dpkg-query -W -f='${db:Status-Status}' postgresql 2>/dev/null | grep -qx installed; then
    echo "quickstart: installing Debian's postgresql" >&2
    as_root=(); [[ $(id -u) -eq 0 ]] || as_root=(sudo)
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends postgresql >/dev/null
  fi
fi
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

db_args=()
if [[ $postgres == 1 ]]; then
  # PostgreSQL refuses to run as root: as root the server is the package's `postgres` user's,
  # in a folder it can reach.
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  if [[ $(id -u) -eq 0 ]]; then
    pg_dir=/var/tmp/droidlab-pg; pg_user=postgres; as_pg=(runuser -u postgres --)
  else
    pg_dir=$PWD/droidlab-pg; pg_user=$(id -un); as_pg=()
  fi
  pg_port=5433
  if [[ ! -f $pg_dir/PG_VERSION ]]; then
    echo "quickstart: creating a PostgreSQL cluster in $pg_dir" >&2
    mkdir -p "$pg_dir"
    [[ $(id -u) -eq 0 ]] && chown postgres: "$pg_dir"
    # Trust on the socket only, which is in the cluster's own folder (mode 0700): a trial lab.
    "${as_pg[@]}" "$pg_bin/initdb" -D "$pg_dir" -U "$pg_user" --auth-local=trust \
      --auth-host=reject >/dev/null
  fi
  echo "quickstart: starting PostgreSQL (port $pg_port, socket in $pg_dir)" >&2
  "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pg_dir" -l "$pg_dir/server.log" -w \
    -o "-p $pg_port -k $pg_dir -c listen_addresses=''" start >/dev/null
  stop_pg() { "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pg_dir" -m fast -w stop >/dev/null 2>&1 || true; }
  trap 'cleanup; stop_pg' EXIT INT TERM
  "${as_pg[@]}" "$pg_bin/psql" -h "$pg_dir" -p "$pg_port" -U "$pg_user" -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'droidlab'" | grep -q 1 ||
    "${as_pg[@]}" "$pg_bin/createdb" -h "$pg_dir" -p "$pg_port" -U "$pg_user" droidlab
  db_args=(--db "postgresql:///droidlab?host=$pg_dir&port=$pg_port&user=$pg_user")
fi

echo "quickstart: starting the daemon: $droidlab serve ${db_args[*]}" >&2
"$droidlab" serve --listen "$listen" "${db_args[@]}" &
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
