"""client/python/shardplan/torchrec.py without a server: to_torchrec writes every sharding type as
TorchRec's generators and ShardingPlan._serialize do, from_torchrec reads them back.

Run by ctest with PYTHONPATH=<build>/python (the package and its generated messages):
    /usr/bin/python3 -m unittest -v torchrec_test
"""

import unittest

import shardplan
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


if __name__ == "__main__":
    unittest.main()
