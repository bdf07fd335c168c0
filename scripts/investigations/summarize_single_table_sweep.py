#!/usr/bin/env python3
"""Relative error of each model's single-table predictions in sweep files, as a markdown table.

Reads the JSONL of single_table_sweep.py (one line per table and dim, the costs of every model
key and of the ground truths gt_rtx / gt_h100); a key starting with "rtx" is scored against
gt_rtx, "h100" against gt_h100. Error = (predicted - ground truth) / ground truth.

    scripts/investigations/summarize_single_table_sweep.py sweep_s1.jsonl sweep_s2.jsonl
"""
import json
import sys


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    rows = [json.loads(line) for path in sys.argv[1:] for line in open(path)]
    if not rows:
        sys.exit("no sweep rows")
    pools = sorted({r["pool"] for r in rows})
    keys = [k for k in rows[0] if "@" in k]
    print(f"| model | pools | cases | median | p95 | max | > 20% | > 50% |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for key in keys:
        truth = "gt_rtx" if key.startswith("rtx") else "gt_h100"
        errors = [(r[key] - r[truth]) / r[truth] for r in rows]
        absolute = [abs(e) for e in errors]
        worst = max(errors, key=abs)
        print(f"| {key} | {', '.join(pools)} | {len(errors)} | {100 * quantile(absolute, 0.5):.1f}% "
              f"| {100 * quantile(absolute, 0.95):.1f}% | {100 * worst:+.0f}% "
              f"| {sum(e > 0.2 for e in absolute)} | {sum(e > 0.5 for e in absolute)} |")


if __name__ == "__main__":
    main()
