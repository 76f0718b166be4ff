#!/usr/bin/env bash
# The client is portable by construction: fails when anything Linux-only is reachable from the
# ObservatoryClient product. It takes the product's target closure from `swift package
# dump-package` and scans those targets' Swift sources for
#   - `import Glibc` / `import Musl` outside an `#if canImport(...)` branch for that module,
#   - a dependency on CEpoll (or `import CEpoll`),
#   - Linux-only names (epoll, eventfd, timerfd, malloc controls, SOCK_NONBLOCK, MSG_NOSIGNAL,
#     `Glibc.`-qualified calls, /proc/, ...).
# Each platform's differences live in one file per platform, named `*+Glibc.swift` or
# `*+Darwin.swift` and wholly inside `#if canImport(<that module>)`: the Linux names may appear
# there, and only there. Prints every finding as file:line, then a one-line summary.
set -euo pipefail
cd "$(dirname "$0")/.."

product=${1:-ObservatoryClient}
manifest=$(mktemp)
trap 'rm -f "$manifest"' EXIT
# A scratch folder of its own: the check never waits for, or disturbs, a build in progress.
swift package --scratch-path .build/portability dump-package > "$manifest"

python3 - "$manifest" "$product" <<'PYTHON'
import json
import os
import re
import sys

manifest_path, product = sys.argv[1], sys.argv[2]
with open(manifest_path) as file:
    package = json.load(file)

targets = {target["name"]: target for target in package["targets"]}
products = {entry["name"]: entry for entry in package["products"]}
if product not in products:
    sys.exit(f"error: the package has no product named {product}")


def dependency_names(target):
    """The names of the package's own targets that `target` depends on (by name, target or product)."""
    names = []
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in dependency:
                names.append(dependency[kind][0])
        if "product" in dependency:
            product_name = dependency["product"][0]
            if product_name in products:
                names.extend(products[product_name]["targets"])
    return [name for name in names if name in targets]


closure, pending = [], list(products[product]["targets"])
while pending:
    name = pending.pop()
    if name in closure:
        continue
    closure.append(name)
    pending.extend(dependency_names(targets[name]))
closure.sort()

findings = []

for name in closure:
    if name == "CEpoll" or targets[name].get("type") == "system":
        users = [other for other in closure if name in dependency_names(targets[other])]
        findings.append(f"Package.swift: {', '.join(users)} depends on the Linux-only system library {name}")

linux_only = re.compile(
    r"\b(epoll_\w*|EPOLL\w*|eventfd\w*|timerfd\w*|signalfd\w*|inotify_\w*|memfd_\w*"
    r"|malloc_trim|malloc_usable_size|mallinfo\w*|mallopt|M_TRIM_THRESHOLD|M_MMAP_THRESHOLD"
    r"|SOCK_CLOEXEC|SOCK_NONBLOCK|accept4|pipe2|dup3|MSG_NOSIGNAL|POLLRDHUP|TCP_KEEPIDLE"
    r"|__rlimit_resource_t|sendmmsg|recvmmsg|splice|sched_getaffinity|get_nprocs\w*|prctl"
    r"|SOCK_STREAM\.rawValue|SOCK_DGRAM\.rawValue)\b"
    r"|\b(Glibc|Musl)\.\w+"
    r"|/proc/|/sys/fs/"
)
import_line = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:\w+\s+)?(Glibc|Musl|CEpoll)\b")
directive = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")


def code_of(line, in_block_comment):
    """The line without comments and string literals' contents; whether a /* */ comment is still open."""
    out, index, in_string = [], 0, False
    while index < len(line):
        pair = line[index : index + 2]
        if in_block_comment:
            if pair == "*/":
                in_block_comment = False
                index += 2
            else:
                index += 1
            continue
        char = line[index]
        if in_string:
            if char == "\\":
                index += 2
                continue
            if char == '"':
                in_string = False
                out.append(char)
            index += 1
            continue
        if pair == "//":
            break
        if pair == "/*":
            in_block_comment = True
            index += 2
            continue
        if char == '"':
            in_string = True
        out.append(char)
        index += 1
    return "".join(out), in_block_comment


def platform_file_module(path):
    """`Glibc` or `Darwin` for a designated platform file (`Name+Glibc.swift`), else None."""
    match = re.search(r"\+(Glibc|Musl|Darwin)\.swift$", path)
    return match.group(1) if match else None


def scan(path):
    with open(path, encoding="utf-8") as file:
        lines = file.read().split("\n")
    platform = platform_file_module(path)
    # One entry per open #if: the condition of the branch we are in.
    branches, in_block_comment, outside_guard = [], False, None
    for number, raw in enumerate(lines, start=1):
        code, in_block_comment = code_of(raw, in_block_comment)
        if not code.strip():
            continue
        found = directive.match(code)
        if found:
            keyword, condition = found.group(1), found.group(2).strip()
            if keyword == "if":
                branches.append(condition)
            elif keyword == "elseif" and branches:
                branches[-1] = condition
            elif keyword == "else" and branches:
                branches[-1] = "#else"
            elif keyword == "endif" and branches:
                branches.pop()
            continue
        if platform is not None and outside_guard is None and branches[:1] != [f"canImport({platform})"]:
            outside_guard = number
        imported = import_line.match(code)
        if imported:
            module = imported.group(1)
            guard = f"canImport({module})"
            if module == "CEpoll":
                findings.append(f"{path}:{number}: imports CEpoll, which is Linux-only")
            elif not any(guard in branch and "!" not in branch for branch in branches):
                findings.append(f"{path}:{number}: `import {module}` outside an `#if {guard}` branch")
            continue
        if platform is not None:
            continue
        for match in linux_only.finditer(code):
            findings.append(f"{path}:{number}: Linux-only `{match.group(0)}`: {raw.strip()}")
    if outside_guard is not None:
        findings.append(f"{path}:{outside_guard}: a platform file must lie wholly inside `#if canImport({platform})`")


files = 0
for name in closure:
    target = targets[name]
    if target.get("type") == "system":
        continue
    root = target.get("path") or os.path.join("Sources", name)
    for directory, _, names in sorted(os.walk(root)):
        for file_name in sorted(names):
            if file_name.endswith(".swift"):
                files += 1
                scan(os.path.join(directory, file_name))

for finding in findings:
    print(finding)
summary = f"{product}'s closure ({', '.join(closure)}; {files} Swift files)"
if findings:
    print(f"portability: FAILED, {len(findings)} Linux-only finding(s) in {summary}")
    sys.exit(1)
print(f"portability: OK, nothing Linux-only in {summary}")
PYTHON
