"""Run by test_venv_install.py with a venv's python, from a directory outside the repository:
the installed shardplan is the venv's copy, declares its dependencies, is typed, and plans
through the server at $SHARDPLAN_SERVER with PlannerClient and AsyncPlannerClient.
Prints "venv_check: ok" at the end; any failure raises.
"""

import asyncio
import importlib.metadata
import os
import sys

import shardplan
import shardplan.aio

TASK = {"tables": [{"name": f"t{i}", "rows": 1000 * (i + 1), "dim": 16, "pooling_factor": 2.0}
                   for i in range(4)],
        "topology": {"num_devices": 2, "device_memory_gib": 16}}


def check_installed_copy():
    package_dir = os.path.dirname(os.path.realpath(shardplan.__file__))
    site = os.path.realpath(os.path.join(sys.prefix, "lib"))
    assert sys.prefix != sys.base_prefix, f"not a venv: {sys.prefix}"
    assert package_dir.startswith(site + os.sep), f"shardplan from {package_dir}, not {site}"
    source = os.path.realpath(os.environ["SHARDPLAN_SOURCE_TREE"])
    assert not package_dir.startswith(source + os.sep), f"shardplan from the source tree"
    assert os.path.isfile(os.path.join(package_dir, "py.typed")), "no py.typed"
    assert os.path.isfile(os.path.join(package_dir, "v1", "planner_pb2.pyi")), "no .pyi stubs"
    requires = importlib.metadata.requires("shardplan") or []
    names = {r.split(";")[0].split(" ")[0].split(">")[0].split("=")[0] for r in requires
             if "extra ==" not in r}
    assert {"grpcio", "protobuf"} <= names, f"declared dependencies: {requires}"
    assert importlib.metadata.version("shardplan") == shardplan.__version__


async def plan_async(target):
    async with shardplan.aio.AsyncPlannerClient(target, timeout=20) as client:
        return await client.plan(TASK, algorithm="size_greedy")


def main():
    check_installed_copy()
    target = os.environ["SHARDPLAN_SERVER"]
    with shardplan.PlannerClient(target, timeout=20) as client:
        plan = client.plan(TASK, algorithm="size_greedy")
    assert sorted(t.table for t in plan.tables) == ["t0", "t1", "t2", "t3"], plan
    again = asyncio.run(plan_async(target))
    assert again.request_hash == plan.request_hash and again.tables == plan.tables
    print(f"venv_check: ok ({shardplan.__file__})")


if __name__ == "__main__":
    main()
