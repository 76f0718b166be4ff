#!/usr/bin/env bash
# Runs observatoryd and redis-server side by side under the same C client
# (../shared/tools/loadgen), three repetitions of five scenarios, alternating
# the servers on fresh processes, and prints the medians and ratios
# (summarize.py). Not part of `swift test`: it takes about five minutes and
# wants a quiet machine.
#
#   cc -O2 -o /tmp/loadgen ../shared/tools/loadgen/loadgen.c
#   swift build -c release
#   bash Tests/Performance/compare_with_redis.sh .build/release/observatoryd /tmp/compare.jsonl
#
# Needs redis-server on PATH (apt-get install -y redis-server) and loadgen at
# $LOADGEN (default /tmp/loadgen); REPETITIONS (3) and SECONDS_EACH (5) shorten
# a trial run. Both servers listen on free loopback ports
# and are stopped by their pids.
set -euo pipefail
daemon=${1:?usage: compare_with_redis.sh OBSERVATORYD RESULTS.jsonl}
results=${2:?usage: compare_with_redis.sh OBSERVATORYD RESULTS.jsonl}
loadgen=${LOADGEN:-/tmp/loadgen}
command -v redis-server >/dev/null || { echo "error: redis-server is not on PATH (apt-get install -y redis-server)" >&2; exit 2; }
[ -x "$loadgen" ] || { echo "error: no loadgen at $loadgen (cc -O2 -o $loadgen ../shared/tools/loadgen/loadgen.c)" >&2; exit 2; }
ulimit -n 20000
: > "$results"
data=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$data"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# run PROTO LABEL ARGS...: starts the server, waits until it answers, measures, stops it.
run() {
    local proto=$1 label=$2; shift 2
    local port; port=$(free_port)
    if [ "$proto" = observatory ]; then
        rm -rf "$data/observatory"; mkdir -p "$data/observatory"
        "$daemon" --port "$port" --fsync none --data "$data/observatory" --log-level error >/dev/null 2>&1 &
    else
        redis-server --port "$port" --save "" --appendonly no --maxclients 11000 >/dev/null 2>&1 &
    fi
    server=$!
    for _ in $(seq 100); do
        "$loadgen" --proto "$proto" --port "$port" --scenario writes --conns 1 --max-ops 1 --seconds 1 --quiet \
            >/dev/null 2>&1 && break
        sleep 0.1
    done
    "$loadgen" --proto "$proto" --port "$port" --server-pid "$server" --quiet --label "$label" --seconds "${SECONDS_EACH:-5}" "$@" \
        | sed -n 's/^RESULT //p' >> "$results"
    kill "$server"; wait "$server" 2>/dev/null || true
    server=""
}

scenarios=(
    "fanout100 --scenario fanout --subs 100"
    "fanout1000 --scenario fanout --subs 1000"
    "writes50 --scenario writes --conns 50"
    "writes1 --scenario writes --conns 1"
    "paced --scenario rate --subs 100 --rate 10000"
)
for repetition in $(seq "${REPETITIONS:-3}"); do
    for scenario in "${scenarios[@]}"; do
        read -r name arguments <<< "$scenario"
        order=(observatory redis)
        [ $((repetition % 2)) = 0 ] && order=(redis observatory)
        for proto in "${order[@]}"; do
            # shellcheck disable=SC2086
            label=redis-$name
            [ "$proto" = observatory ] && label=obs-$name
            run "$proto" "$label" $arguments
        done
    done
done
python3 "$(dirname "$0")/summarize.py" "$results"
