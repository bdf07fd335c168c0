"""The Python client (client/python/shardplan) against the real shardplan-server.

Run by ctest with PYTHONPATH=<build>/python:<this dir>:tests/oracles and SHARDPLAN_SERVER_BINARY
set:
    /usr/bin/python3 -m unittest -v test_client
"""

import json
import os
import subprocess
import tempfile
import time
import unittest
import urllib.request
from unittest import mock

import grpc

import shardplan
import torch_shard_checks
from server_fixture import SecuredPki, SecuredServer, ServerProcess, refused_port
from tasks import (BASELINES, SLOW_ALGORITHM, SLOW_PARAMS, SLOW_TASK, check_plan,
                   example_task, infeasible_task, invalid_task, mixed_plan, mixed_task,
                   multi_host_task, reordered, small_task, torchrec_sharding_plan)


def check_plan_covers(test, plan, task):
    check_plan(test, shardplan.plan_to_dict(plan), task)


class ServerTestCase(unittest.TestCase):
    """One server for the whole class."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess().start()
        cls.client = shardplan.PlannerClient(cls.server.target, timeout=20)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.server.stop()


class PlanTest(ServerTestCase):
    def test_each_baseline_plans_both_examples(self):
        for name in ("task_4dev.json", "task_8dev.json"):
            task = example_task(name)
            for algorithm in BASELINES:
                with self.subTest(example=name, algorithm=algorithm):
                    plan = self.client.plan(task, algorithm=algorithm)
                    self.assertIsInstance(plan, shardplan.pb.Plan)
                    self.assertEqual(plan.algorithm, algorithm)
                    self.assertEqual(plan.cost_model, "analytic@1")
                    check_plan_covers(self, plan, task)

    def test_torchrec_plans_both_examples(self):
        for name in ("task_4dev.json", "task_8dev.json"):
            with self.subTest(example=name):
                task = example_task(name)
                plan = self.client.plan(task, algorithm="torchrec")
                self.assertEqual(plan.parameters["min_partition"], "4")
                check_plan_covers(self, plan, task)

    def test_each_element_type_is_sized_as_torchrec_sizes_it(self):
        """FP32 4 bytes an element, FP16 and BF16 2, INT8, UINT8 and NFP8 1: the plan's memory
        is the tables' rows x dim x that size (weights only, the default)."""
        for name, size in (("FP32", 4), ("FP16", 2), ("BF16", 2), ("INT8", 1), ("UINT8", 1),
                           ("NFP8", 1)):
            with self.subTest(element_type=name):
                task = small_task(2, 2)
                for table in task["tables"]:
                    table["element_type"] = name
                plan = self.client.plan(task, algorithm="size_lookup_greedy")
                expected = sum(t["rows"] * t["dim"] * size for t in task["tables"])
                self.assertEqual(sum(d.memory_bytes for d in plan.devices), expected)
                self.assertEqual(shardplan.task_from_dict(task).tables[0].element_type,
                                 getattr(shardplan.pb, name))

    def test_task_message_and_params(self):
        task = shardplan.task_from_dict(example_task("task_4dev.json"))
        plan = self.client.plan(task, algorithm="random", params={"respect_memory": True},
                                seed=7)
        self.assertEqual(plan.seed, 7)
        self.assertEqual(plan.parameters["respect_memory"], "true")

    def test_reordered_identical_task_hits_the_cache(self):
        task = example_task("task_8dev.json")
        first = self.client.plan_response(task, seed=31337)
        self.assertFalse(first.cache_hit)
        second = self.client.plan_response(reordered(task), seed=31337)
        self.assertTrue(second.cache_hit)
        self.assertEqual(second.plan.request_hash, first.plan.request_hash)
        third = self.client.plan_response(task, seed=31337, bypass_cache=True)
        self.assertFalse(third.cache_hit)

    def test_evaluate_recomputes_cost(self):
        task = example_task("task_4dev.json")
        plan = self.client.plan(task, algorithm="dim_greedy")
        shards_only = {"tables": shardplan.plan_to_dict(plan)["tables"]}
        evaluated = self.client.evaluate(task, shards_only)
        check_plan_covers(self, evaluated, task)
        self.assertAlmostEqual(evaluated.cost_ms, plan.cost_ms, delta=1e-9 * plan.cost_ms)

    def test_access_figures_of_any_plan(self):
        task = example_task("task_4dev.json")
        plan = self.client.plan(task, algorithm="dim_greedy")
        figures = self.client.access_figures(task, plan)
        devices = task["topology"]["num_devices"]
        self.assertEqual(len(figures.devices), devices)
        self.assertEqual(len(figures.communication_us), devices * devices)
        self.assertEqual([d.memory_bytes for d in figures.devices],
                         [d.memory_bytes for d in plan.devices])
        # Table-wise: every device fetches the tables it does not hold.
        self.assertGreater(figures.total_communication_us, 0)
        self.assertAlmostEqual(figures.total_communication_us,
                               sum(d.fetch_us for d in figures.devices), delta=1e-6)
        self.assertTrue(0 < figures.memory_balance <= 1)

    def test_evaluate_on_ground_truth_reads_torchrec_plans(self):
        task = example_task("task_8dev.json")
        plan = self.client.plan(task, algorithm="lookup_greedy")
        sharding_plan = shardplan.to_torchrec(plan, local_world_size=4)
        self.assertEqual(shardplan.from_torchrec(sharding_plan).tables[0].shards[0].device,
                         sorted(plan.tables, key=lambda t: t.table)[0].shards[0].device)
        measured = self.client.evaluate(task, sharding_plan, ground_truth="sim:rtx2080ti")
        self.assertEqual(measured.cost_kind, "ground_truth")
        self.assertEqual(measured.cost_model, "sim-rtx2080ti")
        check_plan_covers(self, measured, task)
        again = self.client.evaluate(task, plan, ground_truth="sim:rtx2080ti")
        self.assertAlmostEqual(measured.cost_ms, again.cost_ms, places=9)
        with self.assertRaises(shardplan.InvalidTaskError) as refused:
            self.client.evaluate(task, sharding_plan, ground_truth="sim:v100")
        self.assertIn("ground_truth: ", refused.exception.message)
        broken = json.loads(json.dumps(sharding_plan))
        table = next(iter(broken["plan"]["embedding_bag_collection"].values()))
        table["shards"][0]["placement"] = "cuda:0"
        with self.assertRaises(shardplan.InvalidTaskError) as bad:
            shardplan.from_torchrec(broken)
        self.assertIn(".placement", str(bad.exception))
        with self.assertRaises(ValueError):
            self.client.evaluate(task, plan, model="analytic", ground_truth="sim:rtx2080ti")

    def test_catalogue_and_health(self):
        algorithms = {a.name: a for a in self.client.list_algorithms()}
        for name in BASELINES + ("exhaustive", "neuroshard", "torchrec"):
            self.assertIn(name, algorithms)
        self.assertTrue(algorithms["neuroshard"].is_default)
        models = [(m.name, m.version) for m in self.client.list_models()]
        self.assertIn(("analytic", "1"), models)
        self.assertEqual(self.client.health(), "SERVING")


