#!/usr/bin/env python3
"""torch's shard-metadata checks, run on a TorchRec ShardingPlan JSON (ShardingPlan._serialize).

TorchRec turns the "shards" of each sharded table into torch.distributed._shard ShardMetadata
in an EnumerableShardingSpec, and the table into a ShardedTensor of shape [rows, dim]. torch then
checks (pytorch/pytorch, torch/distributed/_shard/):
- ShardMetadata.__init__ (metadata.py): as many offsets as sizes, none negative; the placement
  parses as a _remote_device (torch/distributed/remote_device.py): "rank:R/<device>",
  "<worker>/<device>" or "<device>".
- EnumerableShardingSpec.__post_init__ (sharding_spec/api.py): at least one shard, all of one
  rank (number of dimensions), no two overlapping: validate_non_overlapping_shards_metadata
  (sharding_spec/_internals.py), with _check_shard_metadata_pair_overlap's notion of overlap.
- check_tensor (sharding_spec/_internals.py, from EnumerableShardingSpec.build_metadata): the
  tensor's rank, every shard within the tensor, and the shards' volumes summing to the tensor's
  (with no overlap: they cover it).
A data_parallel table has no "shards" (TorchRec's sharding_spec is None): nothing to check.

torch is not installed where shardplan's tests run, and its source (BSD-3-Clause) is not
copied here: the checks below are written from those functions to accept and refuse what they
do, for shards of any dimensions, empty ones included. Read at pytorch/pytorch commits
107961db83ef (sharding_spec/_internals.py), cc28dc6c5192 (sharding_spec/api.py), 7d1f30fece2e
(_shard/metadata.py) and 067f1d9d1fec (distributed/remote_device.py); on 300,000 random shard
lists of 1 to 3 dimensions, overlapping_pair and check_tensor agreed with _internals.py's
validate_non_overlapping_shards_metadata and check_tensor every time. torch.device is not
reimplemented: placements' devices are matched against the types TorchRec uses (cpu, cuda,
mtia, meta, xpu, mps, hpu, with an optional index).

Given a torch source tree (--torch PATH, or $SHARDPLAN_TORCH_SOURCE in the tests), torch's own
validate_non_overlapping_shards_metadata and check_tensor run as well, lifted out of
_internals.py with `ast` as tests/oracles/torchrec_estimator_oracle.py lifts TorchRec's code.

    python3 tests/oracles/torch_shard_checks.py --task TASK.json [--torch PATH] PLAN.json
    # exit 0: every table passes; 1: the first failure on stderr; PLAN may be "-" (stdin)
"""
import argparse
import ast
import bisect
import itertools
import json
import math
import os
import pathlib
import re
import sys
import typing

# torch.device's spelling of the devices TorchRec places shards on, with an optional index.
_DEVICE = re.compile(r"^(cpu|cuda|mtia|meta|xpu|mps|hpu)(:(0|[1-9][0-9]*))?$")


class ShardMetadata:
    """torch's ShardMetadata, as far as its checks go: constructing one checks it."""

    __slots__ = ["shard_offsets", "shard_sizes", "placement"]

    def __init__(self, shard_offsets, shard_sizes, placement=None):
        if len(shard_offsets) != len(shard_sizes):
            raise ValueError(f"shard_offsets and shard_sizes should have the same number of "
                             f"elements, found {len(shard_offsets)} and {shard_sizes} "
                             f"respectively")
        if any(offset < 0 for offset in shard_offsets):
            raise ValueError("shard_offsets should be >=0")
        if any(size < 0 for size in shard_sizes):
            raise ValueError("shard_sizes should be >= 0")
        if placement is not None:
            check_remote_device(placement)
        self.shard_offsets = list(shard_offsets)
        self.shard_sizes = list(shard_sizes)
        self.placement = placement

    def __repr__(self):
        return (f"ShardMetadata(shard_offsets={self.shard_offsets}, "
                f"shard_sizes={self.shard_sizes}, placement={self.placement})")


def check_remote_device(text):
    """Raises ValueError where torch's _remote_device(text) would not parse it."""
    error = ValueError(f"Could not parse remote_device: {text}. The valid format is "
                       "'<workername>/<device>' or 'rank:<rank>/<device>' or '<device>'")
    fields = text.split("/")
    if len(fields) > 2:
        raise error
    if len(fields) == 1:
        if _DEVICE.match(fields[0]):
            return
        worker, device = fields[0], "cpu"
    else:
        worker, device = fields
    if not worker or not _DEVICE.match(device):
        raise error
    parts = worker.split(":")
    if len(parts) > 2 or (len(parts) == 2 and (parts[0] != "rank" or not parts[1].isdigit())):
        raise error


def _sharded_dims(shards):
    """The dimensions along which some shard differs from the first, in offset or size."""
    first = shards[0]
    return [d for d in range(len(first.shard_offsets))
            if any(s.shard_offsets[d] != first.shard_offsets[d] or
                   s.shard_sizes[d] != first.shard_sizes[d] for s in shards[1:])]


