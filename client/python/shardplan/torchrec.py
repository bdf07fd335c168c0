"""Plans in the JSON shape of TorchRec's ShardingPlan (ShardingPlan._serialize).

    sharding_plan = shardplan.to_torchrec(plan, module_path="sparse_arch.embedding_bag_collection")
    # {"plan": {module_path: {table: {"sharding_type": "table_wise", "compute_kernel": "fused",
    #   "ranks": [2], "shards": [{"shard_offsets": [0, 0], "shard_sizes": [rows, dim],
    #                             "placement": "rank:2/cuda:2"}]}}}}

A whole table becomes "table_wise" on its device; a table split into column ranges becomes
"column_wise" with one shard per range, ordered by column offset, and ranks[i] the rank of
shards[i] (a rank may repeat when two ranges share a device). The compute kernel is "fused".
"""

from shardplan.convert import plan_from_dict
from shardplan.v1 import planner_pb2

DEFAULT_MODULE_PATH = "embedding_bag_collection"


def _sharding_type_name(value):
    return planner_pb2.ShardingType.Name(value).lower()


def to_torchrec(plan, module_path=DEFAULT_MODULE_PATH, local_world_size=None,
                compute_device="cuda"):
    """The ShardingPlan dict of `plan` (a Plan, a PlanResponse or their JSON dicts).

    local_world_size: devices per host, so that rank R is placed on cuda:(R % local_world_size);
    None: every device on one host (the plan's device count). compute_device: "cuda" or "cpu"
    (TorchRec places cpu shards as "rank:R/cpu").
    """
    plan = plan_from_dict(plan)
    if local_world_size is None:
        devices = [s.device for t in plan.tables for s in t.shards]
        local_world_size = max([len(plan.devices)] + [d + 1 for d in devices] + [1])
    if local_world_size < 1:
        raise ValueError(f"local_world_size must be >= 1, got {local_world_size}")
    module = {}
    for table in plan.tables:
        if not table.shards:
            raise ValueError(f"table {table.table} has no shards")
        shards = sorted(table.shards, key=lambda s: (s.row_offset, s.column_offset))
        module[table.table] = {
            "sharding_type": _sharding_type_name(table.sharding_type),
            "compute_kernel": "fused",
            "ranks": [s.device for s in shards],
            "shards": [{
                "shard_offsets": [s.row_offset, s.column_offset],
                "shard_sizes": [s.row_count, s.column_count],
                "placement": (f"rank:{s.device}/cpu" if compute_device == "cpu" else
                              f"rank:{s.device}/{compute_device}:{s.device % local_world_size}"),
            } for s in shards],
        }
    return {"plan": {module_path: module}}