class JobKeyTest(ServerTestCase):
    def test_job_key_returns_the_stored_plan_then_replan_and_delete(self):
        task = example_task("task_4dev.json")
        first = self.client.plan_response(task, job_key="py/run-1")
        self.assertFalse(first.from_store)
        again = self.client.plan_response(task, job_key="py/run-1")
        self.assertTrue(again.from_store)
        self.assertEqual(again.job_id, first.job_id)
        with self.assertRaises(shardplan.ShardplanError):
            self.client.plan(task, seed=5, job_key="py/run-1")
        replanned = self.client.replan(task, job_key="py/run-1")
        self.assertNotEqual(replanned.job_id, first.job_id)
        self.assertEqual(self.client.delete_plan(job_key="py/run-1"), replanned.job_id)
        with self.assertRaises(shardplan.NotFoundError):
            self.client.delete_plan(job_key="py/run-1")


class ErrorTest(ServerTestCase):
    def test_invalid_task(self):
        with self.assertRaises(shardplan.InvalidTaskError) as caught:
            self.client.plan(invalid_task())
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("tables[1].dim", caught.exception.message)
        self.assertIsInstance(caught.exception, ValueError)

    def test_malformed_dict_fails_before_the_call(self):
        with mock.patch.object(self.client._stub, "Plan") as rpc:
            with self.assertRaises(shardplan.InvalidTaskError) as caught:
                self.client.plan({"tables": [{"nmae": "t0"}]})
        rpc.assert_not_called()
        self.assertIn("nmae", caught.exception.message)

    def test_infeasible_task(self):
        with self.assertRaises(shardplan.InfeasibleTaskError) as caught:
            self.client.plan(infeasible_task())
        self.assertEqual(caught.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        self.assertIn("t1", caught.exception.message)

    def test_unknown_model_and_job(self):
        with self.assertRaises(shardplan.NotFoundError):
            self.client.plan(small_task(2, 2), model="no_such_model")
        with self.assertRaises(shardplan.NotFoundError):
            self.client.plan(small_task(2, 2), model="analytic@999")
        with self.assertRaises(shardplan.NotFoundError) as caught:
            self.client.get("no-such-job")
        self.assertIsInstance(caught.exception, LookupError)

    def test_deadline_exceeded(self):
        with self.assertRaises(shardplan.DeadlineExceededError) as caught:
            self.client.plan(SLOW_TASK, algorithm=SLOW_ALGORITHM, params=SLOW_PARAMS,
                             timeout=0.3)
        self.assertIsInstance(caught.exception, TimeoutError)
        self.assertEqual(self.client.health(), "SERVING")


class JobTest(ServerTestCase):
    def test_submit_watch_and_wait(self):
        task = example_task("task_8dev.json")
        job_id = self.client.submit(task, algorithm="size_greedy")
        statuses = list(self.client.watch(job_id, timeout=30))
        self.assertTrue(statuses)
        self.assertEqual(statuses[-1].state, shardplan.pb.SUCCEEDED)
        self.assertTrue(all(s.job_id == job_id for s in statuses))
        check_plan_covers(self, statuses[-1].result.plan, task)
        plan = self.client.wait(job_id, timeout=30)
        self.assertEqual(plan.request_hash, statuses[-1].result.plan.request_hash)
        self.assertEqual(self.client.get(job_id).state, shardplan.pb.SUCCEEDED)

    def test_cancel(self):
        job_id = self.client.submit(SLOW_TASK, algorithm=SLOW_ALGORITHM, params=SLOW_PARAMS)
        status = self.client.cancel(job_id)
        self.assertNotEqual(status.state, shardplan.pb.SUCCEEDED)
        with self.assertRaises(shardplan.CancelledError) as caught:
            self.client.wait(job_id, timeout=30)
        self.assertEqual(caught.exception.job_id, job_id)
        self.assertEqual(self.client.get(job_id).state, shardplan.pb.CANCELLED)

    def test_failed_job_raises_the_jobs_error(self):
        job_id = self.client.submit(infeasible_task())
        with self.assertRaises(shardplan.InfeasibleTaskError) as caught:
            self.client.wait(job_id, timeout=30)
        self.assertEqual(caught.exception.job_id, job_id)


def huge_table_task(allowed=("TABLE_WISE", "ROW_WISE")):
    """A 30 GiB table (125829120 rows x 64 fp32 columns) and two small ones on eight 16 GiB
    devices, two hosts of four: the huge table fits no device whole."""
    task = small_task(2, 8)
    task["topology"]["devices_per_host"] = 4
    task["tables"].append({"name": "huge", "rows": 30 * (1 << 30) // (64 * 4), "dim": 64,
                           "pooling_factor": 4.0, "allowed_sharding_types": list(allowed)})
    return task


class RowLevelTest(ServerTestCase):
    """Issue 15's acceptance: a table larger than any device, planned, exported and costed."""

    def test_a_table_larger_than_any_device_gets_a_row_wise_plan(self):
        task = huge_table_task()
        response = self.client.plan_response(task, algorithm="torchrec")
        plan = response.plan
        check_plan_covers(self, plan, task)
        self.assertEqual(plan.cost_model, "analytic@1")  # the one loaded model that costs RW
        self.assertEqual(plan.local_world_size, 4)
        huge = next(t for t in plan.tables if t.table == "huge")
        self.assertEqual(huge.sharding_type, shardplan.pb.ROW_WISE)
        self.assertEqual([s.device for s in huge.shards], list(range(8)))
        self.assertEqual([s.row_offset for s in huge.shards],
                         [i * 15728640 for i in range(8)])  # TorchRec's blocks: ceil(rows / 8)
        for device in plan.devices:
            self.assertLessEqual(device.memory_bytes, device.memory_capacity_bytes)
        sharding_plan = shardplan.to_torchrec(plan)
        self.assertIn("huge", torch_shard_checks.check_sharding_plan(
            sharding_plan, torch_shard_checks.task_shapes(task),
            os.environ.get("SHARDPLAN_TORCH_SOURCE")))
        entry = sharding_plan["plan"]["embedding_bag_collection"]["huge"]
        self.assertEqual(entry["sharding_type"], "row_wise")
        self.assertEqual(entry["ranks"], list(range(8)))
        self.assertEqual([s["placement"] for s in entry["shards"]],
                         [f"rank:{r}/cuda:{r % 4}" for r in range(8)])

    def test_whole_table_planners_name_the_table_and_the_largest_device(self):
        with self.assertRaises(shardplan.InfeasibleTaskError) as raised:
            self.client.plan(huge_table_task(), algorithm="size_greedy")
        self.assertIn('table "huge" needs 30.00 GiB but the largest device (device 0) holds '
                      '16.00 GiB', str(raised.exception))

    def test_evaluate_costs_the_row_level_types_under_analytic(self):
        task = huge_table_task(allowed=())
        plan = self.client.plan(task, algorithm="torchrec")
        for kind in (shardplan.pb.ROW_WISE, shardplan.pb.DATA_PARALLEL):
            with self.subTest(kind=kind):
                evaluated = shardplan.pb.Plan()
                evaluated.CopyFrom(plan)
                small = next(t for t in evaluated.tables if t.table == "t0")
                small.sharding_type = kind
                del small.shards[:]
                if kind == shardplan.pb.ROW_WISE:
                    for d in range(8):
                        small.shards.add(device=d, row_offset=125 * d, row_count=125,
                                         column_count=16)
                else:
                    for d in range(8):
                        small.shards.add(device=d, row_count=1000, column_count=16)
                result = self.client.evaluate(task, evaluated, model="analytic@1")
                self.assertEqual(result.cost_model, "analytic@1")
                self.assertGreater(result.cost_ms, 0)


class MeasurementTest(unittest.TestCase):
    """report_measurement: a training job's measured step times against the model's prediction,
    kept per model version and exported as shardplan_model_prediction_error{model}."""

    def setUp(self):
        self.server = ServerProcess(extra_args=["--metrics_address", "127.0.0.1:0"]).start()
        self.addCleanup(self.server.stop)
        self.client = shardplan.PlannerClient(self.server.target, timeout=20)
        self.addCleanup(self.client.close)

    def metric(self, name, model):
        text = urllib.request.urlopen(
            f"http://127.0.0.1:{self.server.metrics_port}/metrics", timeout=10).read().decode()
        prefix = f'{name}{{model="{model}"}} '
        for line in text.splitlines():
            if line.startswith(prefix):
                return float(line[len(prefix):])
        return None

    def test_measured_steps_track_the_models_error(self):
        task = example_task("task_8dev.json")
        plan = self.client.plan(task, algorithm="torchrec", model="analytic@1")
        # The job measured every device 20% slower than predicted.
        device_ms = [1.2 * device.total_ms for device in plan.devices]
        report = self.client.report_measurement(task, plan, device_ms)
        self.assertEqual(report.cost_model, "analytic@1")
        self.assertAlmostEqual(report.predicted_ms, plan.cost_ms, places=9)
        self.assertAlmostEqual(report.measured_ms, max(device_ms), places=9)
        expected = (plan.cost_ms - max(device_ms)) / max(device_ms)
        self.assertAlmostEqual(report.relative_error, expected, places=9)
        self.assertEqual(len(report.predicted_device_ms), 8)
        self.assertEqual(report.reports, 1)
        # A second job measured the prediction exactly: the mean error halves.
        report = self.client.report_measurement(task, plan, [d.total_ms for d in plan.devices])
        self.assertEqual(report.reports, 2)
        self.assertAlmostEqual(report.mean_abs_relative_error, abs(expected) / 2, places=9)
        self.assertAlmostEqual(
            self.metric("shardplan_model_prediction_error", "analytic@1"), abs(expected) / 2,
            places=6)
        self.assertEqual(self.metric("shardplan_model_measurements_total", "analytic@1"), 2)

    def test_bad_measurements_are_refused_naming_the_field(self):
        task = example_task("task_4dev.json")
        plan = self.client.plan(task, model="analytic@1")
        with self.assertRaises(shardplan.InvalidTaskError) as caught:
            self.client.report_measurement(task, plan, [1.0, 2.0])
        self.assertIn("device_ms: 2 times for a task of 4 devices", str(caught.exception))
        with self.assertRaises(shardplan.InvalidTaskError) as caught:
            self.client.report_measurement(task, plan, [1.0, 2.0, 0.0, 3.0])
        self.assertIn("device_ms[2]", str(caught.exception))
        # A TorchRec plan carries no cost model: the caller names it.
        torchrec_plan = shardplan.to_torchrec(plan)
        with self.assertRaises(shardplan.InvalidTaskError) as caught:
            self.client.report_measurement(task, torchrec_plan, [1.0] * 4)
        self.assertIn("model:", str(caught.exception))
        report = self.client.report_measurement(task, torchrec_plan, [1.0] * 4,
                                                model="analytic@1")
        self.assertEqual(report.cost_model, "analytic@1")
        # Nothing refused was counted.
        self.assertEqual(self.metric("shardplan_model_measurements_total", "analytic@1"), 1)


class TorchRecTest(ServerTestCase):
    def test_to_torchrec_shape(self):
        task = example_task("task_8dev.json")  # 2 hosts of 4 devices
        plan = self.client.plan(task, algorithm="lookup_greedy")
        sharding_plan = shardplan.to_torchrec(plan, local_world_size=4)
        json.dumps(sharding_plan)  # plain JSON types only
        module = sharding_plan["plan"]["embedding_bag_collection"]
        self.assertEqual(sorted(module), sorted(t["name"] for t in task["tables"]))
        for table in task["tables"]:
            entry = module[table["name"]]
            self.assertEqual(entry["sharding_type"], "table_wise")
            self.assertEqual(entry["compute_kernel"], "fused")
            self.assertEqual(len(entry["ranks"]), 1)
            rank = entry["ranks"][0]
            self.assertEqual(entry["shards"], [{
                "shard_offsets": [0, 0],
                "shard_sizes": [table["rows"], table["dim"]],
                "placement": f"rank:{rank}/cuda:{rank % 4}",
            }])
        # Dicts as the CLI prints them (--json) convert the same way.
        response = self.client.plan_response(task, algorithm="lookup_greedy")
        as_dict = shardplan.message_to_dict(response)
        self.assertEqual(shardplan.to_torchrec(as_dict, local_world_size=4), sharding_plan)
        custom = shardplan.to_torchrec(plan, module_path="sparse.ebc")
        self.assertEqual(list(custom["plan"]), ["sparse.ebc"])

    def test_placements_follow_the_plans_hosts(self):
        # Rank 123 of 16 hosts x 8 devices: the plan's local_world_size places it on cuda:3.
        plan = self.client.plan(multi_host_task())
        self.assertEqual(plan.local_world_size, 8)
        for source in (plan, shardplan.plan_to_dict(plan)):
            entry = shardplan.to_torchrec(source)["plan"]["embedding_bag_collection"]["t0"]
            self.assertEqual(entry["shards"][0]["placement"], "rank:123/cuda:3")
        entry = shardplan.to_torchrec(plan, local_world_size=16)["plan"][
            "embedding_bag_collection"]["t0"]
        self.assertEqual(entry["shards"][0]["placement"], "rank:123/cuda:11")
        plan.local_world_size = 0  # a plan from before plans carried it: one host
        entry = shardplan.to_torchrec(plan)["plan"]["embedding_bag_collection"]["t0"]
        self.assertEqual(entry["shards"][0]["placement"], "rank:123/cuda:123")

    def test_evaluate_reads_every_sharding_type_torchrec_writes(self):
        plan = self.client.evaluate(mixed_task(), torchrec_sharding_plan(), model="analytic@1")
        tables = {t.table: t for t in plan.tables}
        self.assertEqual(tables["twrw"].sharding_type, shardplan.pb.TABLE_ROW_WISE)
        self.assertEqual([s.device for s in tables["rw"].shards], [0, 1, 2, 3, 4])
        self.assertEqual([(s.device, s.row_count) for s in tables["dp"].shards],
                         [(d, 100) for d in range(8)])
        self.assertGreater(plan.cost_ms, 0)

    def test_export_of_every_sharding_type_passes_torchs_shard_checks(self):
        task = mixed_task()
        plan = self.client.evaluate(task, mixed_plan(), model="analytic@1")
        self.assertEqual(plan.local_world_size, 4)
        sharding_plan = shardplan.to_torchrec(plan)
        checked = torch_shard_checks.check_sharding_plan(
            sharding_plan, torch_shard_checks.task_shapes(task),
            os.environ.get("SHARDPLAN_TORCH_SOURCE"))
        self.assertEqual(sorted(checked), ["cw", "rw", "tw", "twrw"])  # dp has no shards
        # TorchRec's own layout (zero-row trailing shards included) passes them too.
        self.assertEqual(sorted(torch_shard_checks.check_sharding_plan(
            torchrec_sharding_plan(), torch_shard_checks.task_shapes(task))),
            ["cw", "rw", "tw", "twrw"])

    def test_column_wise_shards(self):
        plan = shardplan.pb.Plan(tables=[shardplan.pb.TableSharding(
            table="wide", sharding_type=shardplan.pb.COLUMN_WISE,
            shards=[shardplan.pb.Shard(device=3, row_count=10, column_offset=64,
                                       column_count=64),
                    shardplan.pb.Shard(device=1, row_count=10, column_offset=0,
                                       column_count=64)])])
        entry = shardplan.to_torchrec(plan, local_world_size=2)["plan"][
            "embedding_bag_collection"]["wide"]
        self.assertEqual(entry["sharding_type"], "column_wise")
        self.assertEqual(entry["ranks"], [1, 3])
        self.assertEqual([s["shard_offsets"] for s in entry["shards"]], [[0, 0], [0, 64]])
        self.assertEqual([s["placement"] for s in entry["shards"]],
                         ["rank:1/cuda:1", "rank:3/cuda:1"])


class FakeClock:
    """The `time` module of the retry loop (monotonic, sleep): time passes only when it sleeps.
    It replaces the modules' name `time`, never time's own functions, which threads use."""

    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


class RetryTest(unittest.TestCase):
    def test_unavailable_after_the_configured_retries(self):
        sock, port = refused_port()
        with sock, shardplan.PlannerClient(f"127.0.0.1:{port}", retries=2,
                                           initial_backoff=0.01) as client:
            with mock.patch("shardplan.client.time.sleep") as sleep:
                with self.assertRaises(shardplan.UnavailableError) as caught:
                    client.list_models()
            self.assertEqual(sleep.call_count, 2)  # 3 attempts
            self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)
            self.assertIsInstance(caught.exception, ConnectionError)

    def test_no_retries(self):
        sock, port = refused_port()
        with sock, shardplan.PlannerClient(f"127.0.0.1:{port}", retries=0) as client:
            with mock.patch("shardplan.client.time.sleep") as sleep:
                with self.assertRaises(shardplan.UnavailableError):
                    client.health()
            sleep.assert_not_called()

    def test_without_a_count_retries_until_the_deadline(self):
        """retries=None (the default): backoff 0.2 s doubling to 5 s, each sleep jittered, the
        last cut short, until the 60 s deadline; on a clock that moves only when it sleeps."""
        clock = FakeClock()
        sock, port = refused_port()
        with sock, shardplan.PlannerClient(f"127.0.0.1:{port}", timeout=60) as client, \
                mock.patch("shardplan._base.time", clock), \
                mock.patch("shardplan.client.time", clock), \
                self.assertLogs("shardplan", "WARNING") as logged:
            with self.assertRaises(shardplan.UnavailableError):
                client.list_models()
        self.assertGreater(len(clock.sleeps), 10)  # the old fixed count was 3
        self.assertLessEqual(clock.now, 60 - 0.2)  # the last attempt starts before the deadline
        self.assertLessEqual(max(clock.sleeps), 5 * 1.2)
        self.assertEqual(len(set(clock.sleeps)), len(clock.sleeps))  # jittered
        self.assertEqual(len(logged.records), len(clock.sleeps))
        self.assertIn("ListModels: UNAVAILABLE", logged.output[0])

    def test_watch_retries_then_raises(self):
        sock, port = refused_port()
        with sock, shardplan.PlannerClient(f"127.0.0.1:{port}", retries=3) as client:
            with mock.patch("shardplan.client.time.sleep") as sleep:
                with self.assertRaises(shardplan.UnavailableError):
                    list(client.watch("job"))
            self.assertEqual(sleep.call_count, 3)


