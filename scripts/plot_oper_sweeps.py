#!/usr/bin/python3
"""Plots bench/oper_sweeps's JSON: OPER's communication per iteration (log) and the simulated step
against extra memory, one line per topology, objective and Zipf exponent (docs/benchmarks.md).

  scripts/plot_oper_sweeps.py [bench/results/oper_sweeps.json]
      [--out docs/observations/oper_comm_by_extra_memory.png]

A run without simulated steps (--sim-profile none) gets the communication panel alone.
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def series_of(entries):
    """The entries by (topology, objective, exponent), each series in ascending extra memory."""
    series = {}
    for e in entries:
        series.setdefault((e["topology"], e["objective"], e["zipf_exponent"]), []).append(e)
    for rows in series.values():
        rows.sort(key=lambda e: e["sweep_value"])
    return series


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="?", default="bench/results/oper_sweeps.json")
    parser.add_argument("--out", default="docs/observations/oper_comm_by_extra_memory.png")
    args = parser.parse_args()
    with open(args.json) as f:
        doc = json.load(f)
    series = series_of(doc["memory_sweep"])
    simulated = any(e.get("sim_step_ms") is not None for e in doc["memory_sweep"])
    panels = 2 if simulated else 1
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 4.8), squeeze=False)
    # Colour: topology and objective; line style: exponent.
    keys = sorted({(t, o) for t, o, _ in series})
    colors = dict(zip(keys, plt.get_cmap("tab10").colors))
    exponents = sorted({s for _, _, s in series}, reverse=True)
    styles = dict(zip(exponents, ["-", "--", ":", "-."]))
    for (topology, objective, exponent), rows in sorted(series.items()):
        x = [100 * e["sweep_value"] for e in rows]
        style = dict(color=colors[(topology, objective)], linestyle=styles[exponent], marker="o",
                     label=f"{topology} {objective.lower()}, s={exponent:g}")
        axes[0][0].plot(x, [e["comm_us.with_copies"] for e in rows], **style)
        if simulated:
            axes[0][1].plot(x, [e["sim_step_ms"] for e in rows], **style)
    ax = axes[0][0]
    ax.set_yscale("log")
    ax.set_xlabel("extra memory for copies (% of the tables' footprint)")
    ax.set_ylabel("row fetches per iteration (us, OPER's Eq. 3 under L)")
    ax.set_title("Communication (comm_us.with_copies)")
    ax.grid(True, which="both", alpha=0.3)
    # The legend goes where the lines leave room: the step panel's middle when there is one.
    if simulated:
        axes[0][1].legend(fontsize=7, ncol=2, loc="center", bbox_to_anchor=(0.55, 0.55))
    else:
        ax.legend(fontsize=7)
    if simulated:
        ax = axes[0][1]
        ax.set_xlabel("extra memory for copies (% of the tables' footprint)")
        ax.set_ylabel("step (ms)")
        ax.set_title(f"Simulated step (sim:{doc['config']['sim_profile']})")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    fig.suptitle("OPER on Criteo-Kaggle-shaped tasks (bench/oper_sweeps)", fontsize=11)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
