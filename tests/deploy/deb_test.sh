#!/usr/bin/env bash
# The Debian package (cmake/DroidlabPackage.cmake), from a build folder where droidlab is built:
#   tests/deploy/deb_test.sh BUILD_DIR
# 1. cpack -G DEB into a temporary folder: droidlab_VERSION_amd64.deb.
# 2. Its control fields (dependencies computed by dpkg-shlibdeps, adb recommended), its files,
#    its conffile, its postinst (sh -n).
# 3. apt resolves it on this Debian 12 (`apt-get install --simulate ./droidlab_….deb`: the
#    dependencies exist under those names), without installing it.
# 4. Unpacked into a throwaway root (dpkg -x): the sysusers file applied there
#    (systemd-sysusers --root), the packaged droidlab's --version, and its `serve` started with
#    the packaged /etc/droidlab/droidlab.json (state paths moved into the temporary folder, a
#    private port, no adb) answering GET /api/v1/health.
# Not done here: a real `apt install` into a Debian root (no container engine or debootstrap on
# the build machines, and root-invasive otherwise); deploy/README.md says how that was checked.
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
daemon=
cleanup() {
  if [[ -n $daemon ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
failed=0
fail() { echo "FAIL $*"; failed=1; }
ok() { echo "ok   $*"; }

# 1. The package.
if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1; then
  cat "$tmp/cpack.log"; echo "FAIL cpack -G DEB"; exit 1
fi
shopt -s nullglob
debs=("$tmp"/out/droidlab_*_amd64.deb)
[[ ${#debs[@]} -eq 1 ]] || { ls "$tmp/out"; echo "FAIL: not one droidlab_*_amd64.deb"; exit 1; }
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
[[ $(basename "$deb") == "droidlab_${version}_amd64.deb" ]] && ok "$(basename "$deb")" ||
  fail "file name $(basename "$deb") is not droidlab_${version}_amd64.deb"

# 2. Control fields, files, conffiles, maintainer scripts.
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libstdc++6 libsqlite3-0 libpq5 libzip4 libspdlog1.10 libfmt9 tzdata; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
[[ $(dpkg-deb -f "$deb" Recommends) == *adb* ]] || fail "Recommends lacks adb"
[[ $(dpkg-deb -f "$deb" Architecture) == amd64 ]] || fail "Architecture is not amd64"
ok "Depends: $depends"
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/droidlab ./lib/systemd/system/droidlab.service ./lib/systemd/system/adb.service \
    ./usr/lib/sysusers.d/droidlab.conf ./lib/udev/rules.d/60-droidlab-android.rules \
    ./etc/droidlab/droidlab.json ./usr/share/doc/droidlab/droidlab.example.json \
    ./usr/share/doc/droidlab/examples/prometheus/prometheus.yml \
    ./usr/share/doc/droidlab/examples/prometheus/droidlab.rules.yml \
    ./usr/share/doc/droidlab/examples/grafana/droidlab.json; do
  grep -qxF "$f" <<<"$contents" || fail "the package lacks $f"
done
ok "$(grep -vc '/$' <<<"$contents") files"
mkdir "$tmp/control"
dpkg-deb -e "$deb" "$tmp/control"
grep -qx /etc/droidlab/droidlab.json "$tmp/control/conffiles" || fail "droidlab.json is no conffile"
[[ -x $tmp/control/postinst ]] && sh -n "$tmp/control/postinst" || fail "postinst: not an executable sh script"
ok "conffiles, postinst"

# 3. apt resolves its dependencies (simulated: nothing is installed).
if out=$(apt-get install --simulate -o Debug::NoLocking=1 "$deb" 2>&1); then
  ok "apt-get install --simulate: $(grep -c '^Inst' <<<"$out") to install"
else
  printf '%s\n' "$out" | tail -n 15; fail "apt-get install --simulate $deb"
fi

# 4. Unpacked into a throwaway root.
root=$tmp/root
dpkg -x "$deb" "$root"
grep -q '^ExecStart=/usr/bin/droidlab serve --config /etc/droidlab/droidlab.json$' \
  "$root/lib/systemd/system/droidlab.service" || fail "the unit does not run /usr/bin/droidlab"
if command -v systemd-sysusers >/dev/null; then
  mkdir -p "$root/etc"
  echo 'plugdev:x:46:' >"$root/etc/group"
  if systemd-sysusers --root="$root" "$root/usr/lib/sysusers.d/droidlab.conf" >"$tmp/sysusers.log" 2>&1 &&
      grep -q '^droidlab:x:[0-9]*:[0-9]*:.*:/var/lib/droidlab:/usr/sbin/nologin$' "$root/etc/passwd" &&
      grep -q '^plugdev:x:46:droidlab$' "$root/etc/group"; then
    ok "systemd-sysusers --root: user droidlab, in plugdev"
  else
    cat "$tmp/sysusers.log" "$root/etc/passwd" "$root/etc/group" 2>/dev/null; fail "systemd-sysusers --root"
  fi
fi
droidlab=$root/usr/bin/droidlab
got=$("$droidlab" --version)
[[ $got == *"$version"* ]] && ok "droidlab --version: $got" || fail "droidlab --version says '$got', not $version"

mkdir -p "$tmp/state"
# No adb server is started (--adb-path ""); the one named is a port nothing listens on.
adb_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed "s|/var/lib/droidlab|$tmp/state|g" "$root/etc/droidlab/droidlab.json" >"$tmp/droidlab.json"
"$droidlab" serve --config "$tmp/droidlab.json" --listen 127.0.0.1:0 --adb-path "" \
  --adb-server "tcp:127.0.0.1:$adb_port" >"$tmp/serve.out" 2>"$tmp/serve.err" &
daemon=$!
port=
for _ in $(seq 100); do
  port=$(sed -nE 's|.*listening on http://127\.0\.0\.1:([0-9]+).*|\1|p' "$tmp/serve.out")
  [[ -n $port ]] && break
  kill -0 "$daemon" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $port ]]; then
  cat "$tmp/serve.out" "$tmp/serve.err"; fail "the packaged droidlab serve did not start"
elif health=$(curl -fsS "http://127.0.0.1:$port/api/v1/health") && [[ $health == *'"status"'* ]]; then
  ok "droidlab serve (packaged config) on port $port: GET /api/v1/health: $health"
  [[ -f $tmp/state/droidlab.db ]] || fail "no database where the packaged config puts it"
else
  cat "$tmp/serve.err"; fail "GET /api/v1/health"
fi
if [[ $failed -ne 0 ]]; then echo "deb_test: FAILED"; exit 1; fi
echo "deb_test: ok"
