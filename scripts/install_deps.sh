#!/usr/bin/env bash
# Installs the Debian packages shardplan builds and tests with, skipping what is present.
# Runs as root on Debian 12 (bookworm); elsewhere it prints what to install.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libcli11-dev nlohmann-json3-dev prometheus-cpp-dev libssl-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev
  python3 python3-grpcio python3-protobuf python3-matplotlib
  python3-venv python3-pip python3-setuptools python3-wheel
  libsqlite3-dev libpq-dev postgresql
  curl procps openssl
  prometheus python3-yaml
  coinor-libcbc-dev coinor-cbc
)

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install_deps: not root; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
