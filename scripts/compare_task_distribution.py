#!/usr/bin/env python3
"""Compares shardplan's task generator with the reference's own sampling code.

The reference (daochenzha/neuroshard, tools/gen_tasks.py, MIT licence) draws the table count T
once per task and redraws only ids and dims until the task fits its memory cap. `reference_tasks`
below runs that code verbatim (numpy, np.random.seed) on shardplan's table pool; the shardplan
side is a JSONL file from `shardplan tasks generate ... --out tasks.jsonl`. Both are summarised
the same way: T (mean and quantiles), total GiB and mean dim per task.

  shardplan tasks generate --devices 4 --max-dim 128 --count 2000 --out /tmp/t4.jsonl
  /usr/bin/python3 scripts/compare_task_distribution.py --tasks /tmp/t4.jsonl --devices 4

The two use different random streams, so single tasks differ; their distributions must not.
"""

import argparse
import json
import statistics

import numpy as np


# --- The reference, verbatim (tools/gen_tasks.py and neuroshard/utils.py) -----------------------
def table_size(hash_size, dim, fp16=False):
    gb_size = hash_size * dim / (1024 * 1024 * 1024)
    if fp16:
        gb_size = 2 * gb_size
    else:
        gb_size = 4 * gb_size
    return gb_size


def gen_task(table_configs, T, max_mem, dims):
    while True:
        table_ids = np.random.randint(len(table_configs), size=T)
        table_dims = np.random.choice(dims, size=T)
        size = sum([table_size(table_configs[task_id]["row"], table_dims[i])
                    for i, task_id in enumerate(table_ids)])
        if size <= max_mem:
            break
    return table_ids.tolist(), table_dims.tolist()


def reference_tasks(table_configs, data_size, T_range, max_mem, dims, seed):
    np.random.seed(seed)
    tasks = []
    for _ in range(data_size):
        task_T = np.random.randint(T_range[0], T_range[1])
        tasks.append(gen_task(table_configs, task_T, max_mem, dims))
    return tasks
# -------------------------------------------------------------------------------------------------


def dim_grid(max_dim):
    dims, cur = [], max_dim
    while cur % 4 == 0:
        dims.append(cur)
        cur //= 2
    return dims


def summary(counts, gib, dims):
    counts = sorted(counts)
    n = len(counts)
    quantiles = [counts[int(q * n)] for q in (0.1, 0.25, 0.5, 0.75, 0.9)]
    return {"tasks": n, "mean_T": statistics.mean(counts), "T_q10_25_50_75_90": quantiles,
            "mean_GiB": statistics.mean(gib), "mean_dim": statistics.mean(dims)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", required=True, help="JSONL of shardplan tasks")
    parser.add_argument("--devices", type=int, default=4)
    parser.add_argument("--max-dim", type=int, default=128)
    parser.add_argument("--pool", default="data/table_pool/dlrm_856.json")
    parser.add_argument("--seed", type=int, default=0, help="the reference's np.random.seed")
    parser.add_argument("--count", type=int, default=0, help="reference tasks (0: as many)")
    args = parser.parse_args()

    pool = json.load(open(args.pool))["tables"]
    table_configs = [{"row": t["rows"]} for t in pool]
    ours_T, ours_gib, ours_dim = [], [], []
    with open(args.tasks) as f:
        for line in f:
            task = json.loads(line)
            tables = task["tables"]
            ours_T.append(len(tables))
            ours_gib.append(sum(table_size(t["rows"], t["dim"]) for t in tables))
            ours_dim.append(statistics.mean(t["dim"] for t in tables))

    # The reference's settings: T in [10, 60) and 15 GB for 4 devices, [20, 120) and 31 GB for 8.
    lo, hi = max(1, 10 * args.devices // 4), 15 * args.devices
    max_mem = args.devices * 4 - 1
    ref = reference_tasks(table_configs, args.count or len(ours_T), [lo, hi], max_mem,
                          dim_grid(args.max_dim), args.seed)
    ref_T = [len(ids) for ids, _ in ref]
    ref_gib = [sum(table_size(table_configs[i]["row"], d) for i, d in zip(ids, dims))
               for ids, dims in ref]
    ref_dim = [statistics.mean(dims) for _, dims in ref]

    rows = {"reference gen_tasks.py": summary(ref_T, ref_gib, ref_dim),
            "shardplan tasks generate": summary(ours_T, ours_gib, ours_dim)}
    print(f"{args.devices} devices, max dim {args.max_dim}, uniform T in [{lo}, {hi - 1}] has "
          f"mean {(lo + hi - 1) / 2}")
    print(f"| generator | tasks | mean T | T quantiles 10/25/50/75/90% | mean GiB | mean dim |")
    print("|---|---|---|---|---|---|")
    for name, s in rows.items():
        print(f"| {name} | {s['tasks']} | {s['mean_T']:.1f} | "
              f"{'/'.join(map(str, s['T_q10_25_50_75_90']))} | {s['mean_GiB']:.2f} | "
              f"{s['mean_dim']:.1f} |")


if __name__ == "__main__":
    main()
