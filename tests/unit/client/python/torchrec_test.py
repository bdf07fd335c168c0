"""client/python/shardplan/torchrec/_format.py without a server: to_torchrec writes every
sharding type as TorchRec's generators and ShardingPlan._serialize do, from_torchrec reads them
back.

Run by ctest with PYTHONPATH=client/python (the package and its committed messages) and
tests/oracles (torch's shard-metadata checks; $SHARDPLAN_TORCH_SOURCE runs torch's own too):
    /usr/bin/python3 -m unittest -v torchrec_test
"""

import os
import unittest

import shardplan
import torch_shard_checks
from shardplan import pb

MODULE = "embedding_bag_collection"


def table(name, sharding_type, shards):
    """A TableSharding from (device, row_offset, row_count, column_offset, column_count)."""
    return pb.TableSharding(table=name, sharding_type=sharding_type, shards=[
        pb.Shard(device=d, row_offset=r0, row_count=r, column_offset=c0, column_count=c)
        for d, r0, r, c0, c in shards])


def exported(*tables, **kwargs):
    local_world_size = kwargs.pop("plan_local_world_size", 0)
    plan = pb.Plan(tables=list(tables), local_world_size=local_world_size)
    return shardplan.to_torchrec(plan, **kwargs)["plan"][MODULE]


class ToTorchRecTest(unittest.TestCase):
    def test_sequence_tables_go_to_the_embedding_collection(self):
        plan = pb.Plan(tables=[table("ids", pb.TABLE_WISE, [(0, 0, 10, 0, 8)]),
                               table("history", pb.ROW_WISE, [(0, 0, 5, 0, 8), (1, 5, 5, 0, 8)])])
        task = pb.Task(tables=[pb.Table(name="ids", rows=10, dim=8),
                               pb.Table(name="history", rows=10, dim=8, pooling=pb.SEQUENCE)])
        modules = shardplan.to_torchrec(plan, task=task)["plan"]
        self.assertEqual(list(modules[MODULE]), ["ids"])
        self.assertEqual(modules["embedding_collection"]["history"]["sharding_type"], "row_wise")
        twrw = pb.Plan(tables=[table("history", pb.TABLE_ROW_WISE,
                                     [(0, 0, 5, 0, 8), (1, 5, 5, 0, 8)])])
        with self.assertRaisesRegex(ValueError, "EmbeddingCollection does not support"):
            shardplan.to_torchrec(twrw, task=task)

    def test_row_wise_blocks_by_row_with_their_ranks_and_the_uneven_last_block(self):
        # TorchRec's row_wise split of 10 rows over 4 ranks: 3, 3, 3, 1; listed out of order.
        entry = exported(table("rw", pb.ROW_WISE, [(2, 6, 3, 0, 8), (0, 9, 1, 0, 8),
                                                   (3, 0, 3, 0, 8), (1, 3, 3, 0, 8)]))["rw"]
        self.assertEqual(list(entry), ["sharding_type", "compute_kernel", "ranks", "shards"])
        self.assertEqual(entry["sharding_type"], "row_wise")
        self.assertEqual(entry["compute_kernel"], "fused")
        self.assertEqual(entry["ranks"], [3, 1, 2, 0])
        self.assertEqual([s["shard_offsets"] for s in entry["shards"]],
                         [[0, 0], [3, 0], [6, 0], [9, 0]])
        self.assertEqual([s["shard_sizes"] for s in entry["shards"]],
                         [[3, 8], [3, 8], [3, 8], [1, 8]])
        self.assertEqual([s["placement"] for s in entry["shards"]],
                         ["rank:3/cuda:3", "rank:1/cuda:1", "rank:2/cuda:2", "rank:0/cuda:0"])

    def test_table_row_wise_on_the_second_host(self):
        # Two hosts of four: TorchRec's table_row_wise(host_index=1) uses ranks 4..7 (cuda:0..3).
        entry = exported(table("twrw", pb.TABLE_ROW_WISE,
                               [(7, 90, 10, 0, 16), (4, 0, 40, 0, 16), (6, 70, 20, 0, 16),
                                (5, 40, 30, 0, 16)]),
                         plan_local_world_size=4)["twrw"]
        self.assertEqual(entry["sharding_type"], "table_row_wise")
        self.assertEqual(entry["compute_kernel"], "fused")
        self.assertEqual(entry["ranks"], [4, 5, 6, 7])
        self.assertEqual(entry["shards"][1], {"shard_offsets": [40, 0], "shard_sizes": [30, 16],
                                              "placement": "rank:5/cuda:1"})
        self.assertEqual(entry["shards"][3]["placement"], "rank:7/cuda:3")

    def test_data_parallel_is_the_replicas_ranks_without_shards(self):
        entry = exported(table("dp", pb.DATA_PARALLEL, [(d, 0, 100, 0, 8) for d in (2, 0, 3, 1)]))
        self.assertEqual(entry["dp"], {"sharding_type": "data_parallel", "compute_kernel": "dense",
                                       "ranks": [0, 1, 2, 3]})

    def test_refuses_row_layouts_torchrec_cannot_run(self):
        # The CLI's exporter refuses the same layouts with the same reasons.
        hot = table("hot", pb.ROW_WISE, [(0, 0, 10, 0, 8), (1, 0, 10, 0, 8), (0, 10, 90, 0, 8)])
        with self.assertRaisesRegex(ValueError, r"table hot has no TorchRec sharding: rows "
                                    r"\[0, 10\) are replicated"):
            exported(hot)
        dp = table("dp", pb.DATA_PARALLEL, [(0, 0, 100, 0, 8), (1, 0, 100, 0, 8)])
        exported(dp)  # without per-device figures the ranks are unknown
        plan = pb.Plan(tables=[dp], devices=[pb.DeviceCost(device=d) for d in range(4)])
        with self.assertRaisesRegex(ValueError, "data_parallel on 2 of 4 ranks"):
            shardplan.to_torchrec(plan)
        ranked = table("ranked", pb.ROW_WISE, [(0, 0, 50, 0, 8), (1, 50, 50, 0, 8)])
        ranked.row_layout.row_order = pb.FREQUENCY_RANK
        with self.assertRaisesRegex(ValueError, "frequency-rank order"):
            exported(ranked)

    def test_local_world_size_argument_then_the_plans_then_one_host(self):
        tw = table("t", pb.TABLE_WISE, [(123, 0, 10, 0, 4)])

        def placement(**kwargs):
            return exported(tw, **kwargs)["t"]["shards"][0]["placement"]

        self.assertEqual(placement(plan_local_world_size=8), "rank:123/cuda:3")
        self.assertEqual(placement(plan_local_world_size=8, local_world_size=16),
                         "rank:123/cuda:11")
        self.assertEqual(placement(), "rank:123/cuda:123")
        self.assertEqual(placement(compute_device="cpu"), "rank:123/cpu")
        with self.assertRaisesRegex(ValueError, "local_world_size must be >= 1, got 0"):
            placement(local_world_size=0)



