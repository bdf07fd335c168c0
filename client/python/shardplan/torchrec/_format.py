"""Plans in the JSON shape of TorchRec's ShardingPlan (ShardingPlan._serialize).

    sharding_plan = shardplan.to_torchrec(plan, module_path="sparse_arch.embedding_bag_collection")
    # several modules: module_of={table: module_path} (TorchRecTask.modules)
    # {"plan": {module_path: {table: {"sharding_type": "table_wise", "compute_kernel": "fused",
    #   "ranks": [2], "shards": [{"shard_offsets": [0, 0], "shard_sizes": [rows, dim],
    #                             "placement": "rank:2/cuda:2"}]}}}}

Each table is written as TorchRec's generators and planner write it:
- table_wise, column_wise, row_wise, table_row_wise: one shard per piece, ordered by offset (row
  blocks by row, column ranges by column), ranks[i] the rank of shards[i] (a rank may repeat),
  compute kernel "fused". Row blocks keep their planned sizes, an uneven last block included.
- data_parallel: compute kernel "dense", ranks the replicas' ranks in order, and no "shards"
  (TorchRec's sharding_spec is None for data_parallel, so _serialize writes none).

from_torchrec reads that shape back (from this module or from TorchRec's own planner), so a
TorchRec plan can be evaluated: client.evaluate(task, sharding_plan, ground_truth="sim:...").
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from shardplan.convert import PlanLike, TaskLike, plan_from_dict, task_from_dict
from shardplan.errors import InvalidTaskError
from shardplan.v1 import planner_pb2

DEFAULT_MODULE_PATH = "embedding_bag_collection"
DEFAULT_SEQUENCE_MODULE_PATH = "embedding_collection"


def _sharding_type_name(value: int) -> str:
    return planner_pb2.ShardingType.Name(value).lower()


def to_torchrec(plan: PlanLike, module_path: str = DEFAULT_MODULE_PATH,
                local_world_size: Optional[int] = None, compute_device: str = "cuda",
                module_of: Optional[Mapping[str, str]] = None,
                task: Optional[TaskLike] = None,
                sequence_module_path: str = DEFAULT_SEQUENCE_MODULE_PATH) -> Dict[str, Any]:
    """The ShardingPlan dict of `plan` (a Plan, a PlanResponse or their JSON dicts).

    local_world_size: devices per host, so that rank R is placed on cuda:(R % local_world_size);
    None: the plan's local_world_size (the server records the task's), else every device on one
    host (the plan's device count). compute_device: "cuda" or "cpu" (TorchRec places cpu shards
    as "rank:R/cpu"). module_of: {table: module path} for plans of several modules; a table it
    does not name goes to `module_path`, or, when `task` says it is a SEQUENCE table (TorchRec's
    EmbeddingCollection), to `sequence_module_path`.
    """
    plan = plan_from_dict(plan)
    sequence = set()
    if task is not None:
        sequence = {t.name for t in task_from_dict(task).tables
                    if t.pooling == planner_pb2.SEQUENCE}
    if local_world_size is None:
        local_world_size = plan.local_world_size or _device_count(plan)
    if local_world_size < 1:
        raise ValueError(f"local_world_size must be >= 1, got {local_world_size}")
    modules: Dict[str, Dict[str, Any]] = {}
    for table in plan.tables:
        if not table.shards:
            raise ValueError(f"table {table.table} has no shards")
        why = _not_a_torchrec_layout(table, len(plan.devices))
        if why:
            raise ValueError(f"table {table.table} has no TorchRec sharding: {why}")
        default_path = sequence_module_path if table.table in sequence else module_path
        path = (module_of or {}).get(table.table, default_path)
        if table.table in sequence and table.sharding_type == planner_pb2.TABLE_ROW_WISE:
            raise ValueError(f"table {table.table} is a SEQUENCE table sharded table_row_wise, "
                             "which TorchRec's EmbeddingCollection does not support")
        modules.setdefault(path, {})[table.table] = _parameter_sharding(
            table, local_world_size, compute_device)
    return {"plan": modules}


def _not_a_torchrec_layout(table: Any, device_count: int) -> str:
    """Why TorchRec cannot run the table's row layout, or "" (as the CLI's exporter says):
    replicated row groups, data_parallel on some ranks only (known when the plan carries its
    per-device figures), routes, frequency-rank row order."""
    layout = table.row_layout
    if layout.row_order == planner_pb2.FREQUENCY_RANK:
        return "its rows are in frequency-rank order (TorchRec shards row ids; remap the ids first)"
    if layout.routes:
        return "it has routes (TorchRec routes no lookup)"
    if table.sharding_type == planner_pb2.DATA_PARALLEL:
        if len(table.shards) < device_count:
            return (f"it is data_parallel on {len(table.shards)} of {device_count} ranks "
                    "(TorchRec replicates on every rank)")
        return ""
    seen = set()
    for s in table.shards:
        if (s.row_offset, s.column_offset) in seen:
            return (f"rows [{s.row_offset}, {s.row_offset + s.row_count}) are replicated "
                    "(TorchRec has no replicated row groups)")
        seen.add((s.row_offset, s.column_offset))
    return ""


def _parameter_sharding(table: Any, local_world_size: int,
                        compute_device: str) -> Dict[str, Any]:
    """One table as TorchRec's ParameterSharding._serialize writes it (see the module's doc)."""
    if table.sharding_type == planner_pb2.DATA_PARALLEL:
        # TorchRec's sharding_spec is None for data_parallel: _serialize writes no "shards".
        return {"sharding_type": "data_parallel", "compute_kernel": "dense",
                "ranks": sorted(s.device for s in table.shards)}
    shards = sorted(table.shards, key=lambda s: (s.row_offset, s.column_offset))
    return {
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


def _device_count(plan: Any) -> int:
    """The plan's per-device figures, or the highest device a shard uses."""
    devices = [s.device for t in plan.tables for s in t.shards]
    return max([len(plan.devices)] + [d + 1 for d in devices] + [1])


