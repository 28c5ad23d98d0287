#!/bin/sh
# Prepares a fresh checkout for building: installs missing build dependencies
# (with apt-get when run as root; otherwise prints the exact command), then runs
# autoreconf and configure. Arguments are passed on to configure.
set -eu
cd "$(dirname "$0")"

missing=""
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need_header() {
    for dir in /usr/include /usr/local/include /usr/include/x86_64-linux-gnu /usr/include/aarch64-linux-gnu; do
        [ -f "$dir/$1" ] && return 0
    done
    missing="$missing $2"
}
need_cmd autoconf autoconf
need_cmd automake automake
need_cmd libtoolize libtool
need_cmd pkg-config pkg-config
need_cmd gcc gcc
need_cmd make make
need_cmd python3 python3
need_cmd zstd zstd
need_cmd xmllint libxml2-utils
need_header zstd.h libzstd-dev
need_header CUnit/CUnit.h libcunit1-dev
need_header libunwind.h libunwind-dev
need_header jansson.h libjansson-dev
need_cmd protoc-c protobuf-c-compiler
need_header protobuf-c/protobuf-c.h libprotobuf-c-dev
need_header zlib.h zlib1g-dev

if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "bootstrap: installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing
    else
        echo "bootstrap: missing build dependencies. Install them with:" >&2
        echo "  sudo apt-get install$missing" >&2
        exit 1
    fi
fi

autoreconf -fi
./configure "$@"
