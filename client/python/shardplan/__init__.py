"""Python client of the shardplan embedding-sharding planner service.

    import shardplan

    client = shardplan.PlannerClient("planner.internal:50051")
    plan = client.plan(shardplan.load_task("task.json"))      # a shardplan.v1.Plan
    print(plan.cost_ms, [t.shards[0].device for t in plan.tables])
    sharding_plan = shardplan.to_torchrec(plan)               # TorchRec's ShardingPlan shape

Against a secured server (docs/security.md): PlannerClient(target, tls_ca="ca.pem",
token=...) -- the token defaults to $SHARDPLAN_TOKEN.

The generated API messages are in shardplan.v1.planner_pb2 (re-exported as shardplan.pb).
shardplan.aio.AsyncPlannerClient makes the same calls with asyncio; shardplan.torchrec builds
tasks from TorchRec's objects and plans TorchRec models (ShardplanPlanner).
"""

__version__ = "0.1.0"

from shardplan.client import DEFAULT_TARGET, TERMINAL_STATES, PlannerClient, raise_for_job
from shardplan.convert import (load_json, load_task, message_to_dict, plan_from_dict,
                               plan_to_dict, task_from_dict, task_to_dict)
from shardplan.errors import (CancelledError, DeadlineExceededError, InfeasibleTaskError,
                              InvalidTaskError, NotFoundError, PermissionDeniedError,
                              ResourceExhaustedError, ShardplanError, UnauthenticatedError,
                              UnavailableError, error_for_code)
from shardplan.torchrec import from_torchrec, to_torchrec
from shardplan.v1 import planner_pb2 as pb

__all__ = [
    "__version__",
    "DEFAULT_TARGET", "TERMINAL_STATES", "PlannerClient", "raise_for_job",
    "load_json", "load_task", "message_to_dict", "plan_from_dict", "plan_to_dict",
    "task_from_dict", "task_to_dict",
    "CancelledError", "DeadlineExceededError", "InfeasibleTaskError", "InvalidTaskError",
    "NotFoundError", "PermissionDeniedError", "ResourceExhaustedError", "ShardplanError",
    "UnauthenticatedError", "UnavailableError", "error_for_code", "from_torchrec", "to_torchrec",
    "pb",
]
