#!/usr/bin/env bash
# Builds the libFuzzer targets of everything that reads outside bytes and runs
# each for a number of inputs (default 10,000,000), starting from the seed
# corpus in Fuzz/corpus. Not part of `swift test`: fuzzing takes minutes.
#
#   bash Fuzz/run.sh                 # both targets, 10^7 inputs each
#   bash Fuzz/run.sh json 100000     # one target, fewer inputs
#
# Each target is compiled with the ObservatoryJSON and ObservatoryWire sources
# (without the file that imports the first into the second) into one program
# (`swiftc -sanitize=fuzzer,address`), so a crash, an out-of-bounds access, a
# leak or a failed invariant stops the run; libFuzzer then writes the input
# that caused it to .build-fuzz/crash-*. New inputs that reach new code are
# kept in .build-fuzz/corpus-<target>, not in the repository's seeds.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("${1:-frames json}")
runs=${2:-10000000}
build=.build-fuzz
mkdir -p "$build"
wire_sources=$(find Sources/ObservatoryJSON Sources/ObservatoryWire -name '*.swift' ! -name JSONModule.swift | sort)

status=0
for target in ${targets[@]}; do
    case "$target" in
    frames) entry=Fuzz/FuzzFrames.swift ;;
    json) entry=Fuzz/FuzzJSON.swift ;;
    *) echo "error: unknown target $target (frames or json)" >&2; exit 2 ;;
    esac
    echo "== building the $target target"
    # shellcheck disable=SC2086
    if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name ObservatoryWireFuzz -package-name Observatory \
        $wire_sources "$entry" -o "$build/fuzz-$target" > "$build/build-$target.log" 2>&1; then
        cat "$build/build-$target.log" >&2
        exit 1
    fi
    corpus="$build/corpus-$target"
    mkdir -p "$corpus"
    echo "== running $target for $runs inputs"
    if "$build/fuzz-$target" -runs="$runs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/" "$corpus" "Fuzz/corpus/$target" \
        > "$build/fuzz-$target.log" 2>&1; then
        grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done)' "$build/fuzz-$target.log" || true
        echo "fuzz: $target ran $runs inputs with no crash"
    else
        tail -n 40 "$build/fuzz-$target.log" >&2
        echo "error: fuzz target $target found a failing input (see $build/)" >&2
        status=1
    fi
done
exit $status