def overlapping_pair(shards):
    """Two shards torch takes as overlapping, by index, or None.

    Two shards overlap where their inclusive ranges [offset, offset + size - 1] meet in every
    dimension compared, so an empty shard overlaps a shard whose range strictly contains its
    offset, and empty shards never overlap each other. Shards split along one dimension are
    compared along it alone (torch's interval check); split along several, along every
    dimension (_check_shard_metadata_pair_overlap). Shards alike in every dimension all
    overlap, unless all are empty at the origin."""
    if len(shards) < 2:
        return None
    dims = _sharded_dims(shards)
    if not dims:
        empty_at_origin = all(all(o == 0 for o in s.shard_offsets) and
                              math.prod(s.shard_sizes) == 0 for s in shards)
        return None if empty_at_origin else (0, 1)
    if len(dims) > 1:
        dims = range(len(shards[0].shard_offsets))
    for i, j in itertools.combinations(range(len(shards)), 2):
        a, b = shards[i], shards[j]
        if all(a.shard_offsets[d] <= b.shard_offsets[d] + b.shard_sizes[d] - 1 and
               b.shard_offsets[d] <= a.shard_offsets[d] + a.shard_sizes[d] - 1 for d in dims):
            return (i, j)
    return None


def check_enumerable_sharding_spec(shards):
    """EnumerableShardingSpec(shards).__post_init__."""
    if not shards:
        raise ValueError(f"Empty shard list provided: {shards}")
    ranks = {len(s.shard_offsets) for s in shards}
    if len(ranks) > 1:
        raise ValueError(f"Found inconsistent ranks for shards: {sorted(ranks)}")
    pair = overlapping_pair(shards)
    if pair:
        raise ValueError(f"Shards {shards[pair[0]]} and {shards[pair[1]]} overlap")


def check_tensor(shards, tensor_dims):
    """check_tensor(shards, tensor_dims): shards within the tensor, their volume the tensor's."""
    if len(tensor_dims) != len(shards[0].shard_offsets):
        raise ValueError(f"Rank of tensor is {len(tensor_dims)}, but shards rank is "
                         f"{len(shards[0].shard_offsets)}")
    for shard in shards:
        for d, size in enumerate(shard.shard_sizes):
            if shard.shard_offsets[d] + size > tensor_dims[d]:
                raise ValueError(f"Shard offset {shard.shard_offsets[d]} and length {size} "
                                 f"exceeds tensor dim: {tensor_dims[d]} for shard {shard}")
    volume = sum(math.prod(s.shard_sizes) for s in shards)
    if volume != math.prod(tensor_dims):
        raise ValueError(f"Total volume of shards: {volume} does not match tensor volume: "
                         f"{math.prod(tensor_dims)}, in other words all the individual shards "
                         f"do not cover the entire tensor")


def lift_torch_checks(torch_source):
    """torch's own validate_non_overlapping_shards_metadata and check_tensor, executed from
    torch/distributed/_shard/sharding_spec/_internals.py under `torch_source` (its module-level
    functions only, so that torch need not be importable)."""
    path = (pathlib.Path(torch_source) / "torch" / "distributed" / "_shard" / "sharding_spec" /
            "_internals.py")
    tree = ast.parse(path.read_text())
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    namespace = {"math": math, "sys": sys, "bisect_right": bisect.bisect_right,
                 "insort": bisect.insort, "ShardMetadata": ShardMetadata}
    namespace.update({name: getattr(typing, name) for name in typing.__all__})
    exec(compile(ast.Module(body=functions, type_ignores=[]), str(path), "exec"), namespace)
    return namespace["validate_non_overlapping_shards_metadata"], namespace["check_tensor"]


def check_sharding_plan(sharding_plan, shapes, torch_source=None):
    """Runs torch's checks on every table of every module of `sharding_plan` (the JSON dict),
    `shapes` giving each table's [rows, dim]. Raises ValueError naming the table at the first
    failure; returns the names of the tables checked (data_parallel ones have no shards)."""
    torch_checks = lift_torch_checks(torch_source) if torch_source else None
    checked = []
    for module, tables in sharding_plan["plan"].items():
        for name, sharding in tables.items():
            if sharding.get("shards") is None:
                continue  # sharding_spec None: TorchRec builds no ShardedTensor metadata
            field = f"plan.{module}.{name}"
            try:
                shards = [ShardMetadata(s["shard_offsets"], s["shard_sizes"], s["placement"])
                          for s in sharding["shards"]]
                check_enumerable_sharding_spec(shards)
                check_tensor(shards, list(shapes[name]))
                if torch_checks:
                    validate_non_overlapping, torch_check_tensor = torch_checks
                    validate_non_overlapping(shards)
                    torch_check_tensor(shards, list(shapes[name]))
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(f"{field}: {error}") from None
            checked.append(name)
    return checked


def task_shapes(task):
    """Table name -> [rows, dim] of a task's JSON dict."""
    return {t["name"]: [int(t["rows"]), int(t["dim"])] for t in task["tables"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("plan", help="TorchRec ShardingPlan JSON, '-' for standard input")
    parser.add_argument("--task", required=True, help="the task: the tables' shapes")
    parser.add_argument("--torch", default=os.environ.get("SHARDPLAN_TORCH_SOURCE"),
                        help="a torch source tree: run its own checks too")
    args = parser.parse_args()
    with open(args.task) as f:
        shapes = task_shapes(json.load(f))
    if args.plan == "-":
        sharding_plan = json.load(sys.stdin)
    else:
        with open(args.plan) as f:
            sharding_plan = json.load(f)
    try:
        checked = check_sharding_plan(sharding_plan, shapes, args.torch)
    except ValueError as error:
        print(f"torch_shard_checks: {error}", file=sys.stderr)
        sys.exit(1)
    print(f"torch_shard_checks: {len(checked)} sharded tables pass: {', '.join(checked)}")


if __name__ == "__main__":
    main()