class BusyRetryTest(unittest.TestCase):
    """RESOURCE_EXHAUSTED is retried when the server marks it transient (busy now), not for a
    task over its limits."""

    def test_a_busy_server_is_retried_and_a_task_over_its_limits_is_not(self):
        server = ServerProcess(["--max_concurrent_plans=1", "--max_tables=20",
                                "--store="]).start()
        try:
            with shardplan.PlannerClient(server.target, timeout=20, retries=5,
                                         initial_backoff=0.01) as client, \
                    shardplan.PlannerClient(server.target, timeout=20, retries=0) as probe:
                # A slow call holds the only planning slot until it is cancelled.
                def hold_the_slot():
                    return client._stub.Plan.future(shardplan.pb.PlanRequest(
                        task=shardplan.task_from_dict(SLOW_TASK), algorithm=SLOW_ALGORITHM,
                        parameters={k: str(v) for k, v in SLOW_PARAMS.items()}))

                slow = hold_the_slot()
                refusal = None
                for seed in range(1000, 1500):
                    if slow.done():  # a probe reached the server first and took the slot
                        slow = hold_the_slot()
                        time.sleep(0.01)
                    try:
                        probe.plan(small_task(6, 2), algorithm="size_lookup_greedy", seed=seed)
                    except shardplan.ResourceExhaustedError as e:
                        refusal = e
                        break
                self.assertIsNotNone(refusal, "the slow call never took the planning slot")
                self.assertEqual(refusal.retry_after, 0.1)  # the server's hint
                real_sleep = time.sleep
                sleeps = []

                def sleep_and_free_the_slot(seconds):
                    sleeps.append(seconds)
                    slow.cancel()
                    real_sleep(seconds)

                with mock.patch("shardplan.client.time.sleep", sleep_and_free_the_slot):
                    plan = client.plan(small_task(6, 2), algorithm="size_lookup_greedy", seed=1)
                check_plan_covers(self, plan, small_task(6, 2))
                self.assertGreaterEqual(len(sleeps), 1)
                self.assertGreaterEqual(sleeps[0], 0.1)  # the hint outweighs a 10 ms backoff

                with mock.patch("shardplan.client.time.sleep") as sleep:
                    with self.assertRaises(shardplan.ResourceExhaustedError) as over:
                        client.plan(small_task(21, 2), algorithm="size_lookup_greedy")
                sleep.assert_not_called()
                self.assertIsNone(over.exception.retry_after)
                self.assertIn("task.tables", over.exception.message)
        finally:
            server.stop()


