"""A table's TorchRec ParameterConstraints (torchrec/distributed/planner/types.py) as the
fields of its shardplan.v1.Table, or an InvalidTaskError naming the table and the field that
shardplan cannot honour.

Honoured: sharding_types (the ones shardplan plans: table_wise, column_wise, row_wise,
table_row_wise, data_parallel; others in the list are not used), intersected with what the
table's sharder supports on the compute device (_sharders.py), compute_kernels (shardplan's
plans use "fused", and "dense" for data_parallel, so the list must allow one of them),
pooling_factors (their sum is the table's pooling factor; TorchRec's default is one feature of
1.0), device_group (must be the compute device) and ranks where a constraint has them (one rank:
the table is pinned there). Kernel settings a plan carries but does not decide (cache_params,
enforce_hbm, stochastic_rounding, bounds_check_mode, output_dtype) are passed to the
ParameterSharding objects. Refused: num_poolings, batch_sizes, min_partition, key_value_params,
use_virtual_table.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional

from shardplan.errors import InvalidTaskError
from shardplan.torchrec._sharders import SharderTypes
from shardplan.v1 import planner_pb2

SHARDING_TYPES = {
    "table_wise": planner_pb2.TABLE_WISE,
    "column_wise": planner_pb2.COLUMN_WISE,
    "row_wise": planner_pb2.ROW_WISE,
    "table_row_wise": planner_pb2.TABLE_ROW_WISE,
    "data_parallel": planner_pb2.DATA_PARALLEL,
}
_FUSED_TYPES = frozenset(SHARDING_TYPES.values()) - {planner_pb2.DATA_PARALLEL}
POOLING_FACTOR = 1.0  # TorchRec's default: pooling_factors = [POOLING_FACTOR]
_REFUSED = {
    "num_poolings": "shardplan costs one pooling factor per table",
    "batch_sizes": "shardplan plans one batch size for every feature",
    "min_partition": "shardplan has no per-table minimum column-shard width",
    "key_value_params": "shardplan plans no key-value (SSD) kernels",
    "use_virtual_table": "shardplan plans no virtual tables",
}


class TableOptions(NamedTuple):
    allowed_sharding_types: List[int]  # empty: any
    pooling_factor: float
    pinned_device: Optional[int]


def _value(item: Any) -> str:
    """An Enum member's value (TorchRec's ShardingType, EmbeddingComputeKernel), else str."""
    return str(getattr(item, "value", item))


def _allowed(where: str, constraint: Any, supported: SharderTypes) -> List[int]:
    allowed = {SHARDING_TYPES[t] for t in supported.types if t in SHARDING_TYPES}
    if not allowed:
        raise InvalidTaskError(
            f"{where}: {supported.source} supports {sorted(supported.types)}: none is one "
            f"shardplan plans ({', '.join(SHARDING_TYPES)})")
    types = getattr(constraint, "sharding_types", None)
    if types:
        named = {SHARDING_TYPES[t] for t in map(_value, types) if t in SHARDING_TYPES}
        if not named:
            raise InvalidTaskError(
                f"{where}: ParameterConstraints.sharding_types {[_value(t) for t in types]}: "
                f"none is one shardplan plans ({', '.join(SHARDING_TYPES)})")
        if not allowed & named:
            raise InvalidTaskError(
                f"{where}: ParameterConstraints.sharding_types {[_value(t) for t in types]}: "
                f"{supported.source} supports none of them (it supports "
                f"{', '.join(_names(allowed))})")
        allowed &= named
    kernels = {_value(k) for k in getattr(constraint, "compute_kernels", None) or ()}
    if kernels:
        usable = set(_FUSED_TYPES if "fused" in kernels else ())
        if "dense" in kernels:
            usable.add(planner_pb2.DATA_PARALLEL)
        if not allowed & usable:
            raise InvalidTaskError(
                f"{where}: ParameterConstraints.compute_kernels {sorted(kernels)}: shardplan's "
                "plans use the fused kernel (dense for data_parallel), and no sharding type "
                "allowed here runs on an allowed kernel")
        allowed &= usable
    return [] if len(allowed) == len(SHARDING_TYPES) else sorted(allowed)


def _names(types: Any) -> List[str]:
    return [name for name, value in SHARDING_TYPES.items() if value in types]


def table_options(where: str, constraint: Any, compute_device: str,
                  supported: SharderTypes) -> TableOptions:
    """`where` names the table in errors ("table 'user_id' of module 'sparse.ebc'");
    `supported`: what its sharder supports on the compute device (_sharders.py)."""
    if constraint is None:
        return TableOptions(_allowed(where, None, supported), POOLING_FACTOR, None)
    for field, reason in _REFUSED.items():
        if getattr(constraint, field, None):
            raise InvalidTaskError(f"{where}: ParameterConstraints.{field} is set, and "
                                   f"{reason}")
    device_group = getattr(constraint, "device_group", None)
    if device_group and device_group != compute_device:
        raise InvalidTaskError(f"{where}: ParameterConstraints.device_group {device_group!r}: "
                               f"shardplan plans every table on the topology's "
                               f"{compute_device!r} devices")
    factors = getattr(constraint, "pooling_factors", None)
    pooling_factor = float(sum(factors)) if factors else POOLING_FACTOR
    pinned = None
    ranks = getattr(constraint, "ranks", None)
    if ranks:
        if len(set(ranks)) != 1:
            raise InvalidTaskError(f"{where}: ParameterConstraints.ranks {list(ranks)}: "
                                   "shardplan pins a table to one rank, not several")
        pinned = int(ranks[0])
    return TableOptions(_allowed(where, constraint, supported), pooling_factor, pinned)