def is_torchrec_plan(value: Any) -> bool:
    """Whether `value` has the ShardingPlan shape {"plan": {module: {table: {"sharding_type":
    ...}}}}."""
    if not isinstance(value, dict) or not isinstance(value.get("plan"), dict):
        return False
    modules = value["plan"].values()
    return all(isinstance(tables, dict) and
               all(isinstance(s, dict) and "sharding_type" in s for s in tables.values())
               for tables in modules)


def from_torchrec(sharding_plan: Dict[str, Any],
                  task: Optional[TaskLike] = None) -> planner_pb2.Plan:
    """The shards of a ShardingPlan dict as a shardplan.v1.Plan (figures left for the server):
    every table of every module, each shard on the device its placement names ("rank:R/cuda:L"
    or "rank:R/cpu": device R). Sharding types table_wise, column_wise, row_wise,
    table_row_wise and data_parallel are read.

    A data_parallel table without "shards" (as TorchRec writes it) is a full replica on each
    rank of its "ranks"; its shape comes from `task` (a Task or its dict), which it then needs.
    Zero-row row_wise and table_row_wise shards (TorchRec's row split leaves trailing ranks
    empty, e.g. 5 rows over 4 ranks: 2, 2, 1, 0) hold nothing and are dropped. Raises
    InvalidTaskError naming the field for anything else, e.g. a sharding type shardplan does not
    read."""
    if not is_torchrec_plan(sharding_plan):
        raise InvalidTaskError('not a TorchRec plan: expected {"plan": {module: {table: '
                               '{"sharding_type": ...}}}}')
    shapes = None
    if task is not None:
        shapes = {t.name: (t.rows, t.dim) for t in task_from_dict(task).tables}
    plan = planner_pb2.Plan()
    seen = set()
    for module, tables in sharding_plan["plan"].items():
        for name, sharding in tables.items():
            field = f"plan.{module}.{name}"
            if name in seen:
                raise InvalidTaskError(f'{field}: table "{name}" appears in more than one module')
            seen.add(name)
            sharding_type = _parse_sharding_type(sharding["sharding_type"], field)
            table = plan.tables.add(table=name, sharding_type=sharding_type)
            shards = sharding.get("shards")
            if shards is None and sharding_type == planner_pb2.DATA_PARALLEL:
                _read_replicas(sharding, field, shapes, table)
                continue
            if not isinstance(shards, list) or not shards:
                raise InvalidTaskError(f"{field}.shards: missing; shardplan reads each shard's "
                                       "offsets, sizes and placement")
            by_rows = sharding_type in (planner_pb2.ROW_WISE, planner_pb2.TABLE_ROW_WISE)
            for i, shard in enumerate(shards):
                parsed = _parse_shard(shard, f"{field}.shards[{i}]")
                # TorchRec's row split leaves trailing ranks zero rows: they hold and serve
                # nothing, and shardplan's plans have no empty shards.
                if by_rows and parsed.row_count == 0:
                    continue
                table.shards.append(parsed)
    return plan


