"""TorchRec's own plan objects from a ShardingPlan dict: ShardingPlan of
EmbeddingModuleShardingPlan of ParameterSharding, each sharded table's sharding_spec an
EnumerableShardingSpec of ShardMetadata (none for data_parallel), as TorchRec's planner builds
them (planner/planners.py, to_sharding_plan). Needs torchrec, unless `types` stands in for it.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Dict, Mapping, Optional

# ParameterSharding fields TorchRec's planner copies from a table's ParameterConstraints.
PASSED_THROUGH = ("cache_params", "enforce_hbm", "stochastic_rounding", "bounds_check_mode",
                  "output_dtype")


def torchrec_types() -> SimpleNamespace:
    """The five TorchRec classes the conversion builds; ImportError without torchrec."""
    from torchrec.distributed.types import (  # pylint: disable=import-outside-toplevel
        EmbeddingModuleShardingPlan, EnumerableShardingSpec, ParameterSharding, ShardingPlan,
        ShardMetadata)
    return SimpleNamespace(ShardingPlan=ShardingPlan,
                           EmbeddingModuleShardingPlan=EmbeddingModuleShardingPlan,
                           ParameterSharding=ParameterSharding,
                           EnumerableShardingSpec=EnumerableShardingSpec,
                           ShardMetadata=ShardMetadata)


def torchrec_available() -> bool:
    try:
        torchrec_types()
    except ImportError:
        return False
    return True


def sharding_plan_objects(sharding_plan: Mapping[str, Any],
                          constraints: Optional[Mapping[str, Any]] = None,
                          types: Optional[SimpleNamespace] = None) -> Any:
    """The ShardingPlan object of a ShardingPlan dict (to_torchrec's); `constraints` {table:
    ParameterConstraints} supply the PASSED_THROUGH fields."""
    types = types or torchrec_types()
    constraints = constraints or {}
    modules: Dict[str, Any] = {}
    for path, tables in sharding_plan["plan"].items():
        module_plan = types.EmbeddingModuleShardingPlan()
        for name, entry in tables.items():
            shards = entry.get("shards")
            spec = None if shards is None else types.EnumerableShardingSpec([
                types.ShardMetadata(shard_offsets=list(s["shard_offsets"]),
                                    shard_sizes=list(s["shard_sizes"]),
                                    placement=s["placement"]) for s in shards])
            extra = {f: getattr(constraints.get(name), f, None) for f in PASSED_THROUGH}
            module_plan[name] = types.ParameterSharding(
                sharding_type=entry["sharding_type"], compute_kernel=entry["compute_kernel"],
                ranks=list(entry["ranks"]), sharding_spec=spec, **extra)
        modules[path] = module_plan
    return types.ShardingPlan(plan=modules)
