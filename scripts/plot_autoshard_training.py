#!/usr/bin/python3
"""AutoShard training curves: mean episode reward and the cost head's loss per policy update.

Reads the curve CSVs `shardplan-offline policy train-autoshard` writes next to its checkpoint
(<checkpoint>.curve.csv: update,steps,episodes,mean_reward,feasible_fraction,cost_loss,...) and
writes one PNG.

  /usr/bin/python3 scripts/plot_autoshard_training.py LABEL=CSV [LABEL=CSV ...] --out FILE.png
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

COLUMNS = ("steps", "episodes", "mean_reward", "feasible_fraction", "cost_loss")


def read_curve(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = set(COLUMNS) - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
        rows = [{k: float(row[k]) for k in COLUMNS} for row in reader]
    if not rows:
        raise ValueError(f"{path}: no updates")
    return rows


def moving_average(values, window):
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(sum(part) / len(part))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curves", nargs="+", metavar="LABEL=CSV")
    parser.add_argument("--out", required=True)
    parser.add_argument("--window", type=int, default=10, help="moving average, in updates")
    args = parser.parse_args()

    fig, (reward_ax, feasible_ax, cost_ax) = plt.subplots(3, 1, figsize=(8, 10), sharex=True)
    for spec in args.curves:
        label, _, path = spec.partition("=")
        if not path:
            sys.exit(f"{spec}: expected LABEL=CSV")
        rows = read_curve(path)
        steps = [r["steps"] for r in rows]
        rewards = [r["mean_reward"] for r in rows]
        line = reward_ax.plot(steps, rewards, alpha=0.3, linewidth=0.8)[0]
        reward_ax.plot(steps, moving_average(rewards, args.window), color=line.get_color(),
                       label=f"{label} ({args.window}-update mean)")
        feasible = [100.0 * r["feasible_fraction"] for r in rows]
        feasible_ax.plot(steps, moving_average(feasible, args.window), color=line.get_color(),
                         label=label)
        costs = [(s, r["cost_loss"]) for s, r in zip(steps, rows) if r["cost_loss"] > 0]
        cost_ax.plot([s for s, _ in costs], [c for _, c in costs], color=line.get_color(),
                     label=label)
    reward_ax.set_ylabel("mean episode reward")
    reward_ax.set_title("AutoShard training on the simulator (reward: min/max compute if the "
                        "plan fits, else the negative headroom)", fontsize=9)
    reward_ax.axhline(0.0, color="grey", linewidth=0.5)
    reward_ax.legend(fontsize=8)
    feasible_ax.set_ylabel("episodes that fit memory (%)")
    feasible_ax.set_ylim(0, 105)
    feasible_ax.legend(fontsize=8)
    cost_ax.set_ylabel("cost head MSE (ms², last batch)")
    cost_ax.set_yscale("log")
    cost_ax.set_xlabel("steps (the reference's count: 8 x 100 per update)")
    cost_ax.legend(fontsize=8)
    for ax in (reward_ax, feasible_ax, cost_ax):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
