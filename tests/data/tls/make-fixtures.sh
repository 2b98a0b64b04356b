#!/bin/sh
# The TLS fixtures of the webhook tests (tests/api/webhook_tls_test.cpp), made with Debian's
# openssl: a test CA, a receiver's certificate for 127.0.0.1 and localhost, and one for another
# name (elsewhere.example), both signed by the CA, P-256 keys, valid for 100 years. The CA's key
# is thrown away: nothing else can be signed by it. Test keys only; never trust ca.pem elsewhere.
set -eu
cd "$(dirname "$0")"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
  -out ca.pem -days 36500 -subj "/CN=droidlab test CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
make_cert() {
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" \
    -out "$1.csr" -subj "/CN=$1"
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$2" \
    > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" \
    -days 36500 -extfile "$1.ext"
  rm "$1.csr" "$1.ext"
}
make_cert receiver "IP:127.0.0.1,DNS:localhost"
make_cert elsewhere "DNS:elsewhere.example"
rm -f ca.key ca.srl