class ModelsTest(unittest.TestCase):
    """list_models and reload_models over a server with a models directory."""

    def setUp(self):
        models = tempfile.TemporaryDirectory(prefix="shardplan-models-")
        self.addCleanup(models.cleanup)
        self.root = models.name
        self.write_bundle("tiny", "1")
        self.server = ServerProcess(extra_args=[
            "--models_dir", self.root, "--model_reload_interval_s", "0"]).start()
        self.addCleanup(self.server.stop)
        self.client = shardplan.PlannerClient(self.server.target, timeout=20)
        self.addCleanup(self.client.close)

    def write_bundle(self, name, version):
        subprocess.run([os.environ["SHARDPLAN_TEST_BUNDLE"], self.root, name, version],
                       check=True, timeout=60)

    def test_reload_models_serves_a_new_version(self):
        listed = {(m.name, m.version): m for m in self.client.list_models()}
        self.assertEqual(listed[("tiny", "1")].hardware_profile, "test-profile")
        self.assertEqual(listed[("tiny", "1")].test_mse["compute"], 0.25)
        self.write_bundle("tiny", "2")
        report = self.client.reload_models()
        self.assertEqual(list(report.loaded), ["tiny@2"])
        self.assertEqual(list(report.unchanged), ["tiny@1"])
        self.assertEqual(len(report.refused), 0)
        plan = self.client.plan(example_task("task_4dev.json"), model="tiny")
        self.assertEqual(plan.cost_model, "tiny@2")


