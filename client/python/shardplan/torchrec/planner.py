"""ShardplanPlanner: TorchRec's ShardingPlanner interface, planned by a shardplan server.

    planner = ShardplanPlanner(topology, batch_size=512, constraints=constraints,
                               target="planner.internal:50051")
    plan = planner.collective_plan(model, sharders, pg)   # rank 0 asks, every rank gets it
    model = DistributedModelParallel(model, plan=plan, sharders=sharders, ...)

plan() finds the embedding modules of the module tree (those with embedding_bag_configs() or
embedding_configs(): EmbeddingBagCollection, EmbeddingCollection and their kin; with sharders,
only modules of a sharder's module_type, as TorchRec plans), builds the task (task.py), asks the
server and returns a torchrec ShardingPlan of ParameterSharding objects when torchrec imports,
else the ShardingPlan dict. collective_plan() asks on rank 0 of `pg` only and broadcasts the
plan, or rank 0's error, to every rank (torch.distributed.broadcast_object_list, or the
`broadcast` given). Each plan is logged on the "shardplan.torchrec" logger as TorchRec logs its
stats: at INFO, the algorithm and cost model, a table of every rank (shards, memory, predicted
costs, tables) and each table's sharding; the plan's warnings at WARNING (_plan_log.py). With fallback= (opt-in), a server that cannot answer before the timeout
(down, restarting, busy) hands the plan to TorchRec's own planner, and the job log says so.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from shardplan.client import PlannerClient
from shardplan.errors import (DeadlineExceededError, ResourceExhaustedError, ShardplanError,
                              UnavailableError)
from shardplan.torchrec._objects import sharding_plan_objects, torchrec_available
from shardplan.torchrec._plan_log import log_plan
from shardplan.torchrec.task import STORAGE_RESERVATION, TorchRecTask, build_task

try:  # a real ShardingPlanner where torchrec is installed; a plain class elsewhere
    from torchrec.distributed.types import ShardingPlanner as _PlannerBase
except ImportError:  # pragma: no cover - depends on the environment
    _PlannerBase = object  # type: ignore[assignment,misc]

# broadcast(object_list, src, group): torch.distributed.broadcast_object_list's signature.
Broadcast = Callable[[List[Any], int, Any], None]
_CONFIG_METHODS = ("embedding_bag_configs", "embedding_configs")
FALLBACK_TORCHREC = "torchrec"
_log = logging.getLogger("shardplan.torchrec")


def embedding_modules(module: Any, sharders: Sequence[Any] = ()) -> Dict[str, List[Any]]:
    """{module path: [table configs]} of the embedding modules in `module`'s tree (path "" for
    `module` itself); not below a module already found. With sharders that have a
    module_type, only modules of one of those types."""
    types = tuple(s.module_type for s in sharders or () if getattr(s, "module_type", None))
    found: Dict[str, List[Any]] = {}
    for path, child in module.named_modules():
        if any(path.startswith(f"{p}.") or (p == "" and path) for p in found):
            continue
        method = next((getattr(child, m) for m in _CONFIG_METHODS if hasattr(child, m)), None)
        if method is not None and (not types or isinstance(child, types)):
            found[path] = list(method())
    return found


def _torch_broadcast(object_list: List[Any], src: int, group: Any) -> None:
    import torch.distributed as dist  # pylint: disable=import-outside-toplevel
    if group is not None:  # broadcast_object_list takes the source's global rank
        global_rank = getattr(dist, "get_global_rank", None)
        if global_rank is None:  # torch < 2.0
            global_rank = dist.distributed_c10d._get_global_rank  # pylint: disable=protected-access
        src = global_rank(group, src)
    dist.broadcast_object_list(object_list, src, group=group)


def _rank_and_size(pg: Any) -> Tuple[int, int]:
    if pg is not None:
        return pg.rank(), pg.size()
    import torch.distributed as dist  # pylint: disable=import-outside-toplevel
    if not dist.is_initialized():
        raise RuntimeError("collective_plan: no process group given and torch.distributed is "
                           "not initialised (init_process_group first, or call plan())")
    return dist.get_rank(), dist.get_world_size()


def _server_could_not_answer(error: ShardplanError) -> bool:
    """The errors a fallback planner stands in for: no answer from the server before the
    deadline (unreachable, restarting, still busy), not an answer about the task."""
    return isinstance(error, (UnavailableError, DeadlineExceededError)) or (
        isinstance(error, ResourceExhaustedError) and error.retry_after is not None)


def _torchrec_planner(topology: Any, batch_size: Optional[int],
                      constraints: Mapping[str, Any]) -> Any:
    """TorchRec's EmbeddingShardingPlanner on the job's topology, batch size and constraints."""
    from torchrec.distributed.planner import (  # pylint: disable=import-outside-toplevel
        EmbeddingShardingPlanner)
    return EmbeddingShardingPlanner(topology=topology, batch_size=batch_size,
                                    constraints=dict(constraints) or None)


def _default_sharders() -> List[Any]:
    """TorchRec's default sharders, which DistributedModelParallel uses when given none."""
    from torchrec.distributed.sharding_plan import (  # pylint: disable=import-outside-toplevel
        get_default_sharders)
    return list(get_default_sharders())


