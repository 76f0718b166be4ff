#!/usr/bin/env bash
# Compiles every Swift snippet of README.md, docs/*.md and the DocC catalogs (Sources/*/*.docc),
# so the docs show code that builds.
#
# The rules a doc writer follows:
# - A block fenced ```swift must compile, without warnings. Anything that cannot compile here takes
#   another fence: ```sh for shell commands, ```text for output and for Swift that cannot be built on
#   Linux (SwiftUI views: SwiftUI does not exist there), ```json for JSON.
# - A block with `import` lines of its own is a whole program: it is compiled exactly as written,
#   with the modules it imports and nothing else (so a program that imports only `Observatory` and
#   `ObservatoryClient` proves that those two are all a client program needs).
# - A block that imports PackageDescription is a package manifest: it is evaluated as SwiftPM
#   evaluates a manifest (`swift package dump-package`); its dependencies are not fetched.
# - A block without imports is a fragment: it is compiled as top-level code with Foundation,
#   `Observatory` and `ObservatoryClient` imported and the names a reader has from the text around it
#   (`client`, `observer`, `dog`, `received`, ...) in scope. Those names are declared in
#   Examples/SnippetContext; add one there when a new fragment needs it. A name the fragment declares
#   itself hides the context's. A fragment of a module's DocC catalog imports that module as well.
#
# How: each block becomes the main.swift of its own executable target in a generated package,
# .build-snippets/ (ignored by git), that depends on this package by path, so the top-level code of
# different blocks never collides; one `swift build` builds them all. A `#sourceLocation` line maps
# the generated file back to the doc, so a block that does not compile fails the run with the doc's
# file and line (a compiler crash, which names no line, with the block's first line). Files are
# only rewritten when they change, so a second run builds incrementally.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build-snippets
mkdir -p "$out"

python3 - "$out" <<'PY'
import glob
import os
import re
import shutil
import sys

out = sys.argv[1]
docs = ["README.md"] + sorted(glob.glob("docs/*.md")) + sorted(glob.glob("Sources/*/*.docc/**/*.md", recursive=True))

package_source = open("Package.swift", encoding="utf-8").read()
library_products = set(re.findall(r'\.library\(\s*name:\s*"([^"]+)"', package_source))
package_identity = os.path.basename(os.getcwd()).lower()

opening = re.compile(r"^(\s*)(`{3,}|~{3,})\s*swift\s*$")
import_line = re.compile(r"^(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)")


def blocks(path):
    """Yields (first line number, text) of each ```swift block of a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    index = 0
    while index < len(lines):
        match = opening.match(lines[index])
        index += 1
        if not match:
            continue
        indent, fence = match.group(1), match.group(2)
        closing = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        start, body = index + 1, []
        while index < len(lines) and not closing.match(lines[index]):
            line = lines[index]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            index += 1
        if index == len(lines):
            sys.exit(f"{path}:{start - 1}: error: this ```swift block is never closed")
        index += 1
        yield start, "\n".join(body)


def write_if_changed(path, text):
    """Writes a file unless it already holds `text`, so the build stays incremental."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)


def product(name):
    return f'.product(name: "{name}", package: "{package_identity}")'


targets, index_lines, manifests = [], [], []
for doc in docs:
    for line, text in blocks(doc):
        name = re.sub(r"\W", "_", os.path.splitext(doc)[0]) + f"_{line}"
        imports = [match.group(1) for match in map(import_line.match, text.split("\n")) if match]
        if "PackageDescription" in imports:
            # A manifest: its first line must stay the tools version, so the mapping starts on the second.
            first, _, rest = text.partition("\n")
            source = f'{first}\n#sourceLocation(file: "{doc}", line: {line + 1})\n{rest}\n'
            write_if_changed(os.path.join(out, "Manifests", name, "Package.swift"), source)
            manifests.append(f"{name}\t{doc}:{line}")
            continue
        if imports:
            header = ""
            dependencies = [product(module) for module in dict.fromkeys(imports) if module in library_products]
        else:
            modules = ["Observatory", "ObservatoryClient"]
            # A fragment in a module's DocC catalog (Sources/Module/Module.docc) uses that module too.
            catalog = re.match(r"Sources/(\w+)/", doc)
            if catalog and catalog.group(1) in library_products and catalog.group(1) not in modules:
                modules.append(catalog.group(1))
            header = "".join(f"import {module}\n" for module in ["Foundation"] + modules + ["SnippetContext"])
            dependencies = [product(module) for module in modules] + ['"SnippetContext"']
        source = (
            f"// Generated by .ci/snippets.sh from {doc}:{line}; edit the doc, not this file.\n"
            + header
            + f'#sourceLocation(file: "{doc}", line: {line})\n'
            + text
            + "\n#sourceLocation()\n"
        )
        write_if_changed(os.path.join(out, "Blocks", name, "main.swift"), source)
        targets.append(
            f'        .executableTarget(name: "{name}", dependencies: [{", ".join(dependencies)}], '
            f'path: "Blocks/{name}", swiftSettings: strict),')
        index_lines.append(f"{name}\t{doc}:{line}")

