#!/usr/bin/env python3
"""oper_fig10: OPER's Fig. 10 comparison (ATC'24, section 6) through the real server.

Plans a task with OPER, its two baselines (MemoryGreedy, AccessGreedy), a table-wise planner
(size_greedy), `torchrec` and `flexshard`, and asks EvaluatePlan for OPER's figures of each
plan (docs/oper.md, "Access figures"): per device the memory held (Eq. 1), the bytes looked up
for every device (Eq. 2) and the microseconds spent fetching rows from the others (Eq. 3).
Prints mean, spread (min / max, the degree of balance) and totals per planner, saves them as
JSON and draws the three panels of Fig. 10 (bars: mean; whiskers: min to max; dots: devices).
Each plan is also measured on the simulator of the task's hardware (forward only for
inference), the ground truth of time.

    /usr/bin/python3 bench/oper_fig10.py [--task examples/task_oper_criteo_kaggle.json ...]
        [--server build/server/shardplan-server] [--out bench/results/oper_fig10.json]
        [--plot docs/observations/oper_fig10.png]
"""

import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "client", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration", "python"))

import shardplan  # noqa: E402
from server_fixture import ServerProcess  # noqa: E402

ALGORITHMS = ["oper", "memory_greedy", "access_greedy", "size_greedy", "torchrec", "flexshard"]
LABELS = {"oper": "OPER", "memory_greedy": "MG", "access_greedy": "AG",
          "size_greedy": "table-\nwise", "torchrec": "torchrec", "flexshard": "FlexShard"}
PANELS = [("memory_gib", "memory held, GiB (Eq. 1)"),
          ("lookup_mib", "looked up per iteration, MiB (Eq. 2)"),
          ("fetch_us", "fetching from others, us / iteration (Eq. 3)")]


def spread(values):
    return {"mean": statistics.fmean(values), "min": min(values), "max": max(values),
            "balance": min(values) / max(values) if max(values) > 0 else 1.0,
            "devices": values}


def measure(client, task, algorithm):
    started = time.perf_counter()
    try:
        plan = client.plan(task, algorithm=algorithm)
    except shardplan.ShardplanError as error:
        return {"algorithm": algorithm, "refused": f"{error.code}: {error.message}"}
    wall_s = time.perf_counter() - started
    figures = client.access_figures(task, plan)
    hardware = task["topology"].get("hardware", "a100-sxm4")
    measured = client.evaluate(task, plan, ground_truth=f"sim:{hardware}")
    devices = figures.devices
    return {
        "algorithm": algorithm,
        "planning_ms": plan.stats.planning_time_ms,
        "request_s": wall_s,
        "shards": sum(len(t.shards) for t in plan.tables),
        "cost_model": plan.cost_model,
        "cost_ms": plan.cost_ms,
        "ground_truth_ms": measured.cost_ms,
        "total_communication_us": figures.total_communication_us,
        "total_fetch_mib": figures.total_fetch_bytes / 2**20,
        "memory_gib": spread([d.memory_bytes / 2**30 for d in devices]),
        "lookup_mib": spread([d.lookup_bytes / 2**20 for d in devices]),
        "fetch_us": spread([d.fetch_us for d in devices]),
    }


def print_table(task_name, rows):
    print(f"\n{task_name}")
    print("| planner | memory GiB mean (min-max, balance) | lookups MiB mean (min-max, balance) "
          "| fetch us mean (min-max, balance) | total comm us | sim ms | planning ms |")
    print("|---|---|---|---|---:|---:|---:|")
    for row in rows:
        if "refused" in row:
            print(f"| `{row['algorithm']}` | refused: {row['refused']} | | | | | |")
            continue
        cells = [f"{row[k]['mean']:.4g} ({row[k]['min']:.4g}-{row[k]['max']:.4g}, "
                 f"{row[k]['balance']:.2f})" for k, _ in PANELS]
        print(f"| `{row['algorithm']}` | " + " | ".join(cells) +
              f" | {row['total_communication_us']:.4g} | {row['ground_truth_ms']:.4g} "
              f"| {row['planning_ms']:.0f} |")


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tasks = list(results)
    fig, axes = plt.subplots(len(tasks), len(PANELS) + 1, figsize=(16, 3.6 * len(tasks)),
                             squeeze=False)
    for t, task_name in enumerate(tasks):
        rows = [r for r in results[task_name] if "refused" not in r]
        xs = list(range(len(rows)))
        colors = ["tab:red" if r["algorithm"] == "oper" else "tab:gray" for r in rows]
        labels = [LABELS[r["algorithm"]] for r in rows]
        for p, (key, title) in enumerate(PANELS):
            ax = axes[t][p]
            means = [r[key]["mean"] for r in rows]
            low = [r[key]["mean"] - r[key]["min"] for r in rows]
            high = [r[key]["max"] - r[key]["mean"] for r in rows]
            ax.bar(xs, means, color=colors, alpha=0.6, yerr=[low, high], capsize=4)
            for x, r in zip(xs, rows):
                ax.scatter([x] * len(r[key]["devices"]), r[key]["devices"], s=8, color="black",
                           zorder=3)
            ax.set_xticks(xs)
            ax.set_xticklabels(labels, fontsize=8)
            ax.set_title(f"{task_name}: {title}", fontsize=8)
            if key == "fetch_us":
                ax.set_yscale("log")
        ax = axes[t][len(PANELS)]
        ax.bar(xs, [r["ground_truth_ms"] for r in rows], color=colors, alpha=0.6)
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_title(f"{task_name}: simulated step, ms (ground truth)", fontsize=8)
    fig.suptitle("OPER's Fig. 10 on shardplan: per-device figures of each planner's plan "
                 "(bar: mean, whiskers: min-max, dots: devices; MG / AG: OPER's MemoryGreedy / "
                 "AccessGreedy) and the simulator's step", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append",
                        help="task JSON (repeatable; default: the Criteo-Kaggle OPER example)")
    parser.add_argument("--server", default=os.path.join(ROOT, "build/server/shardplan-server"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench/results/oper_fig10.json"))
    parser.add_argument("--plot", default=os.path.join(ROOT, "docs/observations/oper_fig10.png"))
    args = parser.parse_args()
    tasks = args.task or [os.path.join(ROOT, "examples/task_oper_criteo_kaggle.json")]
    os.environ["SHARDPLAN_SERVER_BINARY"] = args.server
    results = {}
    with ServerProcess(["--models_dir", os.path.join(ROOT, "models")]) as server:
        client = shardplan.PlannerClient(server.target)
        for path in tasks:
            with open(path) as f:
                task = json.load(f)
            name = os.path.splitext(os.path.basename(path))[0]
            rows = []
            for algorithm in ALGORITHMS:
                print(f"[{name}] {algorithm} ...", file=sys.stderr, flush=True)
                rows.append(measure(client, task, algorithm))
            results[name] = rows
            print_table(name, rows)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    plot(results, args.plot)
    print(f"\nwrote {args.out} and {args.plot}")


if __name__ == "__main__":
    main()
