#!/usr/bin/env bash
# Instructions per request in user space, counted by callgrind: the daemon runs
# under valgrind twice, once for a short load and once for a long one, and the
# difference of the two totals is divided by the difference of the work done,
# so start-up and shutdown cancel out. Counts are the same on every run, busy
# machine or not (only the time a run takes changes).
#
#   bash Tests/Performance/callgrind_per_request.sh set      .build/release/observatoryd
#   bash Tests/Performance/callgrind_per_request.sh delivery .build/release/observatoryd
#   bash Tests/Performance/callgrind_per_request.sh batch    .build/release/observatoryd
#
# set:      loadgen, 50 connections, 25,000 against 5,000 sets (a request per connection at a time);
# delivery: loadgen, publishes to 100 observers, 2,500 against 500 (per delivery);
# batch:    batch_driver.py, one connection 64 requests ahead, 24,000 against 4,000 single
#           sets and 2,400 against 400 batches of 10 sets (per key, both ways).
# Needs valgrind, python3, and loadgen at $LOADGEN (default /tmp/loadgen:
# cc -O2 -o /tmp/loadgen ../shared/tools/loadgen/loadgen.c). The daemon runs with
# `--fsync $FSYNC` (default none: storage off; everysec or always to count a
# durable request) on a free loopback port and is stopped by its pid.
set -euo pipefail
kind=${1:?usage: callgrind_per_request.sh set|delivery|batch OBSERVATORYD}
daemon=${2:?usage: callgrind_per_request.sh set|delivery|batch OBSERVATORYD}
loadgen=${LOADGEN:-/tmp/loadgen}
fsync=${FSYNC:-none}
case "$fsync" in none | everysec | always) ;; *) echo "error: FSYNC must be none, everysec or always, not '$fsync'" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
command -v valgrind >/dev/null || { echo "error: valgrind is not on PATH (apt-get install -y valgrind)" >&2; exit 2; }

# total DRIVE N: runs the daemon under callgrind while DRIVE sends N; prints "instructions work".
total() {
    local drive=$1 n=$2
    local port; port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p "$work/data-$n"
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind-$n.out" \
        "$daemon" --port "$port" --fsync "$fsync" --data "$work/data-$n" > "$work/log-$n" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do grep -q "listening" "$work/log-$n" 2>/dev/null && break; sleep 0.2; done
    local done_work
    done_work=$($drive "$port" "$n")
    kill -TERM "$pid"; wait "$pid" || true; pid=""
    echo "$(grep -m1 "Collected :" "$work/log-$n" | awk '{print $4}') $done_work"
}
loadgen_sets() {
    "$loadgen" --proto observatory --scenario writes --conns 50 --port "$1" --max-ops "$2" --seconds 600 --quiet \
        | grep -o '"ops":[0-9]*' | cut -d: -f2
}
loadgen_publishes() {
    local publishes
    publishes=$("$loadgen" --proto observatory --scenario fanout --subs 100 --port "$1" --max-ops "$2" --seconds 600 \
        --quiet | grep -o '"publishes":[0-9]*' | cut -d: -f2)
    echo $((publishes * 100))
}
single_sets() { python3 "$here/batch_driver.py" "$1" single "$2"; echo $(($2)); }
batches_of_ten() { python3 "$here/batch_driver.py" "$1" batch "$2"; echo $(($2 * 10)); }

per() {
    local drive=$1 small=$2 large=$3 label=$4
    read -r a a_work < <(total "$drive" "$small")
    read -r b b_work < <(total "$drive" "$large")
    echo "$label: $(((b - a) / (b_work - a_work))) instructions"
}
case "$kind" in
    set) per loadgen_sets 5000 25000 "per set" ;;
    delivery) per loadgen_publishes 500 2500 "per delivery" ;;
    batch)
        per single_sets 4000 24000 "per key, single sets"
        per batches_of_ten 400 2400 "per key, in batches of 10"
        ;;
    *) echo "error: unknown kind '$kind' (set, delivery or batch)" >&2; exit 2 ;;
esac
