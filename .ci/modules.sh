#!/usr/bin/env bash
# The module map's rules (README's layout): the leaf modules import nothing of ours,
# the etcd client knows nothing of Observatory (neither the core nor the protocol),
# and the logger does not import the core. Reads the targets' dependencies from
# `swift package dump-package`; fails naming each broken rule.
set -euo pipefail
cd "$(dirname "$0")/.."

swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
ours = {target["name"] for target in package["targets"]}
def dependencies(target):
    names = []
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.append(dependency[kind][0])
    return {name for name in names if name in ours}
graph = {target["name"]: dependencies(target) for target in package["targets"]}
rules = {
    "ObservatoryLocking": ours,
    "ObservatoryJSON": ours,
    "ObservatoryHTTP": ours,
    "ObservatorySockets": ours,
    "ObservatoryEtcd": {"Observatory", "ObservatoryWire", "ObservatoryServer", "ObservatoryClient"},
    "ObservatoryLogging": {"Observatory", "ObservatoryWire"},
}
problems = []
for module, forbidden in rules.items():
    if module not in graph:
        problems.append(f"{module}: no such target")
        continue
    for name in sorted(graph[module] & forbidden):
        problems.append(f"{module} depends on {name}, which the module map forbids")
for problem in problems:
    print("error: " + problem, file=sys.stderr)
if problems:
    sys.exit(1)
print("modules: the leaf modules import nothing of ours; Etcd and Logging keep out of the core and the protocol")
'
