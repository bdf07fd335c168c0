#!/usr/bin/env python3
"""Writes data/table_pool/dlrm_2568.json: the shipped pool plus two more draws of its generator.

The version-3 sim bundles are trained on compute data drawn from this pool, so that their
training data covers tables the shipped pool barely has (tiny tables whose accesses sit in the
hottest histogram bins: docs/investigations/tiny-hot-tables.md). Tables keep their fields and
are renamed "s<seed>_<name>". Seeds 1 and 2 stay held out (bench/heldout_suites.sh uses 1).

    scripts/make_augmented_pool.py [--build build] [--seeds 3,4] [--out data/table_pool/dlrm_2568.json]
"""
import argparse
import json
import os
import subprocess
import tempfile

SHIPPED = "data/table_pool/dlrm_856.json"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--seeds", default="3,4")
    parser.add_argument("--out", default="data/table_pool/dlrm_2568.json")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    pools = [("s0", SHIPPED)]
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            path = os.path.join(tmp, f"pool_s{seed}.json")
            subprocess.run([os.path.join(args.build, "client/cli/shardplan-offline"), "tables",
                            "generate-pool", "--seed", str(seed), "--out", path],
                           check=True, capture_output=True)
            pools.append((f"s{seed}", path))
        tables = []
        for tag, path in pools:
            for table in json.load(open(path))["tables"]:
                tables.append(dict(table, name=f"{tag}_{table['name']}"))
    out = {"format_version": 1,
           "source": (f"dlrm_856 (GenerateSyntheticPool seed 0) and GenerateSyntheticPool seeds "
                      f"{', '.join(map(str, seeds))}, tables renamed s<seed>_<name> "
                      "(scripts/make_augmented_pool.py; docs/table-pool.md)"),
           "tables": tables}
    with open(args.out, "w") as f:  # the shipped pool's layout: one table per line
        f.write('{"format_version": 1,\n "source": ' + json.dumps(out["source"]) +
                ',\n "tables": [\n')
        f.write(",\n".join("  " + json.dumps(t, separators=(",", ":")) for t in tables))
        f.write("\n ]\n}\n")
    print(f"{args.out}: {len(tables)} tables")


if __name__ == "__main__":
    main()
