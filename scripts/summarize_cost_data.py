#!/usr/bin/python3
"""Prints the label ranges of the shipped cost datasets (data/cost_data/README.md).

compute: the record's `ms`; comm: the max over devices of forward + backward (forward includes
the wait for later devices). Quantiles are nearest-rank on the sorted labels.

    /usr/bin/python3 scripts/summarize_cost_data.py [DATA_DIR]
"""
import gzip
import json
import os
import sys


def quantile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, int(p * (len(sorted_values) - 1) + 0.5))]


def labels(path):
    values = []
    with gzip.open(path, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            if record["kind"] == "compute":
                values.append(record["ms"])
            else:
                values.append(max(f + b for f, b in zip(record["forward_ms"], record["backward_ms"])))
    return sorted(values)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "data/cost_data"
    print("| file | samples | gzipped bytes | min | median | p99 | max (ms) |")
    print("|---|---|---|---|---|---|---|")
    for profile in sorted(os.listdir(root)):
        for name in ("compute", "compute_2568", "comm_4", "comm_8"):
            path = os.path.join(root, profile, name + ".jsonl.gz")
            if not os.path.exists(path):
                continue
            v = labels(path)
            print(f"| {profile} {name} | {len(v):,} | {os.path.getsize(path):,} | {v[0]:.3f} | "
                  f"{quantile(v, 0.5):.3f} | {quantile(v, 0.99):.3f} | {v[-1]:.3f} |")


if __name__ == "__main__":
    main()
