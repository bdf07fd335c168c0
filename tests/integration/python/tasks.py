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


def mixed_task():
    """Two hosts of four devices and a table for each sharding type of torchrec_sharding_plan
    (only analytic@1 costs row_wise, table_row_wise and data_parallel)."""
    shapes = [("tw", 1000), ("cw", 1000), ("rw", 10), ("twrw", 10), ("dp", 100)]
    return {"tables": [{"name": name, "rows": rows, "dim": 16, "pooling_factor": 2.0}
                       for name, rows in shapes],
            "topology": {"num_devices": 8, "device_memory_gib": 16, "devices_per_host": 4}}


def mixed_plan():
    """A shardplan Plan (JSON dict) of mixed_task with every sharding type: tw on device 1; cw in
    uneven pieces 8 + 4 + 4 on devices 2, 6, 2; rw in TorchRec's blocks of 10 rows over four
    (3, 3, 3 and an uneven last 1), listed out of order; twrw on host 1 in memory-proportional
    blocks 4, 3, 2, 1; dp on every device."""
    def shard(device, rows, columns, row_offset=0, column_offset=0):
        return {"device": device, "row_offset": row_offset, "row_count": rows,
                "column_offset": column_offset, "column_count": columns}
    return {"tables": [
        {"table": "tw", "sharding_type": "TABLE_WISE", "shards": [shard(1, 1000, 16)]},
        {"table": "cw", "sharding_type": "COLUMN_WISE",
         "shards": [shard(2, 1000, 4, column_offset=12), shard(2, 1000, 8),
                    shard(6, 1000, 4, column_offset=8)]},
        {"table": "rw", "sharding_type": "ROW_WISE",
         "shards": [shard(3, 3, 16, 0), shard(0, 1, 16, 9), shard(1, 3, 16, 3),
                    shard(2, 3, 16, 6)]},
        {"table": "twrw", "sharding_type": "TABLE_ROW_WISE",
         "shards": [shard(4, 4, 16, 0), shard(5, 3, 16, 4), shard(6, 2, 16, 7),
                    shard(7, 1, 16, 9)]},
        {"table": "dp", "sharding_type": "DATA_PARALLEL",
         "shards": [shard(d, 100, 16) for d in range(8)]},
    ]}


def torchrec_row_split(sharding_type, rows, ranks, columns, local_world_size):
    """A row_wise / table_row_wise entry as TorchRec's generators write it (sharding_plan.py,
    _calculate_rw_shard_sizes_and_offsets): ceil(rows / len(ranks)) rows per rank in rank
    order, the last non-empty block shorter, trailing ranks empty."""
    block = -(-rows // len(ranks))
    shards, offset = [], 0
    for rank in ranks:
        size = max(0, min(block, rows - offset))
        shards.append({"shard_offsets": [offset, 0], "shard_sizes": [size, columns],
                       "placement": f"rank:{rank}/cuda:{rank % local_world_size}"})
        offset += size
    return {"sharding_type": sharding_type, "compute_kernel": "fused", "ranks": list(ranks),
            "shards": shards}


def torchrec_sharding_plan():
    """mixed_task planned as TorchRec's generators and ShardingPlan._serialize write it:
    table_wise on rank 1; column_wise in two 8-column pieces on ranks 2 and 6; row_wise over
    the 8 ranks (10 rows: five blocks of 2, ranks 5-7 empty); table_row_wise on host 1 (10 rows:
    3, 3, 3, 1 on ranks 4-7); data_parallel on every rank, without shards."""
    def piece(rank, offset, columns):
        return {"shard_offsets": [0, offset], "shard_sizes": [1000, columns],
                "placement": f"rank:{rank}/cuda:{rank % 4}"}
    return {"plan": {"embedding_bag_collection": {
        "tw": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [1],
               "shards": [piece(1, 0, 16)]},
        "cw": {"sharding_type": "column_wise", "compute_kernel": "fused", "ranks": [2, 6],
               "shards": [piece(2, 0, 8), piece(6, 8, 8)]},
        "rw": torchrec_row_split("row_wise", 10, range(8), 16, 4),
        "twrw": torchrec_row_split("table_row_wise", 10, range(4, 8), 16, 4),
        "dp": {"sharding_type": "data_parallel", "compute_kernel": "dense",
               "ranks": list(range(8))},
    }}}


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
    """`plan` (a Plan as a JSON dict) covers `task`: every table once and whole (a data-parallel
    table once per replica), on existing devices within capacity, and its cost is the bottleneck
    device's total."""
    if algorithm is not None:
        test.assertEqual(plan["algorithm"], algorithm)
    rows_dims = {t["name"]: (int(t["rows"]), t["dim"]) for t in task["tables"]}
    test.assertEqual(sorted(t["table"] for t in plan["tables"]), sorted(rows_dims))
    num_devices = task["topology"]["num_devices"]
    for sharding in plan["tables"]:
        rows, dim = rows_dims[sharding["table"]]
        # int64 fields are strings in proto JSON (the CLI's --json), ints in plan_to_dict.
        copies = (len(sharding["shards"]) if sharding["sharding_type"] in ("DATA_PARALLEL", 4)
                  else 1)
        test.assertEqual(sum(int(s["row_count"]) * s["column_count"] for s in sharding["shards"]),
                         rows * dim * copies)
        for shard in sharding["shards"]:
            test.assertIn(shard["device"], range(num_devices))
    test.assertEqual(len(plan["devices"]), num_devices)
    for device in plan["devices"]:
        test.assertLessEqual(int(device["memory_bytes"]), int(device["memory_capacity_bytes"]))
    test.assertGreater(plan["cost_ms"], 0)
    test.assertEqual(plan["cost_ms"], max(d["total_ms"] for d in plan["devices"]))
