#!/usr/bin/env python3
"""Writes a training pool: the shipped pool plus more draws of its generator.

The sim bundles' compute data is drawn from such pools, so that their training data covers
tables the shipped pool barely has (tiny tables whose accesses sit in the hottest histogram
bins: docs/investigations/tiny-hot-tables.md). Tables keep their fields and are renamed
"s<seed>_<name>" (DLRM-shaped draws) or "c<seed>_<name>" (log-uniform coverage draws,
`tables generate-pool --shape log-uniform`). Seeds 1 and 2 stay held out
(bench/heldout_suites.sh uses 1).

    scripts/make_augmented_pool.py                     # data/table_pool/dlrm_2568.json (v3)
    scripts/make_augmented_pool.py --coverage-seeds 5 --out data/table_pool/train_3424.json  # v5
    scripts/make_augmented_pool.py --coverage-seeds 5 --wide-seeds 6 \
        --out data/table_pool/train_4280.json                                          # v7

Wide draws ("w<seed>_<name>") are coverage draws over wider ranges (--wide-max-rows,
--wide-max-pooling): the row shards of tables larger than a device and the hot tables of
sequence-heavy models (pooling factors in the thousands), which the published DLRM statistics
(at most 12.5M rows, pooling 193) never reach.
"""
import argparse
import json
import os
import subprocess
import tempfile

SHIPPED = "data/table_pool/dlrm_856.json"


def describe(prefix, shape, seed, max_rows, wide):
    if prefix == "w":
        return f"seed {seed} (log-uniform, rows <= {wide[0]}, pooling <= {wide[1]:g})"
    return f"seed {seed} ({shape}" + (f", rows <= {max_rows}" if max_rows and shape != "dlrm" else "") + ")"


def source_of(draws, max_rows, wide=(0, 0)):
    """The pool's "source"; without coverage draws the words of dlrm_2568.json, whose SHA-256
    the version-3 cost data records."""
    if all(shape == "dlrm" for _, shape, _ in draws):
        return (f"dlrm_856 (GenerateSyntheticPool seed 0) and GenerateSyntheticPool seeds "
                f"{', '.join(str(seed) for _, _, seed in draws)}, tables renamed s<seed>_<name> "
                "(scripts/make_augmented_pool.py; docs/table-pool.md)")
    return ("dlrm_856 (GenerateSyntheticPool seed 0) and GenerateSyntheticPool " +
            ", ".join(describe(prefix, shape, seed, max_rows, wide) for prefix, shape, seed in draws) +
            ("; tables renamed s<seed>_<name> (dlrm), c<seed>_<name> (log-uniform) or "
             "w<seed>_<name> (wide log-uniform) "
             if any(prefix == "w" for prefix, _, _ in draws) else
             "; tables renamed s<seed>_<name> (dlrm) or c<seed>_<name> (log-uniform) ") +
            "(scripts/make_augmented_pool.py; docs/table-pool.md)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--seeds", default="3,4")
    parser.add_argument("--coverage-seeds", default="",
                        help="seeds of log-uniform coverage draws to add (none by default)")
    parser.add_argument("--coverage-max-rows", type=int, default=0,
                        help="the coverage draws' largest table (0: the generator's default)")
    parser.add_argument("--wide-seeds", default="",
                        help="seeds of wide log-uniform draws to add (none by default)")
    parser.add_argument("--wide-max-rows", type=int, default=2_000_000_000)
    parser.add_argument("--wide-max-pooling", type=float, default=5000.0)
    parser.add_argument("--out", default="data/table_pool/dlrm_2568.json")
    args = parser.parse_args()
    draws = [("s", "dlrm", int(s)) for s in args.seeds.split(",") if s]
    draws += [("c", "log-uniform", int(s)) for s in args.coverage_seeds.split(",") if s]
    draws += [("w", "log-uniform", int(s)) for s in args.wide_seeds.split(",") if s]
    pools = [("s0", SHIPPED)]
    with tempfile.TemporaryDirectory() as tmp:
        for prefix, shape, seed in draws:
            path = os.path.join(tmp, f"pool_{prefix}{seed}.json")
            subprocess.run([os.path.join(args.build, "client/cli/shardplan-offline"), "tables",
                            "generate-pool", "--seed", str(seed), "--shape", shape, "--out", path]
                           + (["--max-rows", str(args.coverage_max_rows)]
                              if prefix == "c" and args.coverage_max_rows else [])
                           + (["--max-rows", str(args.wide_max_rows),
                               "--max-pooling", str(args.wide_max_pooling)]
                              if prefix == "w" else []),
                           check=True, capture_output=True)
            pools.append((f"{prefix}{seed}", path))
        tables = []
        for tag, path in pools:
            for table in json.load(open(path))["tables"]:
                tables.append(dict(table, name=f"{tag}_{table['name']}"))
    out = {"format_version": 1,
           "source": source_of(draws, args.coverage_max_rows,
                               (args.wide_max_rows, args.wide_max_pooling)),
           "tables": tables}
    with open(args.out, "w") as f:  # the shipped pool's layout: one table per line
        f.write('{"format_version": 1,\n "source": ' + json.dumps(out["source"]) +
                ',\n "tables": [\n')
        f.write(",\n".join("  " + json.dumps(t, separators=(",", ":")) for t in tables))
        f.write("\n ]\n}\n")
    print(f"{args.out}: {len(tables)} tables")


if __name__ == "__main__":
    main()
