#!/usr/bin/python3
"""DreamShard training curves: per iteration, the mean measured max latency of the plans sampled
for the simulator (collect_data) and the mean RL reward (-predicted overall cost), one line per
policy.

Reads the CSVs `shardplan-offline policy train-dreamshard --curve-csv FILE` writes (columns
iteration,episodes,mean_measured_ms,mean_rl_reward,cost_loss,learning_rate) and writes one PNG.

  /usr/bin/python3 scripts/plot_dreamshard_training.py LABEL=FILE [LABEL=FILE...] --out PNG
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
    return {key: [float(r[key]) for r in rows] for key in rows[0]}


def moving_mean(values, window):
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1): i + 1]
        out.append(sum(part) / len(part))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curves", nargs="+", help="LABEL=FILE")
    parser.add_argument("--out", required=True)
    parser.add_argument("--window", type=int, default=10, help="moving mean over iterations")
    args = parser.parse_args()

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for spec in args.curves:
        label, _, path = spec.partition("=")
        if not path:
            sys.exit(f"expected LABEL=FILE, got {spec}")
        curve = read_curve(path)
        it = curve["iteration"]
        for ax, key in zip(axes, ["mean_measured_ms", "mean_rl_reward", "cost_loss"]):
            line, = ax.plot(it, curve[key], alpha=0.3, linewidth=0.8)
            ax.plot(it, moving_mean(curve[key], args.window), color=line.get_color(),
                    label=f"{label} (mean of {args.window})")
    axes[0].set_title("measured max latency of the sampled plans")
    axes[0].set_ylabel("ms (simulator)")
    axes[1].set_title("RL reward (-predicted overall cost)")
    axes[1].set_ylabel("ms (cost model)")
    axes[2].set_title("cost-model loss (overall + 3 heads MSE)")
    axes[2].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("DreamShard training (sampled tasks differ per iteration: the raw curves are noisy)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
