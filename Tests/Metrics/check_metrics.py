#!/usr/bin/env python3
"""Parses observatoryd's /metrics with Prometheus's own parser (prometheus_client).

Usage: check_metrics.py PORT. Exits 0 when the page parses and holds every family
docs/protocol.md requires; 77 (skipped) when prometheus_client is not installed.
"""
import sys
import urllib.request

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("SKIPPED: prometheus_client is not installed (pip install prometheus_client)")
    sys.exit(77)

REQUIRED = {
    "observatory_connections": "gauge",
    "observatory_requests": "counter",
    "observatory_errors": "counter",
    "observatory_changes": "counter",
    "observatory_events_sent": "counter",
    "observatory_queued_bytes": "gauge",
    "observatory_slow_consumer_closes": "counter",
    "observatory_resumes": "counter",
    "observatory_fsync_duration_seconds": "histogram",
    "observatory_keys": "gauge",
    "observatory_store_bytes": "gauge",
    "observatory_history_bytes": "gauge",
    "observatory_log_bytes": "gauge",
    "observatory_revision": "gauge",
}


def main() -> int:
    port = int(sys.argv[1])
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        content_type = response.headers["Content-Type"]
        text = response.read().decode("utf-8")
    assert content_type.startswith("text/plain; version=0.0.4"), content_type
    families = {family.name: family for family in text_string_to_metric_families(text)}
    for name, kind in REQUIRED.items():
        assert name in families, f"missing {name}"
        assert families[name].type == kind, f"{name} is {families[name].type}, not {kind}"
        for sample in families[name].samples:
            assert sample.name.startswith("observatory_"), sample.name
    transports = {s.labels["transport"] for s in families["observatory_connections"].samples}
    assert transports == {"tcp", "websocket", "sse", "http"}, transports
    print(f"ok: {len(families)} families parsed by prometheus_client")
    return 0


if __name__ == "__main__":
    sys.exit(main())
