#!/usr/bin/python3
"""Draws the NeuroShard paper's section 2 observations (its Figures 3 and 4) from the datasets
that `shardplan data observations` writes (docs/cost-data.md).

  plot_observations.py DIR [--title TEXT]

reads DIR/observation{1,2,3}.json (3 is optional: sim only) and writes DIR/observation{1,2,3}.png.
Needs Debian's python3-matplotlib (scripts/install_deps.sh); run with /usr/bin/python3.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        return json.load(f)


def subtitle(data):
    return f"{data['hardware_profile']}, batch {data['batch_size']}"


def heading(title, data):
    """The figure title: the folder's label, unless it repeats the profile."""
    if title == data["hardware_profile"]:
        return subtitle(data)
    return f"{title}: {subtitle(data)}"


def plot_observation1(data, title, out):
    """Cost vs dim per table; and a column half's cost relative to the whole table."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for table in data["tables"]:
        label = f"{table['name']} ({table['rows']:,} rows, pf {table['pooling_factor']:.1f})"
        dims = [p["dim"] for p in table["points"]]
        left.plot(dims, [p["ms"] for p in table["points"]], marker="o", ms=3, label=label)
        splits = table["splits"]
        right.plot([s["dim"] for s in splits], [s["half_ms"] / s["whole_ms"] for s in splits],
                   marker="o", ms=4, label=table["name"])
    left.set_xlabel("dim")
    left.set_ylabel("forward + backward cost (ms)")
    left.set_title("cost vs dim")
    left.legend(fontsize=7)
    left.grid(alpha=0.3)
    right.axhline(0.5, color="black", linestyle="--", linewidth=1, label="half of the whole")
    right.set_xscale("log", base=2)
    right.set_xlabel("dim of the whole table (each half has dim/2)")
    right.set_ylabel("cost of one half / cost of the whole")
    right.set_title("Observation 1: one column half vs the whole table")
    right.set_ylim(0, 1.05)
    right.legend(fontsize=7)
    right.grid(alpha=0.3)
    fig.suptitle(heading(title, data))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_observation2(data, title, out):
    """Multi-table cost vs the sum of the single-table costs of the same tables."""
    combos = data["combinations"]
    xs = [c["sum_single_ms"] for c in combos]
    ys = [c["multi_ms"] for c in combos]
    sizes = [len(c["tables"]) for c in combos]
    fig, ax = plt.subplots(figsize=(5.6, 4.6))
    if len(set(sizes)) > 1:
        points = ax.scatter(xs, ys, c=sizes, cmap="viridis", s=14)
        fig.colorbar(points, ax=ax, label="tables in the combination")
    else:
        ax.scatter(xs, ys, s=14, label=f"{len(combos)} subsets of {sizes[0] if sizes else 0} tables")
    top = max(xs + ys) * 1.05 if xs else 1
    ax.plot([0, top], [0, top], color="black", linestyle="--", linewidth=1, label="y = x")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel("sum of single-table costs (ms)")
    ax.set_ylabel("multi-table cost (ms)")
    ax.set_title("Observation 2: multi-table cost vs the sum of single costs", fontsize=10)
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.suptitle(heading(title, data), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_observation3(data, title, out):
    """Max forward and backward all-to-all cost vs max device dim sum, per device count."""
    groups = data["device_counts"]
    fig, axes = plt.subplots(1, len(groups), figsize=(5.2 * len(groups), 4.2), squeeze=False)
    for ax, group in zip(axes[0], groups):
        xs = [p["max_dim_sum"] for p in group["points"]]
        # Distinct markers: with equal start offsets the two can coincide.
        ax.scatter(xs, [p["max_forward_ms"] for p in group["points"]], s=18, marker="o",
                   facecolors="none", edgecolors="tab:blue", label="forward")
        ax.scatter(xs, [p["max_backward_ms"] for p in group["points"]], s=10, marker="x",
                   color="tab:orange", label="backward")
        ax.set_xlabel("max dim sum over devices")
        ax.set_ylabel("max comm cost over devices (ms)")
        ax.set_title(f"{group['num_devices']} devices")
        ax.legend()
        ax.grid(alpha=0.3)
    fig.suptitle(f"Observation 3: max comm cost vs max device dim sum ({heading(title, data)})",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="folder with observation{1,2,3}.json; the PNGs go there too")
    parser.add_argument("--title", default=None, help="figure title prefix (default: the folder name)")
    args = parser.parse_args()
    title = args.title or os.path.basename(os.path.normpath(args.dir))
    plots = [("observation1", plot_observation1, True), ("observation2", plot_observation2, True),
             ("observation3", plot_observation3, False)]
    for name, plot, required in plots:
        path = os.path.join(args.dir, name + ".json")
        if not os.path.exists(path):
            if required:
                print(f"plot_observations: {path} is missing", file=sys.stderr)
                return 1
            continue
        out = os.path.join(args.dir, name + ".png")
        plot(load(path), title, out)
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