class ShardplanPlanner(_PlannerBase):  # type: ignore[misc,valid-type]
    """A TorchRec ShardingPlanner that asks a shardplan server.

    topology: TorchRec's Topology. batch_size: per rank (TorchRec's; None: 512).
    constraints: {table name: ParameterConstraints}. client: a PlannerClient (None: one to
    `target`, $SHARDPLAN_SERVER by default, with `timeout`). algorithm, params, seed, model,
    job_key: as PlannerClient.plan. storage_reservation, optimizer: as build_task.
    torchrec_objects: return TorchRec objects (None: when torchrec imports) or the dict.
    broadcast: collective_plan's broadcast(object_list, src, group) (None: torch.distributed's).
    fallback: what plans when the server cannot answer before `timeout` (it is retried until
        then: UNAVAILABLE, DEADLINE_EXCEEDED, a busy server's RESOURCE_EXHAUSTED): None (the
        default) raises the error; "torchrec" plans with TorchRec's EmbeddingShardingPlanner on
        the same topology, batch size and constraints (needs torchrec; ValueError here
        otherwise); or any object with plan(module, sharders). Errors about the task itself
        (invalid, infeasible) are raised either way. A fallback is logged at WARNING on the
        "shardplan.torchrec" logger, and last_planner says who planned.
    """

    def __init__(self, topology: Any, batch_size: Optional[int] = None,
                 constraints: Optional[Mapping[str, Any]] = None,
                 client: Optional[PlannerClient] = None, target: Optional[str] = None,
                 timeout: Optional[float] = 60.0, algorithm: Optional[str] = None,
                 params: Optional[Mapping[str, Any]] = None, seed: int = 0,
                 model: Optional[str] = None, job_key: Optional[str] = None,
                 storage_reservation: float = STORAGE_RESERVATION, optimizer: Any = None,
                 torchrec_objects: Optional[bool] = None,
                 broadcast: Optional[Broadcast] = None, fallback: Any = None) -> None:
        self._topology = topology
        self._batch_size = batch_size
        self._constraints = dict(constraints or {})
        self._client = client
        self._client_settings = {"target": target, "timeout": timeout}
        self._request = {"algorithm": algorithm, "params": params, "seed": seed,
                         "model": model, "job_key": job_key}
        self._memory = {"storage_reservation": storage_reservation, "optimizer": optimizer}
        self._objects = torchrec_available() if torchrec_objects is None else torchrec_objects
        self._broadcast = broadcast or _torch_broadcast
        if fallback == FALLBACK_TORCHREC and not torchrec_available():
            raise ValueError('fallback: "torchrec" plans with TorchRec\'s own planner, and '
                             "torchrec does not import here")
        if fallback is not None and fallback != FALLBACK_TORCHREC and \
                not callable(getattr(fallback, "plan", None)):
            raise ValueError(f'fallback: {fallback!r} is neither "torchrec" nor a planner '
                             "with plan(module, sharders)")
        self._fallback = fallback
        self.last_task: Optional[TorchRecTask] = None
        self.last_plan: Any = None  # the shardplan.v1.Plan the server returned
        self.last_planner: Optional[str] = None  # "shardplan" or "fallback"

    @property
    def client(self) -> PlannerClient:
        if self._client is None:  # made on first use: ranks other than 0 never need one
            self._client = PlannerClient(**self._client_settings)
        return self._client

    def build_task(self, module: Any, sharders: Sequence[Any] = ()) -> TorchRecTask:
        """The task of `module`'s embedding modules (see embedding_modules)."""
        return build_task(embedding_modules(module, sharders), self._topology,
                          self._batch_size, self._constraints, sharders, module,
                          **self._memory)

    def plan(self, module: Any, sharders: Sequence[Any] = ()) -> Any:
        """Asks the server for a plan of `module`'s embedding tables: a torchrec ShardingPlan
        (or its dict, see torchrec_objects)."""
        task = self.build_task(module, sharders)
        self.last_task, self.last_plan = task, None
        try:
            self.last_plan = self.client.plan(task.task, **self._request)
        except ShardplanError as error:
            if self._fallback is None or not _server_could_not_answer(error):
                raise
            return self._fallback_plan(module, sharders, error)
        self.last_planner = "shardplan"
        log_plan(_log, self.last_plan, task.modules)
        sharding_plan = task.sharding_plan(self.last_plan)
        if self._objects:
            return sharding_plan_objects(sharding_plan, task.constraints)
        return sharding_plan

    def _fallback_plan(self, module: Any, sharders: Sequence[Any], error: ShardplanError) -> Any:
        """The fallback planner's plan, as it returns it (TorchRec's: a ShardingPlan)."""
        if self._fallback == FALLBACK_TORCHREC:
            planner = _torchrec_planner(self._topology, self._batch_size, self._constraints)
            name = "TorchRec's EmbeddingShardingPlanner"
            sharders = list(sharders) or _default_sharders()
        else:
            planner, name = self._fallback, type(self._fallback).__name__
        _log.warning("shardplan server %s could not answer (%s); planning with %s instead "
                     "(fallback)", self.client.target, error, name)
        self.last_planner = "fallback"
        return planner.plan(module, list(sharders))

    def collective_plan(self, module: Any, sharders: Optional[Sequence[Any]] = None,
                        pg: Any = None) -> Any:
        """plan() on rank 0 of `pg` (None: torch.distributed's default group), broadcast to
        every rank. An error on rank 0 is raised on every rank."""
        rank, size = _rank_and_size(pg)
        outcome: List[Any] = [None]
        if rank == 0:
            try:
                outcome[0] = ("plan", self.plan(module, sharders or ()))
            except Exception as error:  # every rank must leave the broadcast, then raise
                outcome[0] = ("error", error)
        if size > 1:
            self._broadcast(outcome, 0, pg)
        kind, value = outcome[0]
        if kind == "error":
            raise value
        return value
