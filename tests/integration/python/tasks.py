"""Tasks and plan checks shared by the Python and CLI integration tests."""

import copy
import json
import os

BASELINES = ("random", "size_greedy", "dim_greedy", "lookup_greedy", "size_lookup_greedy")


def examples_dir():
    return os.environ.get("SHARDPLAN_EXAMPLES_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples")


def example_task(name):
    with open(os.path.join(examples_dir(), name)) as f:
        return json.load(f)


def small_task(num_tables, num_devices):
    """Small tables on 16 GiB devices: trivially feasible."""
    return {
        "tables": [{"name": f"t{i}", "rows": 1000 * (i + 1), "dim": 16,
                    "pooling_factor": 2.0 + i} for i in range(num_tables)],
        "topology": {"num_devices": num_devices, "device_memory_gib": 16},
    }


def multi_host_task():
    """16 hosts of 8 devices; t0 pinned to device 123, the fourth device of host 15 (a TorchRec
    placement rank:123/cuda:3)."""
    task = small_task(3, 128)
    task["topology"]["devices_per_host"] = 8
    task["tables"][0]["pinned_device"] = 123
    return task


def infeasible_task():
    """Table t1 needs 2 TiB; the devices hold 16 GiB."""
    task = small_task(2, 2)
    task["tables"][1].update(rows=1 << 32, dim=128)
    return task


def invalid_task():
    """tables[1].dim is not a multiple of 4."""
    task = small_task(3, 2)
    task["tables"][1]["dim"] = 6
    return task


# Exhaustive search over 4^14 = 2.7e8 placements: runs for many seconds, for cancel and
# deadline tests.
SLOW_TASK = small_task(14, 4)
SLOW_ALGORITHM = "exhaustive"
SLOW_PARAMS = {"max_placements": 1000000000}


def reordered(task):
    task = copy.deepcopy(task)
    task["tables"].reverse()
    return task


def check_plan(test, plan, task, algorithm=None):
    """`plan` (a Plan as a JSON dict) covers `task`: every table once and whole, on existing
    devices within capacity, and its cost is the bottleneck device's total."""
    if algorithm is not None:
        test.assertEqual(plan["algorithm"], algorithm)
    rows_dims = {t["name"]: (int(t["rows"]), t["dim"]) for t in task["tables"]}
    test.assertEqual(sorted(t["table"] for t in plan["tables"]), sorted(rows_dims))
    num_devices = task["topology"]["num_devices"]
    for sharding in plan["tables"]:
        rows, dim = rows_dims[sharding["table"]]
        # int64 fields are strings in proto JSON (the CLI's --json), ints in plan_to_dict.
        test.assertEqual(sum(int(s["row_count"]) * s["column_count"] for s in sharding["shards"]),
                         rows * dim)
        for shard in sharding["shards"]:
            test.assertIn(shard["device"], range(num_devices))
    test.assertEqual(len(plan["devices"]), num_devices)
    for device in plan["devices"]:
        test.assertLessEqual(int(device["memory_bytes"]), int(device["memory_capacity_bytes"]))
    test.assertGreater(plan["cost_ms"], 0)
    test.assertEqual(plan["cost_ms"], max(d["total_ms"] for d in plan["devices"]))
