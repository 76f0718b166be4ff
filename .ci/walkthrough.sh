#!/usr/bin/env bash
# The README's walkthrough ("A shared sky in three terminals") run as a script, so the
# README cannot drift from what the programs print: builds observatoryd, observatory and
# SkyWatcher, starts the daemon on a free port with a temporary data directory, runs
# SkyWatcher and the CLI commands the README shows, and checks the lines the README shows;
# stops the daemon (SkyWatcher must say so once), restarts it on the same port (it must
# load the key back, SkyWatcher must say it is back, `get` must still answer "red"),
# deletes the key, and finally restarts it twice with `--fsync none` (the mirror resets).
# Every process is stopped by its pid; every wait is bounded (WALKTHROUGH_WAIT seconds,
# 30 by default). Exit status 0 when every line matched.
set -euo pipefail
cd "$(dirname "$0")/.."

wait_seconds=${WALKTHROUGH_WAIT:-30}
swift build --product observatoryd
swift build --product observatory
swift build --product SkyWatcher
bin=$(swift build --show-bin-path)

work=$(mktemp -d)
daemon=""
watcher=""
watch=""
cleanup() {
    for pid in $watch $watcher $daemon; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "walkthrough: FAILED: $*" >&2
    for log in "$work"/*.log; do
        echo "--- $log" >&2
        cat "$log" >&2
    done
    exit 1
}

# Waits until FILE has a line containing TEXT (a fixed string), polling, bounded in time.
wait_for_line() {
    local file=$1 text=$2
    for _ in $(seq 1 $((wait_seconds * 10))); do
        grep -qF -- "$text" "$file" 2>/dev/null && return 0
        sleep 0.1 # polling the program's output for the line, bounded by the loop
    done
    fail "no line '$text' in $file within $wait_seconds s"
}

# Runs the CLI and checks that it printed exactly EXPECTED on standard output.
expect_cli() {
    local expected=$1
    shift
    local printed
    printed=$("$bin/observatory" "$@" 2>"$work/cli-errors.log") || fail "observatory $* exited with $?"
    [ "$printed" = "$expected" ] || fail "observatory $* printed '$printed', the README shows '$expected'"
    echo "ok: observatory $* -> $printed"
}

# Starts the daemon in the work directory (its ./data), with extra flags; waits for its listen line.
start_daemon() {
    local log=$1
    shift
    (cd "$work" && exec "$bin/observatoryd" "$@") >"$work/$log" 2>&1 &
    daemon=$!
    wait_for_line "$work/$log" "listening on 127.0.0.1:"
}

# Stops the daemon as Ctrl-C does (SIGTERM: a background job ignores SIGINT), and waits for it.
stop_daemon() {
    kill -TERM "$daemon"
    wait "$daemon" || fail "observatoryd exited with $? on SIGTERM"
    daemon=""
}

# The lines of SkyWatcher's output that start with "connection:" from line FROM on.
connection_lines_from() {
    tail -n +"$1" "$work/skywatcher.log" | grep -c '^connection:' || true
}

echo "== terminal 1: the daemon (a free port; the README uses 7070)"
start_daemon daemon-1.log --port 0
port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$work/daemon-1.log" | head -1 | cut -d: -f2)
# The daemon's address for every program, as the README's configuration section says.
export OBSERVATORY_PORT=$port

echo "== terminal 2: SkyWatcher"
"$bin/SkyWatcher" >"$work/skywatcher.log" 2>&1 &
watcher=$!
wait_for_line "$work/skywatcher.log" "connection: connected"
expected_start='sky.color is blue until the server says otherwise; change it with:
    swift run observatory set sky.color red
connection: connecting
connection: connected'
[ "$(head -4 "$work/skywatcher.log")" = "$expected_start" ] || fail "SkyWatcher did not start as the README shows"
echo "ok: SkyWatcher started as the README shows"

echo "== terminal 3: the CLI"
expect_cli 'sky.color = "red" (v1)' set sky.color red --name alice
wait_for_line "$work/skywatcher.log" "sky.color: blue → red by alice"
expect_cli '"red"' get sky.color
expect_cli 'sky.color (v1)' list 'sky.*'
# `history` starts each line with the local time of the change; the rest is as `watch` prints it.
history_before=$("$bin/observatory" history sky.color 2>"$work/cli-errors.log") || fail "observatory history exited with $?"
case "$history_before" in
*' sky.color (none) → "red" by alice (v1)') echo "ok: observatory history sky.color -> $history_before" ;;
*) fail "observatory history sky.color printed '$history_before'" ;;
esac
"$bin/observatory" watch 'sky.*' >"$work/watch.log" 2>&1 &
watch=$!
wait_for_line "$work/watch.log" "watching sky.* on 127.0.0.1:$port; Ctrl-C stops"
kill "$watch"
wait "$watch" 2>/dev/null || true
watch=""

echo "== stop the daemon: SkyWatcher says so once, then waits quietly"
lines_before=$(($(wc -l <"$work/skywatcher.log") + 1))
stop_daemon
wait_for_line "$work/skywatcher.log" \
    "connection: disconnected (the server shut down); retrying quietly until the server is back"

echo "== start it again: it loads the key back, SkyWatcher is back, the value is still red"
start_daemon daemon-2.log
wait_for_line "$work/daemon-2.log" "loaded 1 key at revision 1"
wait_for_line "$work/skywatcher.log" "connection: connected, back after"
[ "$(connection_lines_from "$lines_before")" = 2 ] ||
    fail "SkyWatcher said more than 'disconnected' and 'back' while the daemon was away"
expect_cli '"red"' get sky.color
expect_cli "$history_before" history sky.color
expect_cli 'sky.color deleted (v2)' delete sky.color
wait_for_line "$work/skywatcher.log" "sky.color: red → blue by observatory-cli"

echo "== --fsync none: the daemon forgets on restart, and the mirror resets"
stop_daemon
start_daemon daemon-3.log --fsync none
wait_for_line "$work/skywatcher.log" "connection: reset ("
expect_cli 'sky.color = "red" (v1)' set sky.color red --name alice
wait_for_line "$work/skywatcher.log" "sky.color: blue → red by alice"
lines_before=$(($(wc -l <"$work/skywatcher.log") + 1))
stop_daemon
start_daemon daemon-4.log --fsync none
wait_for_line "$work/skywatcher.log" "connection: connected"
reset_lines=$(tail -n +"$lines_before" "$work/skywatcher.log")
echo "$reset_lines" | grep -q '^sky.color: red → blue by reset' || fail "the mirror did not go back to blue by the reset"
mirror_line=$(echo "$reset_lines" | grep -n '^sky.color: red → blue' | cut -d: -f1)
reset_line=$(echo "$reset_lines" | grep -n '^connection: reset' | cut -d: -f1)
[ -n "$reset_line" ] && [ "$mirror_line" -lt "$reset_line" ] ||
    fail "the README shows the mirror's reset line before 'connection: reset'"
echo "ok: after a --fsync none restart SkyWatcher printed:"
echo "$reset_lines" | sed 's/^/    /'
stop_daemon
echo "walkthrough: passed"
