#!/usr/bin/python3
"""Plots ALIS's alpha / beta sensitivity from bench/alis_drift's JSON (docs/alis.md).

    /usr/bin/python3 bench/alis_sensitivity_plot.py [bench/results/alis_drift.json] [docs/alis-sensitivity.png]
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def twin_panel(ax, rows, xlabel, left, right, legend_at):
    """One panel: rows' `left` series on ax, `right` on a twin axis; each (key, label, style,
    colour)."""
    x = [r["value"] for r in rows]
    twin = ax.twinx()
    for axis, (key, label, style, colour) in ((ax, left), (twin, right)):
        axis.plot(x, [r[key] for r in rows], style, color=colour, label=label)
        axis.set_ylabel(label, color=colour)
    ax.set_xlabel(xlabel)
    lines = ax.get_lines() + twin.get_lines()
    ax.legend(lines, [line.get_label() for line in lines], loc=legend_at, fontsize=8)
    ax.grid(alpha=0.3)


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "bench/results/alis_drift.json"
    target = sys.argv[2] if len(sys.argv) > 2 else "docs/alis-sensitivity.png"
    with open(source) as f:
        data = json.load(f)
    sweep = data["sensitivity"]
    alpha = [r for r in sweep if r["parameter"] == "alpha"]
    beta = [r for r in sweep if r["parameter"] == "beta"]
    latency = ("mean_latency_us", "mean simulated latency, us", "o-", "tab:blue")
    spread = ("latency_std_us", "std of window mean latency across updates, us", "s--", "tab:red")
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    twin_panel(axes[0], alpha, "alpha (window share partitioned)", latency, spread,
               "center right")
    twin_panel(axes[1], beta, "beta (history weight in the vote)", latency, spread,
               "center right")
    twin_panel(axes[2], alpha, "alpha",
               ("update_ms_median", "update CPU ms (median)", "^-", "tab:green"),
               ("rows_moved", "rows moved per update", "d--", "tab:purple"), "upper left")
    config = data["config"]
    fig.suptitle(f"ALIS sensitivity on the tuning seed {config['tune_seed']}: "
                 f"{config['fields']} fields x {config['rows_per_field']} rows, "
                 f"drift every {config['drift_every_windows']} windows of "
                 f"{config['window_requests']} requests", fontsize=10)
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
