"""shardplan.torchrec.ShardplanPlanner against the real shardplan-server, without torchrec:
plan() of a model of TorchRec-shaped modules (tests/unit/client/python/torchrec_fakes.py) in
the dict form, collective_plan() over simulated ranks (threads and an injected broadcast)
where only rank 0 asks the server, and a launch that waits for its server or falls back.

Run by ctest like test_client.py:
    /usr/bin/python3 -m unittest -v test_torchrec_planner
"""

import logging
import threading
import unittest

import shardplan
import torch_shard_checks
from server_fixture import ServerProcess, SharedServer, refused_port
from shardplan.torchrec import ShardplanPlanner, tables_by_rank, torchrec_available
from tasks import check_plan
from torchrec_fakes import (GIB, EmbeddingBagCollectionSharder, EmbeddingBagConfig,
                            EmbeddingCollectionSharder, EmbeddingConfig, EmbOptimType, Model,
                            ParameterConstraints, Topology, bag_tables, sequence_tables)

EBC = "sparse_arch.embedding_bag_collection"
WORLD = 4


class CountingClient(shardplan.PlannerClient):
    """A PlannerClient that counts its plan() calls."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.plans = 0

    def plan(self, *args, **kwargs):
        self.plans += 1
        return super().plan(*args, **kwargs)


class ThreadGroup:
    """A process group of threads: rank(), size(), and broadcast_object_list's semantics."""

    def __init__(self, size):
        self._size = size
        self._barrier = threading.Barrier(size, timeout=30)
        self._slot = None
        self.broadcasts = 0

    def member(self, rank):
        group = self

        class Member:
            def rank(self):
                return rank

            def size(self):
                return group._size

        member = Member()
        member.group = group
        return member

    @staticmethod
    def broadcast(object_list, src, member):
        group = member.group
        if member.rank() == src:
            group._slot = object_list[0]
            group.broadcasts += 1
        group._barrier.wait()
        object_list[0] = group._slot
        group._barrier.wait()


def topology(hbm_gib=16):
    return Topology(world_size=WORLD, compute_device="cuda", hbm_cap=hbm_gib * GIB,
                    local_world_size=2)


class PlannerTestCase(SharedServer, unittest.TestCase):
    def client(self):
        client = CountingClient(self.server.target, timeout=20)
        self.addCleanup(client.close)
        return client

    def planner(self, client, **kwargs):
        kwargs.setdefault("topology", topology())
        return ShardplanPlanner(client=client, torchrec_objects=False,
                                algorithm="torchrec", **kwargs)


