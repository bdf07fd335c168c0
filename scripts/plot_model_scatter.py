#!/usr/bin/python3
"""Predicted vs measured cost on the test split, one panel per sub-model (paper Figure 8 left).

Reads the CSVs `shardplan model train --predictions-dir DIR` writes (DIR/<sub-model>.csv with
columns sample,device,measured,predicted) and writes one PNG.

  /usr/bin/python3 scripts/plot_model_scatter.py DIR --out scatter.png [--title TEXT]
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

# Training order: compute first, then each device count's forward and backward model.
def sort_key(name):
    if name == "compute":
        return (0, 0, "")
    parts = name.split("_")  # comm_<N>_<direction>
    if len(parts) == 3 and parts[1].isdigit():
        return (1, int(parts[1]), parts[2] != "forward")
    return (2, 0, name)


def read_predictions(path):
    measured, predicted = [], []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = {"measured", "predicted"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
        for line, row in enumerate(reader, start=2):
            try:
                measured.append(float(row["measured"]))
                predicted.append(float(row["predicted"]))
            except ValueError as e:
                raise ValueError(f"{path}:{line}: {e}") from None
    return measured, predicted


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictions_dir", help="the --predictions-dir of model train")
    parser.add_argument("--out", default="model_scatter.png", help="PNG to write")
    parser.add_argument("--title", default="", help="figure title (e.g. the bundle name)")
    args = parser.parse_args()

    names = sorted(
        (f[:-4] for f in os.listdir(args.predictions_dir) if f.endswith(".csv")), key=sort_key)
    if not names:
        sys.exit(f"plot_model_scatter: no <sub-model>.csv in {args.predictions_dir}")
    cols = min(3, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 4.0 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        try:
            measured, predicted = read_predictions(os.path.join(args.predictions_dir, name + ".csv"))
        except (OSError, ValueError) as e:
            sys.exit(f"plot_model_scatter: {e}")
        n = len(measured)
        mse = sum((p - m) ** 2 for m, p in zip(measured, predicted)) / n if n else float("nan")
        ax.scatter(measured, predicted, s=2, alpha=0.3, linewidths=0)
        low = min(measured + predicted, default=0.0)
        high = max(measured + predicted, default=1.0)
        ax.plot([low, high], [low, high], color="black", linewidth=0.8, label="y = x")
        ax.set_title(f"{name}  (test MSE {mse:.4g}, n={n})", fontsize=9)
        # The collective model is trained on, and its predictions saved as, ln(ms) per member.
        unit = "ln ms" if name == "collectives" else "ms"
        ax.set_xlabel(f"measured ({unit})")
        ax.set_ylabel(f"predicted ({unit})")
        ax.legend(loc="upper left", fontsize=8)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"{args.out}: {len(names)} panels")


if __name__ == "__main__":
    main()
