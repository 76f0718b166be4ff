#!/usr/bin/env bash
# Installs etcd (server and etcdctl) from Debian's packages when `etcd` is not on
# PATH, for the ObservatoryEtcd integration tests, which start real members.
# Idempotent: does nothing when etcd is already there.
set -euo pipefail

if command -v etcd >/dev/null 2>&1; then
    echo "etcd is installed: $(command -v etcd)"
    exit 0
fi

# Root runs apt-get directly; anyone else through sudo, when there is one.
run_as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "error: installing etcd needs root (or sudo): $*" >&2
        exit 1
    fi
}

export DEBIAN_FRONTEND=noninteractive
run_as_root apt-get update
run_as_root apt-get install -y --no-install-recommends etcd-server etcd-client

# Debian's package enables a system service; the tests start their own members
# on free ports, so a running system member would only take memory.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    run_as_root systemctl disable --now etcd >/dev/null 2>&1 || true
fi

command -v etcd >/dev/null 2>&1 || { echo "error: etcd is still not on PATH" >&2; exit 1; }
echo "etcd is installed: $(command -v etcd) ($(etcd --version | head -n 1))"
