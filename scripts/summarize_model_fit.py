#!/usr/bin/python3
"""Fit of a trained bundle on its test split: MSE, R^2 and mean relative error per sub-model.

Reads the CSVs `shardplan model train --predictions-dir DIR` writes (columns
sample,device,measured,predicted), one per sub-model.

  /usr/bin/python3 scripts/summarize_model_fit.py build/predictions/sim-rtx2080ti

MSE alone depends on the labels' scale (an H100's comm is 100x faster than a 2080 Ti's), so the
scale-free R^2 and relative error are printed beside it.
"""
import argparse
import csv
import os
import sys


def summarize(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"{path}: no rows")
    measured = [float(r["measured"]) for r in rows]
    predicted = [float(r["predicted"]) for r in rows]
    n = len(measured)
    mse = sum((m - p) ** 2 for m, p in zip(measured, predicted)) / n
    mean = sum(measured) / n
    variance = sum((m - mean) ** 2 for m in measured) / n
    relative = sum(abs(m - p) / abs(m) for m, p in zip(measured, predicted) if m != 0) / n
    return n, mse, 1.0 - mse / variance if variance > 0 else float("nan"), relative


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("predictions_dir")
    args = parser.parse_args()
    names = sorted(f[:-4] for f in os.listdir(args.predictions_dir) if f.endswith(".csv"))
    if not names:
        sys.exit(f"{args.predictions_dir}: no <sub-model>.csv files")
    print("| sub-model | test rows | test MSE (ms^2) | R^2 | mean relative error |")
    print("|---|---|---|---|---|")
    for name in names:
        n, mse, r2, relative = summarize(os.path.join(args.predictions_dir, name + ".csv"))
        print(f"| {name} | {n} | {mse:.3g} | {r2:.4f} | {100 * relative:.2f}% |")


if __name__ == "__main__":
    main()
