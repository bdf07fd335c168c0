#!/usr/bin/python3
"""Generates the example tasks examples/task_4dev.json and examples/task_8dev.json.

Deterministic: each file has its own seed, so running this again rewrites identical files.

    /usr/bin/python3 examples/generate_examples.py            # rewrite both files
    /usr/bin/python3 examples/generate_examples.py --check    # exit 1 if a file is stale

The tables imitate the DLRM workloads of the papers (Meta's synthetic dlrm_datasets, NeuroShard's
task generator; docs/design.md section 7 and docs/cost-data.md):

- rows (hash size): log-uniform-ish between 10^2 and 10^7, most tables in 10^3..10^6 and one in
  eight large (4 * 10^6 .. 10^7), which hold most of the memory, as in production models;
- dim: 4..128, powers of two (the reference's dim grid), large tables 32..128;
- pooling_factor: mean lookups per sample, log-uniform in 1..100;
- access_bins: the 17-bin histogram of distinct rows by access count in one batch. A batch makes
  batch_size * pooling_factor lookups; spread over the table's rows that gives a mean count per
  distinct row, and the counts follow a log-normal around a fraction of it (heavy-tailed, as the
  dlrm_datasets locality statistics show: most distinct rows are seen once or twice, a few
  thousands of times). Bins are rounded to 4 decimals and sum to exactly 1.

Every task fits comfortably: the weights (fp32) take at most 40% of the cluster's memory and the
largest table at most 30% of one device, so that every baseline (random, size_greedy,
dim_greedy, lookup_greedy, size_lookup_greedy) finds a feasible plan, while memory still
constrains where the large tables can go.
"""

import argparse
import json
import math
import pathlib
import random
import sys

NUM_BINS = 17
BATCH_SIZE = 65536
DIMS = [4, 8, 16, 32, 64, 128]
GIB = 1024.0**3

# name, seed, tables, devices, GiB per device, devices per host, intra/inter-host GiB/s
EXAMPLES = [
    ("task_4dev.json", 4, 40, 4, 16.0, 4, 600.0, 12.5),
    ("task_8dev.json", 8, 80, 8, 16.0, 4, 600.0, 12.5),
]
# Fraction of the cluster's memory the tables may take, and of one device the largest table.
MAX_TOTAL_FRACTION = 0.40
MAX_TABLE_FRACTION = 0.30


def normal_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def access_bins(rng, rows, pooling_factor):
    """The 17-bin histogram of distinct accessed rows by access count (log-normal counts)."""
    mean_count = BATCH_SIZE * pooling_factor / rows  # lookups per row of the table
    # The typical (median) row is accessed far less often than the mean: hot rows take most of
    # the lookups. sigma sets how heavy the tail is. A table much larger than the batch's
    # lookups has a median below one access: most distinct rows are seen exactly once (bin 0).
    median = max(0.3, mean_count ** rng.uniform(0.35, 0.6))
    sigma = rng.uniform(1.0, 2.0)
    mu = math.log(median)
    edges = [0.0] + [2.0**j for j in range(NUM_BINS - 1)] + [math.inf]
    mass = []
    for j in range(NUM_BINS):
        lo = 0.0 if edges[j] == 0.0 else normal_cdf((math.log(edges[j]) - mu) / sigma)
        hi = 1.0 if math.isinf(edges[j + 1]) else normal_cdf((math.log(edges[j + 1]) - mu) / sigma)
        mass.append(max(0.0, hi - lo))
    total = sum(mass)
    bins = [round(m / total, 4) for m in mass]
    # Rounding drift goes to the largest bin, so the bins sum to 1 exactly (to 4 decimals).
    top = max(range(NUM_BINS), key=lambda j: bins[j])
    bins[top] = round(bins[top] + 1.0 - sum(bins), 4)
    return bins


def draw_rows(rng, index, num_tables):
    """Most tables 10^3..10^6 rows, a few small ones, and a handful of large ones."""
    if index < max(2, num_tables // 8):  # the few large tables: 4e6 .. 1e7 rows
        exponent = rng.uniform(math.log10(4e6), 7.0)
    else:
        exponent = min(7.0, max(2.0, rng.gauss(4.6, 1.0)))
    return max(100, int(round(10.0**exponent, -1 if exponent < 3 else -2)))


def draw_dim(rng, rows):
    """Powers of two in 4..128; large tables get smaller dims, as in production models."""
    if rows >= 1_000_000:
        return rng.choice([32, 64, 64, 128, 128])
    return rng.choice([4, 8, 16, 16, 32, 32, 64, 64, 128])


def table_gib(table):
    return table["rows"] * table["dim"] * 4 / GIB


def make_task(seed, num_tables, num_devices, device_gib, devices_per_host, intra, inter):
    rng = random.Random(seed)
    while True:  # resample until the memory bounds hold (as the reference's gen_tasks.py does)
        tables = []
        for i in range(num_tables):
            rows = draw_rows(rng, i, num_tables)
            dim = draw_dim(rng, rows)
            pooling_factor = round(10.0 ** rng.uniform(0.0, 2.0), 2)
            tables.append({"rows": rows, "dim": dim, "pooling_factor": pooling_factor})
        total = sum(table_gib(t) for t in tables)
        largest = max(table_gib(t) for t in tables)
        if total <= MAX_TOTAL_FRACTION * num_devices * device_gib and \
                largest <= MAX_TABLE_FRACTION * device_gib:
            break
    rng.shuffle(tables)  # the large tables should not all come first
    named = []
    for i, t in enumerate(tables):
        named.append({
            "name": f"t{i:03d}",
            "rows": t["rows"],
            "dim": t["dim"],
            "pooling_factor": t["pooling_factor"],
            "access_bins": access_bins(rng, t["rows"], t["pooling_factor"]),
        })
    return {
        "tables": named,
        "topology": {
            "num_devices": num_devices,
            "device_memory_gib": device_gib,
            "devices_per_host": devices_per_host,
            "intra_host_bandwidth_gibps": intra,
            "inter_host_bandwidth_gibps": inter,
        },
        "batch_size": BATCH_SIZE,
    }


def dumps(task):
    """JSON with one table per line: diffable and still readable."""
    tables = ",\n".join("    " + json.dumps(t, separators=(", ", ": ")) for t in task["tables"])
    rest = {k: v for k, v in task.items() if k != "tables"}
    body = json.dumps(rest, indent=2)[1:-1].rstrip()
    return "{\n  \"tables\": [\n" + tables + "\n  ]," + body + "\n}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if a committed file differs")
    parser.add_argument("--out-dir", default=str(pathlib.Path(__file__).resolve().parent))
    args = parser.parse_args()
    stale = False
    for name, seed, num_tables, devices, gib, per_host, intra, inter in EXAMPLES:
        task = make_task(seed, num_tables, devices, gib, per_host, intra, inter)
        text = dumps(task)
        path = pathlib.Path(args.out_dir) / name
        total = sum(table_gib(t) for t in task["tables"])
        largest = max(table_gib(t) for t in task["tables"])
        summary = (f"{name}: {num_tables} tables, {total:.2f} GiB of {devices * gib:.0f} GiB, "
                   f"largest {largest:.2f} GiB")
        if args.check:
            if not path.exists() or path.read_text() != text:
                print(f"stale: {summary}", file=sys.stderr)
                stale = True
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(summary)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