def row_split(rows, ranks, columns, first_rank=0, local_world_size=None):
    """TorchRec's row_wise / table_row_wise entry for `rows` over `ranks` ranks, as its
    generators write it: ceil(rows / ranks) rows per rank, the last non-empty block shorter,
    trailing ranks empty (sharding_plan.py, _calculate_rw_shard_sizes_and_offsets)."""
    block = -(-rows // ranks)
    local = local_world_size or ranks
    shards, offset = [], 0
    for i in range(ranks):
        size = max(0, min(block, rows - offset))
        rank = first_rank + i
        shards.append({"shard_offsets": [offset, 0], "shard_sizes": [size, columns],
                       "placement": f"rank:{rank}/cuda:{rank % local}"})
        offset += size
    return {"sharding_type": "row_wise", "compute_kernel": "fused",
            "ranks": list(range(first_rank, first_rank + ranks)), "shards": shards}


def task(*shapes):
    return {"tables": [{"name": n, "rows": r, "dim": d, "pooling_factor": 1.0}
                       for n, r, d in shapes],
            "topology": {"num_devices": 8, "device_memory_gib": 16, "devices_per_host": 4}}


class FromTorchRecTest(unittest.TestCase):
    def test_drops_the_zero_row_shards_of_torchrecs_row_split(self):
        entry = row_split(5, 4, 8)
        self.assertEqual([s["shard_sizes"][0] for s in entry["shards"]], [2, 2, 1, 0])
        plan = shardplan.from_torchrec({"plan": {MODULE: {"t": entry}}})
        self.assertEqual([(s.device, s.row_offset, s.row_count) for s in plan.tables[0].shards],
                         [(0, 0, 2), (1, 2, 2), (2, 4, 1)])

    def test_reads_table_row_wise(self):
        entry = dict(row_split(10, 4, 8, first_rank=4), sharding_type="table_row_wise")
        plan = shardplan.from_torchrec({"plan": {MODULE: {"t": entry}}})
        table = plan.tables[0]
        self.assertEqual(table.sharding_type, pb.TABLE_ROW_WISE)
        self.assertEqual([(s.device, s.row_offset, s.row_count) for s in table.shards],
                         [(4, 0, 3), (5, 3, 3), (6, 6, 3), (7, 9, 1)])

    def test_data_parallel_without_shards_is_a_full_replica_per_rank(self):
        sharding_plan = {"plan": {MODULE: {"dp": {
            "sharding_type": "data_parallel", "compute_kernel": "dense", "ranks": [0, 1, 2, 3]}}}}
        for given in (task(("dp", 1000, 16)), shardplan.task_from_dict(task(("dp", 1000, 16)))):
            table = shardplan.from_torchrec(sharding_plan, given).tables[0]
            self.assertEqual(table.sharding_type, pb.DATA_PARALLEL)
            self.assertEqual([(s.device, s.row_offset, s.row_count, s.column_offset,
                               s.column_count) for s in table.shards],
                             [(d, 0, 1000, 0, 16) for d in range(4)])
        self.assertEqual(shardplan.plan_from_dict(sharding_plan, task(("dp", 10, 4))).tables[0]
                         .shards[3].row_count, 10)

    def assertInvalid(self, message, sharding_plan, given_task=None):
        """from_torchrec raises InvalidTaskError whose message matches `message`."""
        with self.assertRaisesRegex(shardplan.InvalidTaskError, "^INVALID_ARGUMENT: " + message):
            shardplan.from_torchrec(sharding_plan, given_task)

    def test_data_parallel_needs_the_tables_shape_and_its_ranks(self):
        dp = {"plan": {"m": {"dp": {"sharding_type": "data_parallel", "ranks": [0, 1]}}}}
        self.assertInvalid(r'plan\.m\.dp: a data_parallel table without "shards" .*pass the task',
                           dp)
        self.assertInvalid(r'plan\.m\.dp: .* the task has no table "dp"$', dp,
                           task(("other", 10, 4)))
        for ranks, error in ((None, r"plan\.m\.dp\.ranks: expected the replicas' ranks"),
                             ([0, -1], r"plan\.m\.dp\.ranks\[1\]: -1 is not a rank$")):
            dp["plan"]["m"]["dp"]["ranks"] = ranks
            self.assertInvalid(error, dp, task(("dp", 10, 4)))

    def test_unreadable_types_name_the_readable_ones(self):
        self.assertInvalid(r"plan\.m\.t\.sharding_type: 'grid_shard' is not one shardplan reads "
                           r"\(table_wise, column_wise, row_wise, table_row_wise, data_parallel\)$",
                           {"plan": {"m": {"t": {"sharding_type": "grid_shard"}}}})

    def test_reads_back_every_type_to_torchrec_writes(self):
        plan = pb.Plan(local_world_size=4, tables=[
            table("tw", pb.TABLE_WISE, [(5, 0, 100, 0, 16)]),
            table("cw", pb.COLUMN_WISE, [(3, 0, 50, 0, 8), (3, 0, 50, 8, 8)]),
            table("rw", pb.ROW_WISE, [(0, 0, 3, 0, 8), (1, 3, 3, 0, 8), (2, 6, 3, 0, 8),
                                      (3, 9, 1, 0, 8)]),
            table("twrw", pb.TABLE_ROW_WISE, [(4, 0, 6, 0, 4), (5, 6, 4, 0, 4)]),
            table("dp", pb.DATA_PARALLEL, [(d, 0, 7, 0, 4) for d in range(8)])])
        read = shardplan.from_torchrec(shardplan.to_torchrec(plan), task(("dp", 7, 4)))
        self.assertEqual(list(read.tables), list(plan.tables))


class TorchShardChecksTest(unittest.TestCase):
    """Exported plans of every type pass torch's shard-metadata checks (tests/oracles)."""

    SHAPES = {"tw": [1000, 16], "cw": [1000, 128], "rw": [10, 8], "rw5": [5, 8],
              "twrw": [10, 16], "dp": [100, 8]}

    def check(self, sharding_plan):
        return torch_shard_checks.check_sharding_plan(sharding_plan, self.SHAPES,
                                                      os.environ.get("SHARDPLAN_TORCH_SOURCE"))

    def test_every_sharding_type_to_torchrec_writes(self):
        plan = pb.Plan(local_world_size=4, tables=[
            table("tw", pb.TABLE_WISE, [(5, 0, 1000, 0, 16)]),
            # NeuroShard's uneven split 64 + 32 + 32, two pieces on one device.
            table("cw", pb.COLUMN_WISE, [(2, 0, 1000, 96, 32), (0, 0, 1000, 0, 64),
                                         (2, 0, 1000, 64, 32)]),
            # TorchRec's row blocks of 10 rows over 4 ranks, the last one short.
            table("rw", pb.ROW_WISE, [(2, 6, 3, 0, 8), (0, 9, 1, 0, 8), (3, 0, 3, 0, 8),
                                      (1, 3, 3, 0, 8)]),
            # Two hosts of four, the table on the second in memory-proportional blocks.
            table("twrw", pb.TABLE_ROW_WISE, [(4, 0, 4, 0, 16), (5, 4, 3, 0, 16),
                                              (6, 7, 2, 0, 16), (7, 9, 1, 0, 16)]),
            table("dp", pb.DATA_PARALLEL, [(d, 0, 100, 0, 8) for d in range(8)])])
        self.assertEqual(self.check(shardplan.to_torchrec(plan)), ["tw", "cw", "rw", "twrw"])

    def test_torchrecs_own_row_split_with_empty_ranks(self):
        entry = row_split(5, 4, 8)  # 2, 2, 1, 0
        self.assertEqual(self.check({"plan": {MODULE: {"rw5": entry}}}), ["rw5"])

    def test_the_checks_refuse_what_torch_refuses(self):
        def refused(shards, message, name="rw"):
            entry = {"sharding_type": "row_wise", "compute_kernel": "fused",
                     "ranks": list(range(len(shards))),
                     "shards": [{"shard_offsets": o, "shard_sizes": z, "placement": p}
                                for o, z, p in shards]}
            with self.assertRaisesRegex(ValueError, f"^plan\\.m\\.{name}: {message}"):
                self.check({"plan": {"m": {name: entry}}})

        ok = "rank:0/cuda:0"
        refused([([0, 0], [6, 8], ok), ([5, 0], [5, 8], ok)], r"Shards .* overlap")
        refused([([0, 0], [4, 8], ok), ([5, 0], [5, 8], ok)], "Total volume of shards: 72 ")
        refused([([0, 0], [5, 8], ok), ([5, 0], [6, 8], ok)], "Shard offset 5 and length 6 ")
        refused([([0, 0], [10, 8], "rank:x/cuda:0")], "Could not parse remote_device")
        refused([([0, 0], [10, 8], "rank:0/gpu:0")], "Could not parse remote_device")
        refused([([0, -1], [10, 8], ok)], "shard_offsets should be >=0")
        refused([([0], [10, 8], ok)], "shard_offsets and shard_sizes should have the same")
        # An empty shard inside another's rows overlaps it; at the end it does not.
        refused([([0, 0], [10, 8], ok), ([5, 0], [0, 8], ok)], r"Shards .* overlap")
        self.assertEqual(self.check({"plan": {"m": {"rw": {"shards": [
            {"shard_offsets": [0, 0], "shard_sizes": [10, 8], "placement": ok},
            {"shard_offsets": [10, 0], "shard_sizes": [0, 8], "placement": ok}]}}}}), ["rw"])


if __name__ == "__main__":
    unittest.main()
