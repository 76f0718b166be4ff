#!/usr/bin/env bash
# The web face in a real browser: installs Chromium and Python's websockets when
# missing, builds observatoryd and observatory, and runs Tests/Browser/live_view_test.py
# (the live page follows CLI changes, survives a daemon restart, and is screenshotted to
# docs/live-view.png); then parses /metrics with Prometheus's own parser when
# prometheus_client is installed (both are installed when missing). Exit status 77 means
# skipped, never passed.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq chromium >/dev/null
    fi
fi
for module in websockets prometheus_client; do
    if ! python3 -c "import $module" 2>/dev/null; then
        pip install -q "$module" 2>/dev/null || pip install -q --break-system-packages "$module" || true
    fi
done

swift build --product observatoryd
swift build --product observatory
build_dir=$(swift build --show-bin-path)

status=0
python3 Tests/Browser/live_view_test.py "$build_dir" || status=$?
if [ "$status" = 77 ]; then
    echo "browser test: SKIPPED (not passed)"
    exit 77
fi
[ "$status" = 0 ] || exit "$status"

# /metrics through prometheus_client's parser, against a daemon of our own, stopped by pid.
log=$(mktemp)
"$build_dir/observatoryd" --port 0 --fsync none >"$log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true; rm -f "$log"' EXIT
port=""
for _ in $(seq 1 300); do
    port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$log" | cut -d: -f2 || true)
    [ -n "$port" ] && break
    sleep 0.1 # polling the log for the port line, bounded by the loop
done
[ -n "$port" ] || { echo "observatoryd did not start" >&2; exit 1; }
metrics_status=0
python3 Tests/Metrics/check_metrics.py "$port" || metrics_status=$?
kill "$daemon"
wait "$daemon" 2>/dev/null || true
if [ "$metrics_status" = 77 ]; then echo "metrics check: SKIPPED (not passed)"; exit 77; fi
exit "$metrics_status"
