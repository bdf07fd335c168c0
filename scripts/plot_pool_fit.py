#!/usr/bin/python3
"""Shows how the synthetic table pool fits the published DLRM statistics.

Reads the pool and the fit report that `shardplan-offline tables generate-pool` writes beside it
(<pool>.fit.json), prints a Markdown comparison table (the one in docs/table-pool.md) and draws
docs/table-pool-fit.png: the pool's aggregate access histograms against the published ones, and
the distributions of rows and pooling factors with the published max/mean/min.

Usage: /usr/bin/python3 scripts/plot_pool_fit.py [--pool data/table_pool/dlrm_856.json]
           [--out docs/table-pool-fit.png]
Needs Debian's python3-matplotlib (scripts/install_deps.sh).
"""

import argparse
import json
import math
import os
import sys

BIN_LABELS = ["1", "2", "3-4"] + [f"{2**(j-1)+1}-{2**j}" for j in range(3, 16)] + [">32768"]


def fit_path_of(pool_path):
    base = pool_path[:-5] if pool_path.endswith(".json") else pool_path
    return base + ".fit.json"


def max_mean_min(values):
    return max(values), sum(values) / len(values), min(values)


def comparison_rows(fit, pool):
    """(quantity, published, pool) rows of the comparison table."""
    pub, got = fit["published"], fit["pool"]
    rows_raw = fit["per_table"]["rows_unclamped"]
    rows = [t["rows"] for t in pool["tables"]]
    pooling = [t["pooling_factor"] for t in pool["tables"]]
    out = []
    for name, published, values in [
        ("hash size (before the >= 100 clamp)", (12543670, 4107458, 1), rows_raw),
    ]:
        mx, mean, mn = max_mean_min(values)
        out += [(f"{name}: max", f"{published[0]:,}", f"{mx:,.0f}"),
                (f"{name}: mean", f"{published[1]:,}", f"{mean:,.1f}"),
                (f"{name}: min", f"{published[2]:,}", f"{mn:,.0f}")]
    mx, mean, mn = max_mean_min(rows)
    out.append(("rows in the pool (clamped): max / mean / min", "-",
                f"{mx:,} / {mean:,.1f} / {mn:,}"))
    mx, mean, mn = max_mean_min(pooling)
    truncated = sum(int(p) for p in pooling) / len(pooling)
    out += [("pooling factor: max", "193", f"{mx:g}"),
            ("pooling factor: mean (float; indices / (856 x 65536))",
             f"{pub['lookups'] / (856 * 65536):.4f}", f"{mean:.4f}"),
            ("pooling factor: mean of int() (AutoShard's truncation)", "15", f"{truncated:.2f}"),
            ("pooling factor: min", "0", f"{mn:g}"),
            ("indices per batch (\"Avg # of indices\")", f"{pub['lookups']:,.0f}",
             f"{got['lookups']:,.0f}"),
            ("distinct rows per batch (\"Avg # of unique cols\")", f"{pub['distinct_rows']:,.0f}",
             f"{got['distinct_rows']:,.0f}"),
            ("mean accesses per distinct row (\"Avg col size\")",
             f"{pub['lookups'] / pub['distinct_rows']:.2f}",
             f"{got['lookups'] / got['distinct_rows']:.2f}")]
    for key, label in [("rows_histogram", "col-size histogram"),
                       ("lookups_ratio", "index-distribution ratio")]:
        l1 = sum(abs(a - b) for a, b in zip(pub[key], got[key]))
        out.append((f"{label}: L1 distance (sum over 17 bins)", "0", f"{l1:.4f}"))
    return out


def print_tables(fit, pool):
    print("| quantity | published | pool |")
    print("|---|---:|---:|")
    for q, p, g in comparison_rows(fit, pool):
        print(f"| {q} | {p} | {g} |")
    print()
    print("| access count | col-size histogram, published | pool | index ratio, published | pool |")
    print("|---|---:|---:|---:|---:|")
    pub, got = fit["published"], fit["pool"]
    for j, label in enumerate(BIN_LABELS):
        print(f"| {label} | {pub['rows_histogram'][j]:.3f} | {got['rows_histogram'][j]:.3f} | "
              f"{pub['lookups_ratio'][j]:.3f} | {got['lookups_ratio'][j]:.3f} |")


def plot(fit, pool, out_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pub, got = fit["published"], fit["pool"]
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    x = list(range(17))
    for ax, key, title in [
            (axes[0][0], "rows_histogram",
             "Histogram of col sizes (fraction of distinct accessed rows)"),
            (axes[0][1], "lookups_ratio", "Ratio of index distribution (fraction of lookups)")]:
        ax.bar([i - 0.2 for i in x], pub[key], width=0.4, label="published (dlrm_datasets 2021)")
        ax.bar([i + 0.2 for i in x], got[key], width=0.4, label="synthetic pool (expected)")
        ax.set_xticks(x)
        ax.set_xticklabels(BIN_LABELS, rotation=60, fontsize=7)
        ax.set_xlabel("accesses of a row in one batch of 65536")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)

    rows_raw = fit["per_table"]["rows_unclamped"]
    ax = axes[1][0]
    ax.hist([math.log10(r) for r in rows_raw], bins=40, color="tab:green", alpha=0.8)
    mx, mean, mn = max_mean_min(rows_raw)
    for value, style, label in [(12543670, "-", "published max"), (4107458, "--", "published mean"),
                                (1, ":", "published min")]:
        ax.axvline(math.log10(value), color="k", linestyle=style, label=label)
    ax.set_xlabel("log10 hash size (before the >= 100 clamp)")
    ax.set_ylabel("tables")
    ax.set_title(f"Hash sizes: pool max/mean/min {mx:,.0f} / {mean:,.0f} / {mn:,.0f}", fontsize=10)
    ax.legend(fontsize=8)

    pooling = [t["pooling_factor"] for t in pool["tables"]]
    ax = axes[1][1]
    ax.hist(pooling, bins=60, color="tab:purple", alpha=0.8)
    ax.set_yscale("log")
    mx, mean, mn = max_mean_min(pooling)
    for value, style, label in [(193, "-", "published max"),
                                (pub["lookups"] / (856 * 65536), "--", "published mean (15.81)"),
                                (0, ":", "published min")]:
        ax.axvline(value, color="k", linestyle=style, label=label)
    ax.set_xlabel("pooling factor (mean lookups per sample)")
    ax.set_ylabel("tables (log)")
    ax.set_title(f"Pooling factors: pool max/mean/min {mx:g} / {mean:.2f} / {mn:g}", fontsize=10)
    ax.legend(fontsize=8)

    fig.suptitle(f"Synthetic table pool vs published statistics ({len(pool['tables'])} tables)")
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    print(f"wrote {out_path}", file=sys.stderr)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", default=os.path.join(root, "data/table_pool/dlrm_856.json"))
    parser.add_argument("--out", default=os.path.join(root, "docs/table-pool-fit.png"))
    args = parser.parse_args()
    with open(args.pool) as f:
        pool = json.load(f)
    with open(fit_path_of(args.pool)) as f:
        fit = json.load(f)
    print_tables(fit, pool)
    plot(fit, pool, args.out)


if __name__ == "__main__":
    main()