class ShardplanPlannerTest(PlannerTestCase):
    def test_plan_of_two_modules_in_torchrecs_shape_and_back(self):
        client = self.client()
        constraints = {"history": ParameterConstraints(sharding_types=["data_parallel"]),
                       "user_id": ParameterConstraints(pooling_factors=[3.0])}
        planner = self.planner(client, batch_size=256, constraints=constraints)
        sharders = [EmbeddingBagCollectionSharder({"optimizer": EmbOptimType.ADAM}),
                    EmbeddingCollectionSharder({"optimizer": EmbOptimType.ADAM})]
        with self.assertLogs("shardplan.torchrec", "INFO") as logged:
            sharding_plan = planner.plan(Model(bag_tables(), sequence_tables()), sharders)
        self.assertEqual(client.plans, 1)
        # The job log's account of the plan: who planned it, every rank, every table.
        self.assertIn("algorithm torchrec, cost model analytic@1", logged.output[0])
        rows = [r.getMessage() for r in logged.records if r.getMessage().lstrip()[:1].isdigit()]
        self.assertEqual([int(row.split()[0]) for row in rows], list(range(WORLD)))
        self.assertEqual(sum("  table " in line for line in logged.output), 3)
        self.assertEqual(sorted(sharding_plan["plan"]), ["embedding_collection", EBC])
        self.assertEqual(sorted(sharding_plan["plan"][EBC]), ["item_id", "user_id"])
        history = sharding_plan["plan"]["embedding_collection"]["history"]
        self.assertEqual(history, {"sharding_type": "data_parallel", "compute_kernel": "dense",
                                   "ranks": [0, 1, 2, 3]})
        task = planner.last_task.task
        self.assertEqual((task.batch_size, task.memory.optimizer), (256 * WORLD, shardplan.pb.ADAM))
        check_plan(self, shardplan.plan_to_dict(planner.last_plan), shardplan.task_to_dict(task))
        shapes = torch_shard_checks.task_shapes(shardplan.task_to_dict(task))
        self.assertEqual(len(torch_shard_checks.check_sharding_plan(sharding_plan, shapes)), 2)
        placements = [s["placement"] for t in sharding_plan["plan"][EBC].values()
                      for s in t["shards"]]
        self.assertTrue(all(p in {f"rank:{r}/cuda:{r % 2}" for r in range(WORLD)}
                            for p in placements), placements)
        # The server reads the plan back as TorchRec wrote it.
        evaluated = client.evaluate(task, sharding_plan)
        self.assertAlmostEqual(evaluated.cost_ms, planner.last_plan.cost_ms, places=6)
        self.assertEqual(set(tables_by_rank(sharding_plan)), set(range(WORLD)))

    def test_every_algorithm_keeps_to_the_types_the_sharders_support(self):
        """Tables larger than a device, too narrow to cut by columns, must be cut by rows:
        given every type, the planners take table_row_wise for all of them (issue 31). The
        sharders allow an EmbeddingCollection table no table_row_wise (cuda or cpu), and an
        EmbeddingBagCollection table on cpu no row types at all: every algorithm keeps to
        that, or refuses."""
        client = self.client()

        def bag(rows):
            return EmbeddingBagConfig(num_embeddings=rows, embedding_dim=4, name="bag")

        sequence = EmbeddingConfig(num_embeddings=200_000_000, embedding_dim=4, name="seq")
        cpu = Topology(world_size=WORLD, compute_device="cpu", ddr_cap=2 * GIB,
                       local_world_size=2)
        row_level = {shardplan.pb.ROW_WISE, shardplan.pb.TABLE_ROW_WISE}
        planned = set()
        for device, topo, bag_rows in (("cuda", topology(hbm_gib=2), 200_000_000),
                                       ("cpu", cpu, 1_000_000)):
            for algorithm in (a.name for a in client.list_algorithms()):
                planner = ShardplanPlanner(topo, client=client, torchrec_objects=False,
                                           algorithm=algorithm)
                with self.subTest(device=device, algorithm=algorithm):
                    try:
                        planner.plan(Model([bag(bag_rows)], [sequence]), [])
                    except (shardplan.InfeasibleTaskError, shardplan.NotFoundError,
                            shardplan.ResourceExhaustedError):  # no row shards, no policy
                        continue
                    planned.add((device, algorithm))
                    types = {t.table: t.sharding_type for t in planner.last_plan.tables}
                    self.assertEqual(types["seq"], shardplan.pb.ROW_WISE)
                    if device == "cpu":
                        self.assertNotIn(types["bag"], row_level)
        self.assertLessEqual({("cuda", "torchrec"), ("cpu", "torchrec")}, planned)
        with self.assertRaises(shardplan.InfeasibleTaskError):  # TorchRec's cpu sharder too
            ShardplanPlanner(cpu, client=client, torchrec_objects=False,
                             algorithm="torchrec").plan(Model([bag(200_000_000)], []), [])

    def test_a_task_that_fits_nowhere_is_the_servers_refusal(self):
        planner = self.planner(self.client(), topology=topology(hbm_gib=0.0001))
        with self.assertRaises(shardplan.InfeasibleTaskError):
            planner.plan(Model(bag_tables()), [])


