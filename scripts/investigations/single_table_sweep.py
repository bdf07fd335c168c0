#!/usr/bin/env python3
"""Every table of a pool, alone, under the shipped neural models and on the simulator.

For docs/investigations/tiny-hot-tables.md. Each `shardplan evaluate` call takes an 8-device
task with one table per device (table-wise, 1 TiB of memory per device), so a device's
`compute_ms` is one table's cost; the same task and plan are evaluated under sim-rtx2080ti@1/@2
and sim-h100-sxm@1/@2 and on the rtx2080ti and h100-sxm simulators. Writes one JSON line per
(table, dim): rows, pooling factor, dim, bins, and the six costs.

    build/client/cli/shardplan-offline tables generate-pool --seed 1 --out /tmp/pool_s1.json
    build/server/shardplan-server --address 127.0.0.1:50991 --store sqlite:/tmp/sweep.db &
    scripts/investigations/single_table_sweep.py /tmp/pool_s1.json s1 4,8,16,32,64,128 \\
        --out /tmp/sweep_s1.jsonl          # about 10 s per dim on a 2-core machine
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

TARGETS = {"rtx@1": ["--model", "sim-rtx2080ti@1"], "rtx@2": ["--model", "sim-rtx2080ti@2"],
           "h100@1": ["--model", "sim-h100-sxm@1"], "h100@2": ["--model", "sim-h100-sxm@2"],
           "gt_rtx": ["--ground-truth", "sim:rtx2080ti"],
           "gt_h100": ["--ground-truth", "sim:h100-sxm"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool")
    parser.add_argument("tag")
    parser.add_argument("dims")
    parser.add_argument("--out", required=True)
    parser.add_argument("--cli", default="build/client/cli/shardplan")
    parser.add_argument("--server", default="127.0.0.1:50991")
    parser.add_argument("--models", default="",
                        help="KEY=NAME@VERSION,... to sweep instead of the shipped v1 and v2 "
                             "(e.g. rtx@3=sim-rtx2080ti@3); the ground truths are always swept")
    args = parser.parse_args()
    targets = dict(TARGETS)
    if args.models:
        targets = {k: v for k, v in TARGETS.items() if k.startswith("gt_")}
        for entry in args.models.split(","):
            key, model = entry.split("=", 1)
            targets[key] = ["--model", model]
    pool = json.load(open(args.pool))["tables"]
    work = tempfile.mkdtemp(prefix="sweep-")
    task_file, plan_file = os.path.join(work, "task.json"), os.path.join(work, "plan.json")
    with open(args.out, "w") as out:
        for dim in [int(d) for d in args.dims.split(",")]:
            for first in range(0, len(pool), 8):
                idx = list(range(first, min(first + 8, len(pool))))
                while len(idx) < 8:
                    idx.append(idx[-1])  # padding; duplicates are written once
                names = [f"p{i}_{k}" for k, i in enumerate(idx)]
                task = {"topology": {"num_devices": 8, "device_memory_gib": 1024.0,
                                     "devices_per_host": 8},
                        "batch_size": 65536,
                        "tables": [{"name": n, "rows": pool[i]["rows"], "dim": dim,
                                    "pooling_factor": pool[i]["pooling_factor"],
                                    "access_bins": pool[i]["access_bins"]}
                                   for n, i in zip(names, idx)]}
                plan = {"tables": [{"table": n, "sharding_type": "TABLE_WISE", "shards": [
                    {"device": d, "row_offset": "0", "row_count": str(pool[i]["rows"]),
                     "column_offset": 0, "column_count": dim}]}
                    for d, (n, i) in enumerate(zip(names, idx))]}
                json.dump(task, open(task_file, "w"))
                json.dump({"plan": plan}, open(plan_file, "w"))
                costs = {}
                for key, flags in targets.items():
                    result = subprocess.run([args.cli, "--server", args.server, "--json",
                                             "evaluate", task_file, plan_file, *flags],
                                            capture_output=True, text=True)
                    if result.returncode:
                        sys.exit(f"{key}: {result.stderr}")
                    devices = json.loads(result.stdout)["plan"]["devices"]
                    costs[key] = {d["device"]: d["compute_ms"] for d in devices}
                seen = set()
                for device, i in enumerate(idx):
                    if i in seen:
                        continue
                    seen.add(i)
                    record = {"pool": args.tag, "i": i, "rows": pool[i]["rows"],
                              "pf": pool[i]["pooling_factor"], "dim": dim,
                              "bins": pool[i]["access_bins"]}
                    record.update({key: costs[key][device] for key in targets})
                    out.write(json.dumps(record) + "\n")
            out.flush()
            print(f"dim {dim} done", file=sys.stderr)


if __name__ == "__main__":
    main()
