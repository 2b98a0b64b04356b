#!/usr/bin/env bash
# The .deb installed the way an operator installs it — `apt-get install ./droidlab_….deb` — into a
# fresh Debian 12 root made by mmdebstrap, then run there as user droidlab with the packaged
# configuration. Slower than tests/deploy/deb_test.sh (about 2 minutes: mmdebstrap fetches a
# minimal Debian from deb.debian.org) and needs root and the network, so it is not in ctest; run
# it before a release:
#   tests/deploy/deb_root_test.sh BUILD_DIR        (as root; apt-get install mmdebstrap)
# Checks: apt resolves and installs it (adb with it, as a Recommends), postinst made the droidlab
# user in plugdev without systemd (the root has none: the useradd path) and gave /etc/droidlab
# to its group; `droidlab --version`; `droidlab serve --config /etc/droidlab/droidlab.json`
# (a private port, no adb server) as droidlab answers GET /api/v1/health and makes its database
# in /var/lib/droidlab; `apt-get purge` removes the package and its conffile.
set -euo pipefail
build=$(cd "$1" && pwd)
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (chroot)"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: no mmdebstrap (apt-get install mmdebstrap)"; exit 77; }
tmp=$(mktemp -d /var/tmp/droidlab-deb-root.XXXXXX)
daemon=
cleanup() {
  if [[ -n $daemon ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
failed=0
fail() { echo "FAIL $*"; failed=1; }
ok() { echo "ok   $*"; }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; echo "FAIL cpack"; exit 1; }
deb=$(ls "$tmp"/out/droidlab_*_amd64.deb)
root=$tmp/root
mirror=http://deb.debian.org/debian
if ! mmdebstrap --mode=root --variant=apt --skip=cleanup/apt \
    --customize-hook="copy-in $deb /tmp" \
    --customize-hook='chroot "$1" apt-get install -y -o APT::Install-Recommends=true /tmp/'"$(basename "$deb")" \
    bookworm "$root" "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main" >"$tmp/mmdebstrap.log" 2>&1; then
  tail -n 40 "$tmp/mmdebstrap.log"; echo "FAIL mmdebstrap + apt-get install ./$(basename "$deb")"; exit 1
fi
ok "apt-get install ./$(basename "$deb") in a fresh Debian 12 root"
in_root() { chroot "$root" "$@"; }
in_root dpkg-query -W -f='${Status}\n' droidlab | grep -qx 'install ok installed' || fail "droidlab not installed"
in_root dpkg-query -W -f='${Status}\n' adb | grep -qx 'install ok installed' && ok "adb installed (Recommends)" ||
  fail "adb not installed with it"
in_root getent passwd droidlab | grep -q ':/var/lib/droidlab:/usr/sbin/nologin$' || fail "no droidlab user"
in_root id -nG droidlab | grep -qw plugdev && ok "user droidlab, in plugdev" || fail "droidlab not in plugdev"
[[ $(in_root stat -c '%a %U %G' /etc/droidlab /etc/droidlab/droidlab.json | tr '\n' ' ') == \
   "750 root droidlab 640 root droidlab " ]] && ok "/etc/droidlab: 0750, droidlab.json 0640, group droidlab" ||
  fail "/etc/droidlab: $(in_root stat -c '%n %a %U %G' /etc/droidlab /etc/droidlab/droidlab.json)"
ok "$(in_root droidlab --version)"

# What the unit's StateDirectory= would make.
install -d -m 750 "$root/var/lib/droidlab" && in_root chown droidlab:droidlab /var/lib/droidlab
(cd "$root" && exec chroot --userspec=droidlab:droidlab --groups=plugdev "$root" \
  env HOME=/var/lib/droidlab droidlab serve --config /etc/droidlab/droidlab.json \
  --listen 127.0.0.1:0 --adb-path "" >"$tmp/serve.out" 2>"$tmp/serve.err") &
daemon=$!
port=
for _ in $(seq 100); do
  port=$(sed -nE 's|.*listening on http://127\.0\.0\.1:([0-9]+).*|\1|p' "$tmp/serve.out")
  [[ -n $port ]] && break
  sleep 0.1
done
if [[ -n $port ]] && health=$(curl -fsS "http://127.0.0.1:$port/api/v1/health"); then
  ok "droidlab serve as droidlab, packaged config: $health"
  [[ -f $root/var/lib/droidlab/droidlab.db ]] || fail "no /var/lib/droidlab/droidlab.db"
else
  cat "$tmp/serve.out" "$tmp/serve.err"; fail "droidlab serve in the root"
fi
kill "$daemon"; wait "$daemon" 2>/dev/null || true; daemon=

in_root apt-get purge -y droidlab >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; fail "apt-get purge"; }
[[ ! -e $root/usr/bin/droidlab && ! -e $root/etc/droidlab/droidlab.json ]] && ok "apt-get purge droidlab" ||
  fail "purge left files"
if [[ $failed -ne 0 ]]; then echo "deb_root_test: FAILED"; exit 1; fi
echo "deb_root_test: ok"
