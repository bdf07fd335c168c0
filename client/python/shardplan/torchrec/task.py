"""A shardplan task from a TorchRec job's own objects.

    task = build_task({"sparse_arch.ebc": [EmbeddingBagConfig(...), ...]}, topology,
                      batch_size=512, constraints={"user_id": ParameterConstraints(...)})
    plan = client.plan(task.task)
    sharding_plan = task.sharding_plan(plan)   # {"plan": {module path: {table: ...}}}

Configs (EmbeddingBagConfig, EmbeddingConfig) are read duck-typed: name, num_embeddings,
embedding_dim, data_type (FP32, FP16, BF16, INT8, UINT8 or NFP8). The topology is read as _topology.py says,
the constraints as _constraints.py says. batch_size is TorchRec's, per rank (its default 512);
the task's is global: batch_size x world_size. memory.storage_reservation is TorchRec's
HeuristicalStorageReservation percentage (0.15 unless given), memory.optimizer the optimizer of
the sharders' fused_params unless optimizer= names one (_optimizers.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from shardplan.convert import PlanLike
from shardplan.errors import InvalidTaskError
from shardplan.torchrec._constraints import table_options
from shardplan.torchrec._format import to_torchrec
from shardplan.torchrec._optimizers import optimizer_of, sharders_optimizer
from shardplan.torchrec._sharders import supported_types
from shardplan.torchrec._topology import HostLayout, topology_message
from shardplan.v1 import planner_pb2

BATCH_SIZE = 512  # TorchRec's default batch size per rank (planner/constants.py)
STORAGE_RESERVATION = 0.15  # TorchRec's default HeuristicalStorageReservation percentage
# TorchRec's DataType names with a whole size in bytes (DATA_TYPE_NUM_BITS,
# torchrec/modules/embedding_configs.py lines 60-68 at TorchRec v1.3.0; NFP8, 8 bits, since
# v2025.08.18.00). INT32 and INT64 have no entry there: TorchRec gives them no table size.
_ELEMENT_TYPES = {"FP32": planner_pb2.FP32, "FP16": planner_pb2.FP16, "BF16": planner_pb2.BF16,
                  "INT8": planner_pb2.INT8, "UINT8": planner_pb2.UINT8, "NFP8": planner_pb2.NFP8}
_WHY_NOT = {
    "INT4": "TorchRec stores it packed two to a byte, with a per-row scale and bias, for its "
            "quantized inference kernels, which shardplan does not size",
    "INT2": "TorchRec stores it packed four to a byte, with a per-row scale and bias, for its "
            "quantized inference kernels, which shardplan does not size",
}


@dataclass(frozen=True)
class TorchRecTask:
    """A task built from TorchRec objects and what turns its plans back into TorchRec's."""

    task: planner_pb2.Task
    modules: Dict[str, str]  # table name -> module path
    layout: HostLayout
    constraints: Dict[str, Any] = field(default_factory=dict)  # table name -> constraints

    def sharding_plan(self, plan: PlanLike) -> Dict[str, Any]:
        """The plan as TorchRec's ShardingPlan dict, every table under its own module."""
        return to_torchrec(plan, local_world_size=self.layout.local_world_size,
                           compute_device=self.layout.compute_device, module_of=self.modules)


def _element_type(where: str, config: Any) -> int:
    data_type = getattr(config, "data_type", None)
    name = str(getattr(data_type, "value", data_type) or "FP32").upper()
    if name not in _ELEMENT_TYPES:
        reason = _WHY_NOT.get(name, "TorchRec gives it no size (DATA_TYPE_NUM_BITS)")
        raise InvalidTaskError(f"{where}: data_type {name}: {reason}; shardplan plans "
                               f"{', '.join(_ELEMENT_TYPES)} tables")
    return _ELEMENT_TYPES[name]


def _check_module_paths(paths: Iterable[str], model: Any) -> None:
    known = {name for name, _ in model.named_modules()}
    for path in paths:
        if path not in known:
            raise InvalidTaskError(f"tables: module path {path!r} is not a module of the model "
                                   "(model.named_modules() has no such name)")


