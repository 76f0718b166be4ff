#!/usr/bin/env bash
# Builds the DocC catalogs of the libraries users import, from symbol graphs,
# with the toolchain's own `docc`, and fails on any documentation warning.
# Output: .build/docs/<Module>/ (static HTML archives).
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(Observatory ObservatoryClient ObservatoryServer ObservatoryWire)
swift package dump-symbol-graph --minimum-access-level public > /dev/null
graphs=$(find .build -maxdepth 2 -type d -name symbolgraph | head -n 1)
[ -n "$graphs" ] || { echo "error: no symbol graphs were written" >&2; exit 1; }

mkdir -p .build/docs
status=0
for module in "${modules[@]}"; do
    work=$(mktemp -d)
    cp "$graphs/$module.symbols.json" "$work/"
    cp "$graphs/$module"@*.symbols.json "$work/" 2>/dev/null || true
    if ! docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$work" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.observatory.$module" \
        --output-path ".build/docs/$module" \
        --warnings-as-errors > "$work/log" 2>&1; then
        echo "error: the documentation of $module does not build without warnings:" >&2
        cat "$work/log" >&2
        status=1
    else
        echo "docs: $module built without warnings"
    fi
    rm -rf "$work"
done
exit $status
