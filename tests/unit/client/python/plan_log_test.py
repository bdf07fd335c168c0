"""shardplan.torchrec's plan log (_plan_log.py): the lines ShardplanPlanner logs for a plan, as
TorchRec's planner logs its stats, on a plan built by hand."""

import logging
import unittest

from shardplan.torchrec._plan_log import log_plan, plan_log_lines
from shardplan.v1 import planner_pb2 as pb

GIB = 1024 ** 3


def two_rank_plan():
    plan = pb.Plan(algorithm="torchrec", cost_model="analytic@1", cost_ms=2.5,
                   bottleneck_device=1, selection="model: analytic@1, as no model was named")
    plan.tables.add(table="user_id", sharding_type=pb.COLUMN_WISE, shards=[
        pb.Shard(device=0, row_count=100, column_count=32),
        pb.Shard(device=1, row_count=100, column_offset=32, column_count=32)])
    plan.tables.add(table="item_id", sharding_type=pb.TABLE_WISE,
                    shards=[pb.Shard(device=1, row_count=10, column_count=16)])
    plan.devices.add(device=0, memory_bytes=GIB // 2, memory_capacity_bytes=4 * GIB,
                     compute_ms=1.0, forward_comm_ms=0.25, backward_comm_ms=0.25, total_ms=1.5)
    plan.devices.add(device=1, memory_bytes=GIB, memory_capacity_bytes=4 * GIB,
                     compute_ms=2.0, forward_comm_ms=0.25, backward_comm_ms=0.25, total_ms=2.5)
    plan.warnings.add(code="TORCHREC_MEMORY", field="task.memory",
                      message="device 1 is 90% full")
    return plan


class PlanLogTest(unittest.TestCase):
    def test_the_lines_name_the_planner_and_every_rank_and_table(self):
        lines = plan_log_lines(two_rank_plan(), {"user_id": "sparse.ebc"})
        self.assertEqual(lines[0], "shardplan plan: algorithm torchrec, cost model analytic@1, "
                                   "predicted step 2.500 ms (rank 1), 2 tables on 2 ranks")
        self.assertEqual(lines[1], "shardplan plan: chosen by the server: model: analytic@1, "
                                   "as no model was named")
        header, rank0, rank1 = lines[2:5]
        self.assertTrue(header.startswith("rank  shards"))
        self.assertEqual(rank0.split(), ["0", "CW", "1", "0.500", "/", "4.0", "12.5", "1.000",
                                         "0.250", "0.250", "1.500", "user_id"])
        self.assertEqual(rank1.split(), ["1", "TW", "1,", "CW", "1", "1.000", "/", "4.0",
                                         "25.0", "2.000", "0.250", "0.250", "2.500",
                                         "item_id,", "user_id"])
        self.assertEqual(lines[5:], [
            "  table sparse.ebc.user_id: column_wise, 2 shards on ranks 0, 1",
            "  table item_id: table_wise, 1 shards on ranks 1"])

    def test_info_for_the_plan_and_warning_for_each_warning(self):
        logger = logging.getLogger("shardplan.torchrec.test")
        with self.assertLogs(logger, "INFO") as logged:
            log_plan(logger, two_rank_plan())
        levels = [r.levelname for r in logged.records]
        self.assertEqual(levels, ["INFO"] * 7 + ["WARNING"])
        self.assertEqual(logged.records[-1].getMessage(), "shardplan plan warning "
                         "TORCHREC_MEMORY (task.memory): device 1 is 90% full")

    def test_an_anytime_plan_says_so(self):
        plan = two_rank_plan()
        plan.stats.anytime_result = True
        self.assertIn("shardplan plan: the search was cut short by its deadline (anytime plan)",
                      plan_log_lines(plan))


if __name__ == "__main__":
    unittest.main()
