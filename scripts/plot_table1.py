#!/usr/bin/python3
"""Plots bench/reproduce_table1's JSON: mean ground-truth cost vs max dim per algorithm, one
panel per device count (docs/benchmarks.md).

  scripts/plot_table1.py [bench/results/table1.json] [--out bench/results/table1.png]

A setting where some task failed has no mean (the table's "-") and is left out of its line.
"""
import argparse
import json
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="?", default="bench/results/table1.json")
    parser.add_argument("--out", default=None, help="PNG path (default: the JSON's, .png)")
    args = parser.parse_args()
    out = args.out or args.json.rsplit(".", 1)[0] + ".png"
    with open(args.json) as f:
        doc = json.load(f)
    labels = [row["label"] for row in doc["config"]["rows"]]
    devices = sorted({s["devices"] for s in doc["settings"]})
    fig, axes = plt.subplots(1, len(devices), figsize=(6 * len(devices), 4.5), squeeze=False)
    for ax, n in zip(axes[0], devices):
        settings = sorted((s for s in doc["settings"] if s["devices"] == n),
                          key=lambda s: s["max_dim"])
        colors = plt.get_cmap("tab20").colors
        for i, label in enumerate(labels):
            points = [(s["max_dim"], s["summary"][label]["mean_cost_ms"]) for s in settings
                      if s["summary"][label]["mean_cost_ms"] is not None]
            if points:
                # Dashed: an ablation or reference-behaviour row (<algorithm>-analytic,
                # autoshard-reference), not a baseline. tab20: more rows than tab10's colours.
                ax.plot(*zip(*points), marker="o", label=label, color=colors[(2 * i) % 20
                        if i < 10 else (2 * i + 1) % 20],
                        linewidth=2.5 if label == "neuroshard" else 1.2,
                        linestyle="--" if label.endswith(("-analytic", "-reference")) else "-")
        ax.set_xscale("log", base=2)
        ax.set_xticks([s["max_dim"] for s in settings], [str(s["max_dim"]) for s in settings])
        ax.set_xlabel("max table dim")
        ax.set_ylabel("mean ground-truth cost (ms)")
        ax.set_title(f"{n} devices, {doc['config']['tasks']} tasks per point")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    # The cpu ground truth's description is long: wrap it to the figure's width.
    fig.suptitle(textwrap.fill(
        f"Table 1 reproduction (ground truth: {doc['config']['ground_truth']})",
        width=60 * len(devices)))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