def build_task(tables: Mapping[str, Sequence[Any]], topology: Any,
               batch_size: Optional[int] = None, constraints: Optional[Mapping[str, Any]] = None,
               sharders: Sequence[Any] = (), model: Any = None,
               storage_reservation: float = STORAGE_RESERVATION,
               optimizer: Any = None, hardware: str = "") -> TorchRecTask:
    """The task of `tables` ({module path: [configs]}, table names unique across modules) on
    `topology`. constraints: {table name: ParameterConstraints} (names of no table are ignored,
    as TorchRec does). model: when given, every module path must be one of its
    named_modules(), and each module's sharder (in `sharders`, else TorchRec's default for its
    kind) decides which sharding types its tables may take on the compute device: a table's
    allowed_sharding_types are those it supports, narrowed by the table's constraints
    (_sharders.py; without `model`, the default sharder of the configs' kind decides).
    hardware: what the devices are ("h100-sxm", "a100-sxm4", "rtx2080ti"; the
    task's topology.hardware), so that the server costs with a model of it; "" leaves it unnamed.
    Raises InvalidTaskError naming the table and field shardplan cannot honour."""
    if model is not None:
        _check_module_paths(tables, model)
    topology_msg, layout = topology_message(topology)
    topology_msg.hardware = str(hardware or "")
    per_rank = BATCH_SIZE if batch_size is None else int(batch_size)
    if per_rank < 1:
        raise InvalidTaskError(f"batch_size: {per_rank} is not a per-rank batch size")
    if not 0.0 <= storage_reservation < 1.0:
        raise InvalidTaskError(f"storage_reservation: {storage_reservation} is not a fraction "
                               "of device memory in [0, 1)")
    memory = planner_pb2.MemoryOptions(
        storage_reservation=storage_reservation,
        optimizer=(optimizer_of(optimizer) if optimizer is not None
                   else sharders_optimizer(sharders)))
    task = planner_pb2.Task(topology=topology_msg, batch_size=per_rank * layout.world_size,
                            memory=memory)
    modules: Dict[str, str] = {}
    constraints = dict(constraints or {})
    module_objects = dict(model.named_modules()) if model is not None else {}
    for path, configs in tables.items():
        supported = supported_types(module_objects.get(path), configs, sharders,
                                    layout.compute_device)
        for config in configs:
            name = str(getattr(config, "name", "") or "")
            if not name:
                raise InvalidTaskError(f"module {path!r}: a table config without a name")
            if name in modules:
                raise InvalidTaskError(f"table {name!r} is in modules {modules[name]!r} and "
                                       f"{path!r}: table names must be unique across modules")
            modules[name] = path
            where = f"table {name!r} of module {path!r}"
            options = table_options(where, constraints.get(name), layout.compute_device,
                                    supported)
            table = task.tables.add(
                name=name, rows=int(config.num_embeddings), dim=int(config.embedding_dim),
                pooling_factor=options.pooling_factor,
                element_type=_element_type(where, config),
                allowed_sharding_types=options.allowed_sharding_types)
            if options.pinned_device is not None:
                table.pinned_device = options.pinned_device
    if not modules:
        raise InvalidTaskError("tables: no table configs")
    return TorchRecTask(task, modules, layout,
                        {n: c for n, c in constraints.items() if n in modules})


def tables_by_rank(sharding_plan: Mapping[str, Any]) -> Dict[int, List[str]]:
    """{rank: ["module path.table", ...]} of a ShardingPlan dict: what each rank holds (a
    data_parallel table on each of its ranks), ranks in order."""
    held: Dict[int, List[str]] = {}
    for path, tables in sharding_plan["plan"].items():
        for name, sharding in tables.items():
            for rank in sorted(set(sharding["ranks"])):
                held.setdefault(rank, []).append(f"{path}.{name}" if path else name)
    return dict(sorted(held.items()))
