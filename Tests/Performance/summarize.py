"""Medians and ratios of compare_with_redis.sh's results (loadgen RESULT lines).

Fan-out is compared by the server's CPU per delivery (server_cpu_pct over the
delivery rate), since the client parsing JSON events is the limit there; the
paced scenario by its p99 write-to-event latency; writes by their rate.
"""
import json
import statistics
import sys


def median(values):
    return statistics.median(values) if values else float("nan")


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    by_label = {}
    for row in rows:
        by_label.setdefault(row["label"], []).append(row)
    for name in ["fanout100", "fanout1000", "paced", "writes1", "writes50"]:
        ours, redis = by_label.get("obs-" + name, []), by_label.get("redis-" + name, [])
        if name.startswith("fanout"):
            def cost(row):
                return row["server_cpu_pct"] / 100 / row["deliveries_per_s"] * 1e9
            a, b = median([cost(r) for r in ours]), median([cost(r) for r in redis])
            print(f"{name}: server CPU per delivery {a:.0f} ns against {b:.0f} ns, ratio {a / b:.2f}")
        elif name == "paced":
            a, b = median([r["lat_p99_us"] for r in ours]), median([r["lat_p99_us"] for r in redis])
            print(f"{name}: p99 write to event {a / 1000:.2f} ms against {b / 1000:.2f} ms, ratio {a / b:.2f}")
        else:
            a, b = median([r["ops_per_s"] for r in ours]), median([r["ops_per_s"] for r in redis])
            print(f"{name}: {a:.0f} sets/s against {b:.0f}, ratio {a / b:.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