class SecuredServerTest(unittest.TestCase):
    """token=, $SHARDPLAN_TOKEN and tls_* against a server with mutual TLS and bearer tokens."""

    @classmethod
    def setUpClass(cls):
        cls.secured = SecuredServer().start()
        cls.pki, cls.server = cls.secured.pki, cls.secured.server

    @classmethod
    def tearDownClass(cls):
        cls.secured.stop()

    def setUp(self):
        patcher = mock.patch.dict(os.environ)
        patcher.start()
        self.addCleanup(patcher.stop)
        os.environ.pop("SHARDPLAN_TOKEN", None)

    def client(self, token=None, client="client", **kwargs):
        tls = dict(tls_ca=self.pki.file("ca.pem"), tls_cert=self.pki.file(f"{client}.pem"),
                   tls_key=self.pki.file(f"{client}.key"))
        tls.update(kwargs)
        result = shardplan.PlannerClient(self.server.target, timeout=20, retries=0, token=token,
                                         **tls)
        self.addCleanup(result.close)
        return result

    def test_plan_watch_and_health_with_certificate_and_token(self):
        client = self.client(SecuredPki.PLANNER_TOKEN)
        task = example_task("task_4dev.json")
        check_plan_covers(self, client.plan(task), task)
        job_id = client.submit(task, bypass_cache=True)
        check_plan_covers(self, client.wait(job_id), task)  # the stream carries the token too
        self.assertEqual(client.health(), "SERVING")
        self.assertEqual(self.client(None).health(), "SERVING")  # health needs no token

    def test_missing_or_unknown_token_is_unauthenticated(self):
        for token in (None, "not-a-known-token"):
            with self.subTest(token=token):
                with self.assertRaises(shardplan.UnauthenticatedError) as raised:
                    self.client(token).list_algorithms()
                self.assertEqual(raised.exception.code, grpc.StatusCode.UNAUTHENTICATED)
                self.assertIn("bearer token", raised.exception.message)

    def test_admin_calls_need_the_admin_role(self):
        planner = self.client(SecuredPki.PLANNER_TOKEN)
        for call in (planner.reload_models, lambda: planner.delete_plan(job_id="some-job")):
            with self.assertRaises(shardplan.PermissionDeniedError) as raised:
                call()
            self.assertIsInstance(raised.exception, shardplan.ShardplanError)
            self.assertIn('needs role "admin"', raised.exception.message)
        admin = self.client(SecuredPki.ADMIN_TOKEN)
        self.assertEqual(list(admin.reload_models().unchanged), ["tiny@1"])
        with self.assertRaises(shardplan.NotFoundError):  # past the role check
            admin.delete_plan(job_id="no-such-job")

    def test_token_from_environment_unless_given(self):
        os.environ["SHARDPLAN_TOKEN"] = f" {SecuredPki.PLANNER_TOKEN}\n"
        self.assertTrue(self.client().list_algorithms())
        os.environ["SHARDPLAN_TOKEN"] = "not-a-known-token"
        with self.assertRaises(shardplan.UnauthenticatedError):
            self.client().list_algorithms()
        self.assertTrue(self.client(SecuredPki.PLANNER_TOKEN).list_algorithms())

    def test_connections_the_server_refuses_are_unavailable(self):
        plaintext = shardplan.PlannerClient(self.server.target, timeout=20, retries=0,
                                            token=SecuredPki.PLANNER_TOKEN)
        self.addCleanup(plaintext.close)
        clients = {
            "plaintext": plaintext,
            "no client certificate": self.client(SecuredPki.PLANNER_TOKEN, tls_cert=None,
                                                 tls_key=None),
            "certificate from another CA": self.client(SecuredPki.PLANNER_TOKEN,
                                                       client="rogue_client"),
            "name not in the certificate": self.client(SecuredPki.PLANNER_TOKEN,
                                                       tls_server_name="planner.example"),
        }
        for name, client in clients.items():
            with self.subTest(name):
                with self.assertRaises(shardplan.UnavailableError):
                    client.list_algorithms()
        self.assertEqual(self.client(tls_server_name="localhost").health(), "SERVING")

    def test_bad_options_raise_value_error_naming_the_parameter(self):
        cases = {
            "tls_key": dict(tls_key=None),
            "tls_ca": dict(tls_ca=self.pki.file("no-such.pem")),
        }
        for parameter, kwargs in cases.items():
            with self.subTest(parameter):
                with self.assertRaisesRegex(ValueError, parameter):
                    self.client(SecuredPki.PLANNER_TOKEN, **kwargs)
        with self.assertRaisesRegex(ValueError, "token"):
            shardplan.PlannerClient(self.server.target, token="two words")
        with self.assertRaisesRegex(ValueError, "tls_server_name"):
            shardplan.PlannerClient(self.server.target, tls_server_name="localhost")


if __name__ == "__main__":
    unittest.main()
