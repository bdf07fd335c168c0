"""shardplan for TorchRec jobs.

- to_torchrec / from_torchrec: plans in the JSON shape of TorchRec's ShardingPlan (_format.py).
- build_task: a task from the job's EmbeddingBagConfig / EmbeddingConfig objects, Topology and
  ParameterConstraints (task.py); TorchRecTask.sharding_plan turns the server's plan back.
- ShardplanPlanner: TorchRec's ShardingPlanner (plan, collective_plan) asking a shardplan server
  (planner.py; imported on first use, since it imports torchrec where that is installed).

Nothing here needs torch or torchrec, except TorchRec objects (ParameterSharding, ShardingPlan)
and collective_plan's default broadcast (torch.distributed).
"""

from typing import Any

from shardplan.torchrec._format import (DEFAULT_MODULE_PATH, from_torchrec, is_torchrec_plan,
                                        to_torchrec)
from shardplan.torchrec._objects import sharding_plan_objects, torchrec_available
from shardplan.torchrec.task import (BATCH_SIZE, STORAGE_RESERVATION, TorchRecTask, build_task,
                                     tables_by_rank)

__all__ = [
    "BATCH_SIZE", "DEFAULT_MODULE_PATH", "STORAGE_RESERVATION", "ShardplanPlanner",
    "TorchRecTask", "build_task", "embedding_modules", "from_torchrec", "is_torchrec_plan",
    "sharding_plan_objects", "tables_by_rank", "to_torchrec", "torchrec_available",
]


def __getattr__(name: str) -> Any:
    if name in ("ShardplanPlanner", "embedding_modules"):
        from shardplan.torchrec import planner  # pylint: disable=import-outside-toplevel
        return getattr(planner, name)
    raise AttributeError(f"module 'shardplan.torchrec' has no attribute {name!r}")