def _parse_sharding_type(kind: Any, field: str) -> int:
    try:
        sharding_type = planner_pb2.ShardingType.Value(str(kind).upper())
    except ValueError:
        sharding_type = planner_pb2.SHARDING_TYPE_UNSPECIFIED
    if sharding_type == planner_pb2.SHARDING_TYPE_UNSPECIFIED:
        raise InvalidTaskError(f"{field}.sharding_type: {kind!r} is not one shardplan reads "
                               "(table_wise, column_wise, row_wise, table_row_wise, "
                               "data_parallel)")
    return sharding_type


def _parse_shard(shard: Any, path: str) -> planner_pb2.Shard:
    """One ShardMetadata dict as _serialize writes it, as a shardplan.v1.Shard."""
    pairs = {}
    for key in ("shard_offsets", "shard_sizes"):
        pair = shard.get(key) if isinstance(shard, dict) else None
        if (not isinstance(pair, list) or len(pair) != 2 or
                not all(isinstance(v, int) for v in pair)):
            raise InvalidTaskError(f"{path}.{key}: expected [rows, columns] as two integers")
        pairs[key] = pair
    placement = shard.get("placement", "")
    rank = _rank_of(placement)
    if rank is None:
        raise InvalidTaskError(f'{path}.placement: "{placement}" is not "rank:R/cuda:L" or '
                               '"rank:R/cpu"')
    (r0, c0), (rows, cols) = pairs["shard_offsets"], pairs["shard_sizes"]
    return planner_pb2.Shard(device=rank, row_offset=r0, row_count=rows, column_offset=c0,
                             column_count=cols)


def _read_replicas(sharding: Dict[str, Any], field: str, shapes: Any, table: Any) -> None:
    """A data_parallel table without shards: a full replica on each rank of "ranks"."""
    name = table.table
    if shapes is None:
        raise InvalidTaskError(f'{field}: a data_parallel table without "shards" is a full '
                               "replica on each of its \"ranks\", so shardplan needs its "
                               "shape: pass the task (from_torchrec(sharding_plan, task))")
    if name not in shapes:
        raise InvalidTaskError(f'{field}: a data_parallel table without "shards" is a full '
                               "replica on each of its \"ranks\", so shardplan needs its "
                               f'shape, and the task has no table "{name}"')
    ranks = sharding.get("ranks")
    if not isinstance(ranks, list) or not ranks:
        raise InvalidTaskError(f"{field}.ranks: expected the replicas' ranks, a non-empty list "
                               '(data_parallel has no "shards")')
    rows, dim = shapes[name]
    for i, rank in enumerate(ranks):
        if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < 2**31:
            raise InvalidTaskError(f"{field}.ranks[{i}]: {rank!r} is not a rank")
        table.shards.add(device=rank, row_count=rows, column_count=dim)


def _rank_of(placement: Any) -> Optional[int]:
    head = str(placement).split("/", 1)[0]
    if not head.startswith("rank:") or not head[5:].isdigit():
        return None
    return int(head[5:])
