#!/usr/bin/python3
"""How well "outside the training range" flags the tables a model gets badly wrong.

The range: every raw table feature (17 bins, dim, pooling factor, rows) over the (table, dim)
configurations of a compute cost-data file, as `model train` records it in a bundle. A case is
flagged when any feature lies outside. The errors: single_table_sweep.py's output (model vs
simulator). Needs numpy (Debian's /usr/bin/python3 has it). docs/cost-models.md, "Outside the
training data".

    /usr/bin/python3 scripts/investigations/range_flags.py /tmp/sweep_s1.jsonl /tmp/sweep_s2.jsonl
"""
import argparse
import gzip
import json

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweeps", nargs="+")
    parser.add_argument("--data", default="data/cost_data/sim-rtx2080ti/compute.jsonl.gz")
    parser.add_argument("--pool", default="data/table_pool/dlrm_856.json")
    parser.add_argument("--models", default="rtx@2=gt_rtx,h100@2=gt_h100",
                        help="MODEL_KEY=TRUTH_KEY,... of the sweep's records")
    args = parser.parse_args()
    pool = json.load(open(args.pool))["tables"]
    seen = set()
    with gzip.open(args.data, "rt") as f:
        for line in f:
            seen.update((p, d) for p, d in json.loads(line)["tables"])
    rows = np.array([pool[p]["access_bins"] + [d, pool[p]["pooling_factor"], pool[p]["rows"]]
                     for p, d in seen], dtype=np.float32)
    lo, hi = rows.min(axis=0), rows.max(axis=0)
    for model, truth in (pair.split("=") for pair in args.models.split(",")):
        for path in args.sweeps:
            cases = [json.loads(line) for line in open(path)]
            flagged, inside = [], []
            for c in cases:
                x = np.array(c["bins"] + [c["dim"], c["pf"], c["rows"]], dtype=np.float32)
                error = abs(c[model] - c[truth]) / c[truth]
                (flagged if np.any((x < lo) | (x > hi)) else inside).append(error)
            bad = sum(e > 0.5 for e in flagged + inside)
            print(f"{model} {path}: {len(cases)} cases, {len(flagged)} flagged; "
                  f"{bad} more than 50% off, {sum(e > 0.5 for e in flagged)} of them flagged; "
                  f"unflagged p95 {np.percentile(inside, 95):.1%}, max {max(inside):.0%}; "
                  f"flagged max {max(flagged) if flagged else 0:.0%}")


if __name__ == "__main__":
    main()