# Blocks that moved or went away leave no stale target or manifest behind.
for folder, entries in [("Blocks", index_lines), ("Manifests", manifests)]:
    names = {entry.split("\t")[0] for entry in entries}
    os.makedirs(os.path.join(out, folder), exist_ok=True)
    for stale in set(os.listdir(os.path.join(out, folder))) - names:
        shutil.rmtree(os.path.join(out, folder, stale))

context = sorted(name for name in os.listdir("Examples/SnippetContext") if name.endswith(".swift"))
for name in context:
    source = open(os.path.join("Examples/SnippetContext", name), encoding="utf-8").read()
    write_if_changed(os.path.join(out, "Context", name), source)
for stale in set(os.listdir(os.path.join(out, "Context"))) - set(context):
    os.remove(os.path.join(out, "Context", stale))

manifest = f"""// swift-tools-version:6.0
// Generated by .ci/snippets.sh: every ```swift block of the docs as an executable target.
import PackageDescription

// A warning in a doc's code is a flaw a reader would copy: it fails the build as an error does.
let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
    name: "ObservatorySnippets",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .target(
            name: "SnippetContext",
            dependencies: [{product("Observatory")}, {product("ObservatoryClient")}],
            path: "Context", swiftSettings: strict),
{chr(10).join(targets)}
    ]
)
"""
write_if_changed(os.path.join(out, "Package.swift"), manifest)
write_if_changed(os.path.join(out, "snippets.tsv"), "\n".join(index_lines) + "\n")
write_if_changed(os.path.join(out, "manifests.tsv"), "".join(entry + "\n" for entry in manifests))
print(f"snippets: {len(index_lines)} ```swift blocks and {len(manifests)} package manifests in {len(docs)} files")
PY

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

# Diagnostics that #sourceLocation maps to a doc, and those of the context, named by their file in Examples/.
doc_errors() {
    sed -i "s#^$PWD/$out/Context/#Examples/SnippetContext/#" "$log"
    grep -E '^([^ :]+\.md|Examples/[^:]+\.swift|/[^:]+\.swift):[0-9]+:[0-9]+: error:' "$log" | sort -u
}

# A package manifest in the docs is checked by evaluating it, as SwiftPM does before resolving.
while IFS=$'\t' read -r name location; do
    if ! swift package dump-package --package-path "$out/Manifests/$name" > "$log" 2>&1 < /dev/null; then
        echo "$location: error: this package manifest does not evaluate:" >&2
        cat "$log" >&2
        status=1
    fi
done < "$out/manifests.tsv"

if ! swift build --package-path "$out" > "$log" 2>&1; then
    echo "error: Swift snippets in the docs do not compile (or compile with warnings):" >&2
    doc_errors >&2 || true
    # A compiler crash names no line of the doc: name the block by its module.
    while IFS=$'\t' read -r module location; do
        if grep -q -- "-module-name $module " "$log"; then
            echo "$location: error: the compiler crashed on this block (module $module); its output follows" >&2
        fi
    done < "$out/snippets.tsv"
    # The build's own lines about the failure (a crash's message and what the compiler was doing).
    echo "--- swift build, the lines about the failure ---" >&2
    grep -E '^([^ |].*)?error:|^[0-9]+\.'$'\t''|^Found |^Assertion' "$log" | cut -c1-300 | head -n 40 >&2 \
        || tail -n 40 "$log" >&2
    status=1
fi
[ $status -eq 0 ] && echo "snippets: all compiled"
exit $status
