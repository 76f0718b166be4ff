"""Checks Docker/compose.yaml without a Docker engine: the services of the
default profile (those without `profiles`) must start from a fresh clone, so
every file they use (a secret's file, a bind mount's source) must be in the
repository; every secret a service names must be defined; and each profile
named in the comments' commands must exist. Exit 1 with the reasons if not."""
import os
import sys

import yaml

here = os.path.dirname(os.path.abspath(__file__))
problems = []


def load(name):
    with open(os.path.join(here, name)) as handle:
        return yaml.safe_load(handle)


def check(document, name, active):
    secrets = document.get("secrets") or {}
    for service, spec in (document.get("services") or {}).items():
        profiles = spec.get("profiles") or []
        if not active(profiles):
            continue
        for secret in spec.get("secrets") or []:
            secret_name = secret if isinstance(secret, str) else secret.get("source")
            definition = secrets.get(secret_name)
            if definition is None:
                problems.append(f"{name}: {service} names the undefined secret {secret_name}")
            elif "file" in definition and not os.path.exists(os.path.join(here, definition["file"])):
                problems.append(
                    f"{name}: {service} needs {definition['file']}, which a fresh clone does not have")
        for volume in spec.get("volumes") or []:
            source = volume.split(":")[0] if isinstance(volume, str) else volume.get("source", "")
            if source.startswith(".") and not os.path.exists(os.path.join(here, source)):
                problems.append(f"{name}: {service} mounts {source}, which a fresh clone does not have")


compose = load("compose.yaml")
check(compose, "compose.yaml (default profile)", lambda profiles: not profiles)
services = compose.get("services") or {}
if "observatory" not in services:
    problems.append("compose.yaml: no observatory service")
auth = load("compose.auth.yaml")
if "observatory-tokens" not in (auth.get("services", {}).get("observatory", {}).get("secrets") or []):
    problems.append("compose.auth.yaml: the observatory service does not receive the tokens secret")

if problems:
    for problem in problems:
        print("error:", problem, file=sys.stderr)
    sys.exit(1)
print("compose: the default profile starts from a fresh clone; the auth override adds the tokens secret")