class CollectivePlanTest(PlannerTestCase):
    def run_ranks(self, planners, module):
        group = ThreadGroup(len(planners))
        results = [None] * len(planners)

        def rank(r):
            try:
                results[r] = ("plan", planners[r].collective_plan(module, [], group.member(r)))
            except Exception as error:  # pylint: disable=broad-except
                results[r] = ("error", error)

        threads = [threading.Thread(target=rank, args=(r,)) for r in range(len(planners))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        return group, results

    def planners(self, clients, **kwargs):
        return [ShardplanPlanner(client=c, torchrec_objects=False, broadcast=ThreadGroup.broadcast,
                                 **kwargs) for c in clients]

    def test_only_rank_0_asks_and_every_rank_gets_its_plan(self):
        clients = [self.client() for _ in range(WORLD)]
        group, results = self.run_ranks(self.planners(clients, topology=topology()),
                                        Model(bag_tables(), sequence_tables()))
        self.assertEqual([c.plans for c in clients], [1, 0, 0, 0])
        self.assertEqual(group.broadcasts, 1)
        self.assertEqual([kind for kind, _ in results], ["plan"] * WORLD)
        plans = [plan for _, plan in results]
        self.assertTrue(all(plan == plans[0] for plan in plans))
        self.assertEqual(sorted(plans[0]["plan"]), ["embedding_collection", EBC])

    def test_rank_0s_error_is_raised_on_every_rank(self):
        clients = [self.client() for _ in range(WORLD)]
        _, results = self.run_ranks(self.planners(clients, topology=topology(hbm_gib=0.0001)),
                                    Model(bag_tables()))
        self.assertEqual([c.plans for c in clients], [1, 0, 0, 0])
        for kind, error in results:
            self.assertEqual(kind, "error")
            self.assertIsInstance(error, shardplan.InfeasibleTaskError)

    def test_a_group_of_one_plans_without_broadcasting(self):
        def refuse(*args):
            raise AssertionError("broadcast called in a group of one")
        client = self.client()
        planner = ShardplanPlanner(topology(), client=client, torchrec_objects=False,
                                   broadcast=refuse)
        plan = planner.collective_plan(Model(bag_tables()), [], ThreadGroup(1).member(0))
        self.assertEqual(sorted(plan["plan"][EBC]), ["item_id", "user_id"])
        self.assertEqual(client.plans, 1)


class FirstRetry(logging.Handler):
    """Set once the client logged a retry: the launch is waiting."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.seen = threading.Event()

    def emit(self, record):
        if "retrying in" in record.getMessage():
            self.seen.set()


class StandInPlanner:
    """A fallback planner: plan(module, sharders) as TorchRec's planners have it."""

    def __init__(self):
        self.calls = []

    def plan(self, module, sharders):
        self.calls.append((module, sharders))
        return {"plan": {"planned": "by the fallback"}}


class LaunchTest(unittest.TestCase):
    """A launch that waits: a job whose server is not up yet waits for it until its timeout,
    and can fall back to TorchRec's planner (here a stand-in) when it never answers."""

    def test_a_job_launched_before_its_server_gets_its_plan(self):
        sock, port = refused_port()
        planner = ShardplanPlanner(topology(), target=f"127.0.0.1:{port}", timeout=60,
                                   torchrec_objects=False)
        self.addCleanup(planner.client.close)
        retries = FirstRetry()
        logging.getLogger("shardplan").addHandler(retries)
        self.addCleanup(logging.getLogger("shardplan").removeHandler, retries)
        outcome = {}

        def launch():
            try:
                outcome["plan"] = planner.plan(Model(bag_tables()), [])
            except Exception as error:  # pylint: disable=broad-except
                outcome["error"] = error

        job = threading.Thread(target=launch)
        job.start()
        self.assertTrue(retries.seen.wait(30), "the client never retried")
        sock.close()  # the server takes the port the job dials
        with ServerProcess(["--address", f"127.0.0.1:{port}"]):
            job.join(60)
        self.assertNotIn("error", outcome)
        self.assertEqual(sorted(outcome["plan"]["plan"][EBC]), ["item_id", "user_id"])
        self.assertEqual(planner.last_planner, "shardplan")

    def test_the_fallback_plans_when_the_server_never_answers(self):
        sock, port = refused_port()
        fallback = StandInPlanner()
        planner = ShardplanPlanner(topology(), target=f"127.0.0.1:{port}", timeout=0.5,
                                   torchrec_objects=False, fallback=fallback)
        self.addCleanup(planner.client.close)
        model, sharders = Model(bag_tables()), [EmbeddingBagCollectionSharder()]
        with sock, self.assertLogs("shardplan.torchrec", "WARNING") as logged:
            plan = planner.plan(model, sharders)
        self.assertEqual(plan, {"plan": {"planned": "by the fallback"}})
        self.assertEqual(fallback.calls, [(model, sharders)])
        self.assertEqual(planner.last_planner, "fallback")
        self.assertIsNone(planner.last_plan)
        self.assertIn("could not answer", logged.output[0])
        self.assertIn("StandInPlanner instead (fallback)", logged.output[0])

    def test_without_a_fallback_the_servers_absence_is_raised(self):
        sock, port = refused_port()
        planner = ShardplanPlanner(topology(), target=f"127.0.0.1:{port}", timeout=0.5)
        self.addCleanup(planner.client.close)
        with sock, self.assertRaises(shardplan.UnavailableError):
            planner.plan(Model(bag_tables()), [])

    def test_an_answer_about_the_task_is_never_replaced_by_the_fallback(self):
        fallback = StandInPlanner()
        with ServerProcess() as server:
            planner = ShardplanPlanner(topology(hbm_gib=0.0001), target=server.target,
                                       timeout=20, fallback=fallback)
            self.addCleanup(planner.client.close)
            with self.assertRaises(shardplan.InfeasibleTaskError):
                planner.plan(Model(bag_tables()), [])
        self.assertEqual(fallback.calls, [])

    def test_a_fallback_that_cannot_plan_is_refused_at_once(self):
        with self.assertRaisesRegex(ValueError, "fallback: 'nothing' is neither"):
            ShardplanPlanner(topology(), fallback="nothing")
        if not torchrec_available():
            with self.assertRaisesRegex(ValueError, "torchrec does not import here"):
                ShardplanPlanner(topology(), fallback="torchrec")


if __name__ == "__main__":
    unittest.main()
