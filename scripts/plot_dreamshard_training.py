#!/usr/bin/python3
"""DreamShard training curves, one row per hardware profile: per iteration, the measured max
latency of the plans sampled for the simulator (collect_data; noisy, the tasks change every
iteration) and of the argmax plans of the held-out tasks; the RL reward (-predicted overall
cost); the cost-model loss.

Reads the CSVs `shardplan-offline policy train-dreamshard --curve-csv FILE` writes (columns
iteration,episodes,mean_measured_ms,mean_rl_reward,cost_loss,learning_rate,heldout_argmax_ms)
and writes one PNG.

  /usr/bin/python3 scripts/plot_dreamshard_training.py ROW:LABEL=FILE [ROW:LABEL=FILE...] --out PNG
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def read_curve(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no rows")
    curve = {}
    for key in rows[0]:
        curve[key] = [float(r[key]) if r.get(key) not in (None, "") else None for r in rows]
    return curve


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curves", nargs="+", help="ROW:LABEL=FILE")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    specs = []
    for spec in args.curves:
        head, _, path = spec.partition("=")
        row, _, label = head.partition(":")
        if not path or not label:
            sys.exit(f"expected ROW:LABEL=FILE, got {spec}")
        specs.append((row, label, path))
    rows = list(dict.fromkeys(row for row, _, _ in specs))

    fig, axes = plt.subplots(len(rows), 3, figsize=(16, 4.2 * len(rows)), squeeze=False)
    for row, label, path in specs:
        ax = axes[rows.index(row)]
        curve = read_curve(path)
        it = curve["iteration"]
        line, = ax[0].plot(it, curve["mean_measured_ms"], alpha=0.35, linewidth=0.8,
                           label=f"{label}: sampled plans")
        held = curve.get("heldout_argmax_ms")
        if held and all(v is not None for v in held):
            ax[0].plot(it, held, color=line.get_color(), linewidth=2,
                       label=f"{label}: argmax plans, held-out tasks")
        ax[1].plot(it, curve["mean_rl_reward"], color=line.get_color(), label=label)
        ax[2].plot(it, curve["cost_loss"], color=line.get_color(), label=label)
    for r, row in enumerate(rows):
        ax = axes[r]
        ax[0].set_title(f"{row}: measured max latency")
        ax[0].set_ylabel("ms (simulator)")
        ax[1].set_title(f"{row}: RL reward (-predicted overall cost)")
        ax[1].set_ylabel("ms (cost model)")
        ax[2].set_title(f"{row}: cost-model loss (overall + 3 heads MSE)")
        ax[2].set_yscale("log")
        for a in ax:
            a.set_xlabel("iteration")
            a.grid(alpha=0.3)
            a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
