#!/usr/bin/env bash
# Writes a throw-away PKI for TLS / mutual-TLS tests and trials into DIR (docs/security.md):
#   ca.pem ca.key                  the CA servers and clients trust
#   server.pem server.key          server cert from ca, SAN IP:127.0.0.1 and DNS:localhost
#   client.pem client.key          client cert from ca, CN=trainer-cert
#   other_ca.pem                   an unrelated CA
#   rogue_client.pem rogue_client.key  client cert from other_ca (mutual TLS must refuse it)
# EC P-256 keys, valid for 30 days. Needs the openssl command.
set -euo pipefail
dir=${1:?usage: make_test_certs.sh DIR}
mkdir -p "$dir"
cd "$dir"

ca() {  # ca NAME CN
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj "/CN=$2" -keyout "$1.key" -out "$1.pem" 2>/dev/null
}
leaf() {  # leaf NAME CN CA EXTENSIONS
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/CN=$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
  printf '%s\n' "$4" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days 30 \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

ca ca "shardplan test CA"
ca other_ca "unrelated test CA"
leaf server localhost ca "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth"
leaf client trainer-cert ca "extendedKeyUsage=clientAuth"
leaf rogue_client rogue other_ca "extendedKeyUsage=clientAuth"
chmod 600 ./*.key
