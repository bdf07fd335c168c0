#!/usr/bin/python3
"""Compare GPU-measured compute costs with the simulator's labels for the same samples.

Joins a `collect_gpu_cost_data.py compute` output with the sim records it measured (by id),
prints how far the simulated profile is from the measured GPU (overall and by table count,
Spearman rank correlation included) as a markdown table, and draws measured vs simulated ms.

    /usr/bin/python3 scripts/gpu/compare_gpu_with_sim.py GPU.jsonl[.gz] SIM.jsonl[.gz] \
        [--plot OUT.png] [--markdown OUT.md]
"""
import argparse
import gzip
import json
import math
import os
import statistics
import sys

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def read_records(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):  # ties share their mean rank
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2.0
        i = j + 1
    return result


def pearson(x, y):
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def spearman(x, y):
    return pearson(ranks(x), ranks(y))


def quantile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(p * (len(s) - 1) + 0.5))]


def row(label, pairs):
    gpu = [g for g, _ in pairs]
    sim = [s for _, s in pairs]
    ratio = [g / s for g, s in pairs]
    return (f"| {label} | {len(pairs)} | {statistics.median(gpu):.3f} | {statistics.median(sim):.3f} "
            f"| {statistics.median(ratio):.2f} | {quantile(ratio, 0.1):.2f}-{quantile(ratio, 0.9):.2f} "
            f"| {spearman(gpu, sim):.3f} |")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gpu")
    parser.add_argument("sim")
    parser.add_argument("--plot", default="")
    parser.add_argument("--markdown", default="")
    args = parser.parse_args(argv)

    gpu = {r["id"]: r for r in read_records(args.gpu) if r["kind"] == "compute"}
    sim = {r["id"]: r for r in read_records(args.sim) if r["kind"] == "compute"}
    ids = sorted(set(gpu) & set(sim))
    if not ids:
        raise SystemExit("no sample id is in both files")
    for i in ids:
        if gpu[i]["tables"] != sim[i]["tables"]:
            raise SystemExit(f"id {i}: the files measured different tables")
    by_count = {}
    for i in ids:
        by_count.setdefault(len(gpu[i]["tables"]), []).append((gpu[i]["ms"], sim[i]["ms"]))
    pairs = [(gpu[i]["ms"], sim[i]["ms"]) for i in ids]
    first = gpu[ids[0]]
    lines = [
        f"GPU: {first['hardware_profile']} ({args.gpu}); simulator: "
        f"{sim[ids[0]]['hardware_profile']} ({args.sim}); batch {first['batch_size']}, "
        f"pool {first['pool']}",
        "",
        "| tables | samples | GPU median ms | sim median ms | GPU/sim median | GPU/sim p10-p90 "
        "| Spearman |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for count in sorted(by_count):
        lines.append(row(str(count), by_count[count]))
    lines.append(row("all", pairs))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6.2, 5))
        counts = [len(gpu[i]["tables"]) for i in ids]
        points = ax.scatter([s for _, s in pairs], [g for g, _ in pairs], s=10, c=counts,
                            cmap="viridis")
        fig.colorbar(points, ax=ax, label="tables in the sample")
        lo = min(min(p) for p in pairs) * 0.8
        hi = max(max(p) for p in pairs) * 1.25
        ax.plot([lo, hi], [lo, hi], color="grey", linewidth=0.8, label="equal")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"simulated ms ({sim[ids[0]]['hardware_profile']})")
        ax.set_ylabel(f"measured ms ({first['hardware_profile']})")
        ax.set_title("fwd+bwd+update per sample, same tables and batch")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1:])
