#!/usr/bin/env bash
# The wire-level conformance suite against cluster nodes (docs/protocol.md, "Cluster mode"):
# starts one etcd member on free loopback ports in a temporary directory, runs
# `swift test --no-parallel --filter ObservatoryConformanceTests` with
# OBSERVATORY_CONFORMANCE_ETCD pointing at it (every test's server is then a cluster node
# on a prefix of its own), prints the summary, and stops the member by its pid. Fails when
# a test fails, when etcd does not start, or when the run passes its time budget
# (CONFORMANCE_CLUSTER_TIMEOUT seconds, 1500 by default: the build comes first).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v etcd >/dev/null 2>&1 || { echo "error: etcd is not on PATH (run .ci/install-etcd.sh)" >&2; exit 1; }

work=$(mktemp -d)
etcd_pid=""
cleanup() {
    if [ -n "$etcd_pid" ]; then
        kill "$etcd_pid" 2>/dev/null || true
        wait "$etcd_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Two free loopback ports: bound by the kernel (port 0) at once, then released.
read -r client_port peer_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))
for s in sockets: s.close()')
client_url="http://127.0.0.1:$client_port"
peer_url="http://127.0.0.1:$peer_port"

etcd --name conformance --data-dir "$work/member.etcd" \
    --listen-client-urls "$client_url" --advertise-client-urls "$client_url" \
    --listen-peer-urls "$peer_url" --initial-advertise-peer-urls "$peer_url" \
    --initial-cluster "conformance=$peer_url" --initial-cluster-state new \
    >"$work/etcd.log" 2>&1 &
etcd_pid=$!

healthy=no
for _ in $(seq 1 200); do
    if python3 -c '
import sys, urllib.request
sys.exit(0 if b"\"health\":\"true\"" in urllib.request.urlopen(sys.argv[1] + "/health", timeout=1).read() else 1)' \
        "$client_url" 2>/dev/null; then
        healthy=yes
        break
    fi
    kill -0 "$etcd_pid" 2>/dev/null || break
    sleep 0.1 # polling etcd's health, bounded by the loop (20 s)
done
if [ "$healthy" != yes ]; then
    echo "error: etcd did not become healthy on $client_url; its log ends:" >&2
    tail -n 20 "$work/etcd.log" >&2
    exit 1
fi
echo "etcd member on $client_url (pid $etcd_pid)"

status=0
OBSERVATORY_CONFORMANCE_ETCD="$client_url" timeout --kill-after=30 "${CONFORMANCE_CLUSTER_TIMEOUT:-1500}" \
    swift test --no-parallel --filter ObservatoryConformanceTests >"$work/test.log" 2>&1 || status=$?

# The whole log where CONFORMANCE_CLUSTER_LOG says, for a closer look; then the summary:
# the failed expectations and tests (each line once) and the totals.
if [ -n "${CONFORMANCE_CLUSTER_LOG:-}" ]; then cp "$work/test.log" "$CONFORMANCE_CLUSTER_LOG"; fi
grep -E '✘|error:|Test run with|Executed [0-9]+ test' "$work/test.log" | awk '!seen[$0]++' | tail -n 80 || true
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    echo "error: the conformance suite against a cluster node did not finish in time" >&2
fi
if [ "$status" != 0 ]; then
    echo "error: the conformance suite failed against a cluster node (status $status)" >&2
    exit "$status"
fi
echo "conformance suite against a cluster node: passed"
