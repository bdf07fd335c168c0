#!/usr/bin/python3
"""Plots ALIS's alpha / beta sensitivity from bench/alis_drift's JSON (docs/alis.md).

    /usr/bin/python3 bench/alis_sensitivity_plot.py [bench/results/alis_drift.json] [docs/alis-sensitivity.png]
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "bench/results/alis_drift.json"
    target = sys.argv[2] if len(sys.argv) > 2 else "docs/alis-sensitivity.png"
    with open(source) as f:
        data = json.load(f)
    sweep = data["sensitivity"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, parameter in zip(axes, ["alpha", "beta"]):
        rows = [r for r in sweep if r["parameter"] == parameter]
        x = [r["value"] for r in rows]
        ax.plot(x, [r["mean_latency_us"] for r in rows], "o-", color="tab:blue",
                label="mean latency (us)")
        ax.set_xlabel(parameter + (" (window share partitioned)" if parameter == "alpha"
                                   else " (history weight in the vote)"))
        ax.set_ylabel("mean simulated latency, us", color="tab:blue")
        twin = ax.twinx()
        twin.plot(x, [r["latency_std_us"] for r in rows], "s--", color="tab:red",
                  label="std across updates (us)")
        if parameter == "alpha":
            twin.plot(x, [r["update_ms_median"] / 10.0 for r in rows], "^:", color="tab:green",
                      label="update time (ms / 10)")
        twin.set_ylabel("std across updates, us" + (" / update ms / 10" if parameter == "alpha"
                                                     else ""), color="tab:red")
        lines = ax.get_lines() + twin.get_lines()
        ax.legend(lines, [line.get_label() for line in lines], loc="upper center", fontsize=8)
        ax.grid(alpha=0.3)
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
