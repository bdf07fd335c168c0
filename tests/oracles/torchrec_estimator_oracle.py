#!/usr/bin/env python3
"""Per-shard perf from TorchRec's own estimator code, for shardplan's estimator tests.

Runs the functions of torchrec/distributed/planner/shard_estimators.py
(_get_{tw,rw,twrw,dp}_sharding_perf), types.py (BasicCommsBandwidths) and constants.py
unchanged, lifted out of their modules with `ast` so that neither torch nor torchrec need be
installed, and prints the perf of the cases tests/unit/planner/estimators/ hold shardplan to.

    python3 tests/oracles/torchrec_estimator_oracle.py --torchrec PATH

PATH is a torchrec checkout (the numbers in the tests come from snapshot a48cef79).
"""
import argparse
import ast
import enum
import math
import pathlib
from dataclasses import dataclass
from typing import List, Optional

METHODS = ["_get_tw_sharding_perf", "_get_rw_sharding_perf", "_get_twrw_sharding_perf",
           "_get_dp_sharding_perf", "_get_expected_cache_prefetch_time"]


@dataclass
class Perf:
    fwd_compute: float
    fwd_comms: float
    bwd_compute: float
    bwd_comms: float
    prefetch_compute: float = 0.0


class CollectiveType(enum.Enum):
    ALL_TO_ALL = "all_to_all"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_GATHER = "all_gather"
    ALL_REDUCE = "all_reduce"


def lift(path: pathlib.Path, class_name: str, names: List[str], namespace: dict) -> dict:
    """Executes the named methods of class_name in path as plain functions in namespace."""
    tree = ast.parse(path.read_text())
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            body = [n for n in node.body if isinstance(n, ast.FunctionDef) and
                    (not names or n.name in names)]
            cls = ast.ClassDef(name=class_name, bases=[], keywords=[], body=body,
                               decorator_list=[])
            module = ast.Module(body=[cls], type_ignores=[])
            ast.fix_missing_locations(module)
            exec(compile(module, str(path), "exec"), namespace)
            found = namespace[class_name]
    if not found:
        raise SystemExit(f"{class_name} not found in {path}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torchrec", required=True, type=pathlib.Path)
    args = parser.parse_args()
    planner = args.torchrec / "torchrec/distributed/planner"

    namespace = {"math": math, "List": List, "Optional": Optional, "Perf": Perf,
                 "CollectiveType": CollectiveType, "GeneralizedCommsBandwidth": object,
                 "classmethod": classmethod, "property": property, "float": float}
    constants = ast.parse((planner / "constants.py").read_text())
    for node in constants.body:  # the module's constants only
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            exec(compile(ast.Module(body=[node], type_ignores=[]), "constants", "exec"),
                 namespace)
    comms = lift(planner / "types.py", "BasicCommsBandwidths", [], namespace)
    estimator = lift(planner / "shard_estimators.py", "EmbeddingPerfEstimator", METHODS, namespace)

    hbm_bw = namespace["HBM_MEM_BW"]
    common = dict(input_data_type_size=8, table_data_type_size=4, output_data_type_size=4,
                  num_poolings=[1.0], hbm_to_ddr_mem_bw=namespace["HBM_TO_DDR_MEM_BW"],
                  device_bw=hbm_bw, bwd_compute_multiplier=2,
                  weighted_feature_bwd_compute_multiplier=1, is_pooled=True)
    a2a = dict(fwd_a2a_comm_data_type_size=4, bwd_a2a_comm_data_type_size=4)
    sr = dict(fwd_sr_comm_data_type_size=4, bwd_sr_comm_data_type_size=4)
    # (name, world, local, per-rank batch, pooling factor, columns, rows)
    cases = [("w4_l4", 4, 4, 512, 10.0, 64, 1000), ("w16_l8", 16, 8, 512, 10.0, 64, 1000),
             ("w32_l8", 32, 8, 256, 3.5, 128, 250000)]
    for name, world, local, batch, pf, dim, rows in cases:
        bw = comms()
        base = dict(batch_sizes=[batch], world_size=world, local_world_size=local,
                    input_lengths=[pf], emb_dim=dim, comms_bandwidths=bw, **common)
        perfs = {
            "tw": estimator._get_tw_sharding_perf(**base, **a2a),
            "rw": estimator._get_rw_sharding_perf(**base, **a2a, **sr),
            "twrw": estimator._get_twrw_sharding_perf(**base, **a2a, **sr),
            "dp": estimator._get_dp_sharding_perf(
                **{k: v for k, v in base.items() if k not in ("hbm_to_ddr_mem_bw",)},
                grad_num_elem=rows * dim),
        }
        for kind, p in perfs.items():
            print(f"{name} {kind} rows={rows} fwd_compute={p.fwd_compute:.12e} "
                  f"fwd_comms={p.fwd_comms:.12e} bwd_compute={p.bwd_compute:.12e} "
                  f"bwd_comms={p.bwd_comms:.12e}")


if __name__ == "__main__":
    main()
