#!/usr/bin/env bash
# Rebuilds the APK fixtures of this folder from src/ with the tools Debian 12 packages: aapt
# (Android 10's, 1:10.0.0+r36), aapt2 (2.19) and the framework resources of
# android-framework-res, then takes each binary AndroidManifest.xml (and one res/xml file) out
# with unzip for the parser tests. Not run by the tests: its output is committed, so the tests
# need neither tool. apt-get install aapt android-framework-res unzip apksigner openssl
set -euo pipefail
cd "$(dirname "$0")"
fw=/usr/share/android-framework-res/framework-res.apk
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# aapt takes the manifest only under its own name.
cp src/app.xml "$work"/AndroidManifest.xml
aapt package -f -M "$work"/AndroidManifest.xml -I "$fw" -F app_aapt.apk
aapt2 link --manifest src/app.xml -I "$fw" -o app_aapt2.apk
aapt2 link --manifest src/next.xml -I "$fw" -o next_aapt2.apk
aapt2 link --manifest src/major.xml -I "$fw" -o major_aapt2.apk
aapt2 link --manifest src/split.xml -I "$fw" -o split_aapt2.apk
aapt2 compile src/res/values/strings.xml -o "$work"
aapt2 link --manifest src/preview.xml -I "$fw" -o preview_aapt2.apk "$work"/values_strings.arsc.flat
aapt2 compile src/res/xml/prefs.xml -o "$work"
aapt2 link --manifest src/app.xml -I "$fw" -o prefs_aapt2.apk "$work"/xml_prefs.xml.flat

for apk in app_aapt app_aapt2 major_aapt2 split_aapt2 preview_aapt2; do
  unzip -p "$apk.apk" AndroidManifest.xml > "$apk.manifest.bin"
done
unzip -p prefs_aapt2.apk res/xml/prefs.xml > prefs_aapt2.xml.bin

# Split APKs that do not belong with app_aapt2.apk (another package, another versionCode) and a
# feature split that does: the build library's and devsim's split checks.
aapt2 link --manifest src/split_other_package.xml -I "$fw" -o split_other_package_aapt2.apk
aapt2 link --manifest src/split_other_version.xml -I "$fw" -o split_other_version_aapt2.apk
aapt2 link --manifest src/split_feature.xml -I "$fw" -o split_feature_aapt2.apk

# A dex metadata file (.dm): a zip holding primary.prof, an ART profile of format 010
# (art/libprofile/profile/profile_compilation_info.cc: magic "pro\0", version "010\0", the
# number of dex files (u8), the uncompressed and compressed sizes of the zlib body (u32 LE each),
# then the body) with no dex file in it: as small as a profile gets. zip -X: no extra fields.
python3 - "$work/primary.prof" <<'PY'
import struct, sys, zlib
body = zlib.compress(b"")
with open(sys.argv[1], "wb") as f:
    f.write(b"pro\0" + b"010\0" + struct.pack("<BII", 0, 0, len(body)) + body)
PY
rm -f app_aapt2.dm
(cd "$work" && TZ=UTC touch -t 202601010000 primary.prof && zip -X -q "$OLDPWD/app_aapt2.dm" primary.prof)

# Signed copies (apksigner 0.9, Debian's package of Android's apksigner). The test keys are kept
# (testkey.*, otherkey.*: RSA 2048, self-signed, made once by the lines below when missing), so
# that the certificates — and the hashes dumpsys prints for them — stay the same across runs.
for key in testkey otherkey; do
  if [[ ! -f $key.pk8 ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj "/CN=droidlab $key" \
      -keyout "$work/$key.pem" -outform DER -out "$key.x509.der"
    openssl pkcs8 -topk8 -nocrypt -in "$work/$key.pem" -outform DER -out "$key.pk8"
  fi
done
aapt2 link --manifest src/app43.xml -I "$fw" -o "$work"/app43.apk
sign() {  # sign KEY IN OUT apksigner-flags...
  local key=$1 in=$2 out=$3
  shift 3
  apksigner sign --key "$key.pk8" --cert "$key.x509.der" --in "$in" --out "$out" "$@"
  rm -f "$out.idsig"
}
sign testkey app_aapt2.apk signed_v1.apk --v1-signing-enabled true --v2-signing-enabled false \
  --v3-signing-enabled false
sign testkey app_aapt2.apk signed_v1v2.apk --v1-signing-enabled true --v2-signing-enabled true \
  --v3-signing-enabled false
sign testkey app_aapt2.apk signed_v2v3.apk --v1-signing-enabled false --v2-signing-enabled true \
  --v3-signing-enabled true
sign otherkey app_aapt2.apk otherkey_v2v3.apk --v1-signing-enabled false \
  --v2-signing-enabled true --v3-signing-enabled true
sign testkey "$work"/app43.apk signed43_v2v3.apk --v1-signing-enabled false \
  --v2-signing-enabled true --v3-signing-enabled true
# What `dumpsys package` prints for each certificate (Signature.hashCode(): Arrays.hashCode of
# its DER bytes), computed by Java itself rather than by the code under test.
for key in testkey otherkey; do
  printf 'System.out.println(Integer.toHexString(java.util.Arrays.hashCode(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("%s.x509.der")))));\n/exit\n' "$key" \
    | jshell -q - > "$key.hashcode.txt"
done
