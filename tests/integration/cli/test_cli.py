"""The shardplan CLI as a real process against the real shardplan-server.

Run by ctest with SHARDPLAN_CLI, SHARDPLAN_SERVER_BINARY and PYTHONPATH (for server_fixture
and tasks in tests/integration/python, the shardplan package, and tests/oracles) set:
    /usr/bin/python3 -m unittest -v test_cli
Checks the documented contract: output shapes, and the exit codes of docs/cli.md.
"""

import json
import os
import re
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

import shardplan
import torch_shard_checks
from server_fixture import SecuredPki, SecuredServer, ServerProcess, refused_port
from tasks import (BASELINES, SLOW_ALGORITHM, SLOW_PARAMS, SLOW_TASK, check_plan,
                   example_task, examples_dir, infeasible_task, invalid_task, mixed_plan,
                   mixed_task, multi_host_task, reordered, torchrec_sharding_plan)

COMMANDS = ("plan", "submit", "get", "watch", "cancel", "evaluate", "report", "plot",
            "algorithms", "models", "health")
EXIT_OK, EXIT_USAGE, EXIT_INVALID, EXIT_INFEASIBLE, EXIT_NOT_FOUND = 0, 2, 3, 4, 5
EXIT_UNAVAILABLE, EXIT_DEADLINE, EXIT_EXHAUSTED, EXIT_CANCELLED, EXIT_JOB_FAILED = 6, 7, 8, 9, 10
EXIT_UNAUTHENTICATED, EXIT_PERMISSION_DENIED = 11, 12
SLOW_PARAM_ARGS = [arg for k, v in SLOW_PARAMS.items() for arg in ("--param", f"{k}={v}")]


def example(name):
    return os.path.join(examples_dir(), name)


def run_cli(*args, stdin=None, env=None, timeout=60):
    """Runs the CLI; returns the CompletedProcess (text mode)."""
    return subprocess.run([os.environ["SHARDPLAN_CLI"], *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=timeout)


class CliTestCase(unittest.TestCase):
    server = None

    def assertExit(self, result, code):
        self.assertEqual(result.returncode, code,
                         f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")

    def assertError(self, result, code, grpc_code):
        """Exit `code` and exactly one error line "shardplan: <grpc_code>: ..." on stderr."""
        self.assertExit(result, code)
        self.assertRegex(result.stderr, rf"(?m)^shardplan: {grpc_code}: .+$")

    def cli(self, *args, **kwargs):
        """The CLI with --server set to this class's server."""
        return run_cli(*args, "--server", self.server.target, **kwargs)

    def write_json(self, value):
        handle = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        with handle:
            json.dump(value, handle)
        self.addCleanup(os.unlink, handle.name)
        return handle.name


class ServerTestCase(CliTestCase):
    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(extra_args=cls.server_args).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()


class UsageTest(CliTestCase):
    """No server needed: help and command-line errors."""

    def test_help_for_the_tool_and_every_command(self):
        result = run_cli("--help")
        self.assertExit(result, EXIT_OK)
        for command in COMMANDS:
            self.assertIn(f"  {command} ", result.stdout)
        self.assertIn("Exit codes:", result.stdout)
        for command in COMMANDS:
            with self.subTest(command=command):
                result = run_cli(command, "--help")
                self.assertExit(result, EXIT_OK)
                self.assertTrue(result.stdout.startswith(f"Usage: shardplan {command}"))
                self.assertIn("--server", result.stdout)
        self.assertEqual(run_cli("help", "plan").stdout, run_cli("plan", "-h").stdout)

    def test_usage_errors_exit_2(self):
        task = example("task_4dev.json")
        for args in ([], ["frobnicate"], ["plan"], ["plan", task, task], ["plan", task, "--bogus"],
                     ["plan", task, "--param", "novalue"], ["plan", task, "--seed", "-1"],
                     ["plan", task, "--timeout", "0"], ["plan", task, "--json", "--format",
                                                        "torchrec"],
                     ["plan", task, "--format", "yaml"], ["get"], ["plan", task, "--algorithm"]):
            with self.subTest(args=args):
                result = run_cli(*args)
                self.assertExit(result, EXIT_USAGE)
                self.assertRegex(result.stderr, r"(?m)^shardplan: usage: .+")


class NoServerTest(CliTestCase):
    """Errors found before or without reaching a server."""

    def setUp(self):
        sock, port = refused_port()
        self.addCleanup(sock.close)
        self.target = f"127.0.0.1:{port}"

    def test_server_down_exits_6(self):
        for args in (["plan", example("task_4dev.json")], ["health"], ["algorithms"],
                     ["watch", "some-job"]):
            with self.subTest(args=args):
                result = run_cli(*args, "--server", self.target, "--max-attempts", "2")
                self.assertError(result, EXIT_UNAVAILABLE, "UNAVAILABLE")
                self.assertIn("retrying", result.stderr)  # one retry was reported

    def test_server_from_environment(self):
        env = dict(os.environ, SHARDPLAN_SERVER=self.target)
        result = run_cli("health", "--max-attempts", "1", env=env)
        self.assertError(result, EXIT_UNAVAILABLE, "UNAVAILABLE")
        self.assertIn(self.target.split(":")[1], result.stderr)

    def test_unreadable_or_malformed_task_exits_3(self):
        bad_json = self.write_json({"tables": [{"name": "t0", "rows": 10, "dmi": 4}]})
        for path, needle in ((bad_json, "dmi"), ("/nonexistent/task.json", "/nonexistent")):
            with self.subTest(path=path):
                result = run_cli("plan", path, "--server", self.target)
                self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
                self.assertIn(needle, result.stderr)
        result = run_cli("plan", "-", "--server", self.target, stdin="{not json")
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
        self.assertIn("<stdin>", result.stderr)


class PlanTest(ServerTestCase):
    def test_every_baseline_on_both_examples(self):
        for name in ("task_4dev.json", "task_8dev.json"):
            task = example_task(name)
            for algorithm in BASELINES:
                with self.subTest(example=name, algorithm=algorithm):
                    result = self.cli("plan", example(name), "--algorithm", algorithm, "--json")
                    self.assertExit(result, EXIT_OK)
                    response = json.loads(result.stdout)
                    self.assertIn("cache_hit", response)
                    check_plan(self, response["plan"], task, algorithm)

    def test_text_output(self):
        result = self.cli("plan", example("task_4dev.json"), "--algorithm", "size_greedy")
        self.assertExit(result, EXIT_OK)
        out = result.stdout
        for line in ("algorithm:   size_greedy", "cost model:  analytic@1", "cache hit:   ",
                     "bottleneck:  device "):
            self.assertIn(line, out)
        self.assertRegex(out, r"(?m)^cost: +\d+\.\d+ ms$")
        self.assertRegex(out, r"(?m)^device +memory GiB +dim sum +shards +compute ms")
        self.assertEqual(len(re.findall(r"(?m)^\d \*? *\d+\.\d\d / 16\.00 ", out)), 4)
        self.assertEqual(len(re.findall(r"(?m)^\d \* ", out)), 1)  # one bottleneck
        for table in example_task("task_4dev.json")["tables"]:
            self.assertRegex(out, rf"(?m)^{table['name']} +table_wise +{table['rows']} ")

    def test_stdin_seed_params_and_cache(self):
        task = example_task("task_4dev.json")
        args = ["plan", "-", "--json", "--algorithm", "random", "--seed", "99",
                "--param", "respect_memory=true"]
        first = self.cli(*args, stdin=json.dumps(task))
        self.assertExit(first, EXIT_OK)
        first = json.loads(first.stdout)
        self.assertEqual(first["plan"]["seed"], "99")
        self.assertEqual(first["plan"]["parameters"]["respect_memory"], "true")
        self.assertFalse(first["cache_hit"])
        second = json.loads(self.cli(*args, stdin=json.dumps(reordered(task))).stdout)
        self.assertTrue(second["cache_hit"])
        third = json.loads(self.cli(*args, "--no-cache", stdin=json.dumps(task)).stdout)
        self.assertFalse(third["cache_hit"])

    def test_job_key_replan_and_delete(self):
        task = json.dumps(example_task("task_4dev.json"))
        keyed = ["plan", "-", "--json", "--job-key", "cli/run-1"]
        first = json.loads(self.cli(*keyed, stdin=task).stdout)
        self.assertFalse(first.get("from_store", False))
        again = json.loads(self.cli(*keyed, stdin=task).stdout)
        self.assertTrue(again["from_store"])
        self.assertEqual(again["job_id"], first["job_id"])
        other = self.cli(*keyed, "--seed", "3", stdin=task)
        self.assertExit(other, EXIT_INFEASIBLE)
        self.assertIn("job_key", other.stderr)
        self.assertExit(self.cli("replan", "-", stdin=task), EXIT_USAGE)
        replanned = self.cli("replan", "-", "--json", "--job-key", "cli/run-1", stdin=task)
        self.assertExit(replanned, EXIT_OK)
        self.assertNotEqual(json.loads(replanned.stdout)["job_id"], first["job_id"])
        deleted = self.cli("delete", "--job-key", "cli/run-1")
        self.assertExit(deleted, EXIT_OK)
        self.assertIn("deleted job", deleted.stdout)
        self.assertExit(self.cli("delete", "--job-key", "cli/run-1"), EXIT_NOT_FOUND)
        self.assertExit(self.cli("delete"), EXIT_USAGE)

    def test_evaluate_accepts_what_plan_printed(self):
        task = example("task_8dev.json")
        with tempfile.TemporaryDirectory() as tmp:
            response_file = os.path.join(tmp, "response.json")
            self.assertExit(self.cli("plan", task, "--algorithm", "dim_greedy", "--json",
                                     "-o", response_file), EXIT_OK)
            with open(response_file) as f:
                planned = json.load(f)["plan"]
            plan_file = self.write_json({"tables": planned["tables"]})  # shards only
            for plan_path in (response_file, plan_file):
                with self.subTest(plan=os.path.basename(plan_path)):
                    result = self.cli("evaluate", task, plan_path, "--json")
                    self.assertExit(result, EXIT_OK)
                    evaluated = json.loads(result.stdout)["plan"]
                    self.assertAlmostEqual(evaluated["cost_ms"], planned["cost_ms"],
                                           delta=1e-9 * planned["cost_ms"])
            text = self.cli("evaluate", task, plan_file)
            self.assertExit(text, EXIT_OK)
            self.assertIn("bottleneck:  device ", text.stdout)

    def test_evaluate_scores_a_torchrec_plan_on_ground_truth(self):
        task = example("task_8dev.json")
        with tempfile.TemporaryDirectory() as tmp:
            torchrec_file = os.path.join(tmp, "torchrec.json")
            response_file = os.path.join(tmp, "response.json")
            self.assertExit(self.cli("plan", task, "--algorithm", "dim_greedy", "--format",
                                     "torchrec", "-o", torchrec_file), EXIT_OK)
            self.assertExit(self.cli("plan", task, "--algorithm", "dim_greedy", "--json",
                                     "-o", response_file), EXIT_OK)
            scores = {}
            for plan_path in (torchrec_file, response_file):
                result = self.cli("evaluate", task, plan_path, "--ground-truth", "sim:rtx2080ti",
                                  "--json")
                self.assertExit(result, EXIT_OK)
                measured = json.loads(result.stdout)["plan"]
                self.assertEqual(measured["cost_kind"], "ground_truth")
                self.assertEqual(measured["cost_model"], "sim-rtx2080ti")
                self.assertGreater(measured["cost_ms"], 0)
                scores[plan_path] = measured["cost_ms"]
            # The TorchRec export and the plan it came from are the same placement.
            self.assertAlmostEqual(scores[torchrec_file], scores[response_file], places=9)
            text = self.cli("evaluate", task, torchrec_file, "--ground-truth", "sim:h100-sxm")
            self.assertExit(text, EXIT_OK)
            self.assertIn("cost model:  sim-h100-sxm (ground_truth)", text.stdout)
            bad = self.cli("evaluate", task, torchrec_file, "--ground-truth", "sim:v100")
            self.assertError(bad, EXIT_INVALID, "INVALID_ARGUMENT")
            self.assertIn("ground_truth: unknown hardware profile", bad.stderr)
            both = self.cli("evaluate", task, torchrec_file, "--ground-truth", "sim:h100-sxm",
                            "--model", "analytic")
            self.assertExit(both, EXIT_USAGE)

    def test_evaluate_reads_every_sharding_type_torchrec_writes(self):
        task = self.write_json(mixed_task())
        sharding_plan = self.write_json(torchrec_sharding_plan())
        result = self.cli("evaluate", task, sharding_plan, "--model", "analytic@1", "--json")
        self.assertExit(result, EXIT_OK)
        tables = {t["table"]: t for t in json.loads(result.stdout)["plan"]["tables"]}
        self.assertEqual(tables["twrw"]["sharding_type"], "TABLE_ROW_WISE")
        # The row split's empty trailing ranks 5-7 hold nothing and are dropped.
        self.assertEqual([s["device"] for s in tables["rw"]["shards"]], [0, 1, 2, 3, 4])
        # data_parallel without shards: a replica of the task's table on each rank.
        self.assertEqual([(s["device"], int(s["row_count"]), s["column_count"])
                          for s in tables["dp"]["shards"]], [(d, 100, 16) for d in range(8)])

        # A data_parallel table the task does not have: its shape is unknown.
        other = mixed_task()
        other["tables"] = [t for t in other["tables"] if t["name"] != "dp"]
        result = self.cli("evaluate", self.write_json(other), sharding_plan,
                          "--model", "analytic@1")
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
        self.assertIn('plan.embedding_bag_collection.dp: a data_parallel table without "shards"',
                      result.stderr)
        self.assertIn('the task has no table "dp"', result.stderr)

    def test_report_compares_measured_steps_with_the_model(self):
        task = example("task_4dev.json")
        with tempfile.TemporaryDirectory() as tmp:
            response_file = os.path.join(tmp, "response.json")
            self.assertExit(self.cli("plan", task, "--model", "analytic@1", "--json", "-o",
                                     response_file), EXIT_OK)
            with open(response_file) as f:
                planned = json.load(f)["plan"]
            measured = [2 * device["total_ms"] for device in planned["devices"]]
            device_ms = ",".join(repr(ms) for ms in measured)
            result = self.cli("report", task, response_file, "--device-ms", device_ms, "--json")
            self.assertExit(result, EXIT_OK)
            report = json.loads(result.stdout)
            self.assertEqual(report["cost_model"], "analytic@1")
            self.assertAlmostEqual(report["relative_error"],
                                   (planned["cost_ms"] - max(measured)) / max(measured),
                                   places=9)
            text = self.cli("report", task, response_file, "--device-ms", device_ms)
            self.assertExit(text, EXIT_OK)
            self.assertIn("model analytic@1: predicted ", text.stdout)
            self.assertIn("last 2 report(s)", text.stdout)
            bad = self.cli("report", task, response_file, "--device-ms", "1,2")
            self.assertError(bad, EXIT_INVALID, "INVALID_ARGUMENT")
            self.assertIn("device_ms: 2 times for a task of 4 devices", bad.stderr)
            self.assertExit(self.cli("report", task, response_file, "--device-ms", "1,x,2,3"),
                            EXIT_USAGE)
            self.assertExit(self.cli("report", task, response_file), EXIT_USAGE)

    def test_evaluate_rejects_a_bad_plan(self):
        not_a_plan = self.write_json({"something": "else"})
        result = self.cli("evaluate", example("task_4dev.json"), not_a_plan)
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
        missing_table = self.write_json({"tables": []})
        result = self.cli("evaluate", example("task_4dev.json"), missing_table)
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")


class OutputTest(ServerTestCase):
    def torchrec(self, name, *extra):
        result = self.cli("plan", example(name), "--algorithm", "lookup_greedy", "--format",
                          "torchrec", *extra)
        self.assertExit(result, EXIT_OK)
        return json.loads(result.stdout)

    def test_torchrec_shape(self):
        task = example_task("task_8dev.json")  # two hosts of four devices
        sharding_plan = self.torchrec("task_8dev.json")
        self.assertEqual(list(sharding_plan), ["plan"])
        self.assertEqual(list(sharding_plan["plan"]), ["embedding_bag_collection"])
        module = sharding_plan["plan"]["embedding_bag_collection"]
        self.assertEqual(sorted(module), sorted(t["name"] for t in task["tables"]))
        ranks_used = set()
        for table in task["tables"]:
            entry = module[table["name"]]
            self.assertEqual(list(entry), ["sharding_type", "compute_kernel", "ranks", "shards"])
            self.assertEqual(entry["sharding_type"], "table_wise")
            self.assertEqual(entry["compute_kernel"], "fused")
            [rank] = entry["ranks"]
            ranks_used.add(rank)
            self.assertEqual(entry["shards"], [{
                "shard_offsets": [0, 0],
                "shard_sizes": [table["rows"], table["dim"]],
                "placement": f"rank:{rank}/cuda:{rank % 4}",
            }])
        self.assertTrue(any(rank >= 4 for rank in ranks_used))  # cuda index wraps per host

    def test_torchrec_options_and_output_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "sharding_plan.json")
            result = self.cli("plan", example("task_4dev.json"), "--format", "torchrec",
                              "--torchrec-module", "model.sparse.ebc", "--local-world-size",
                              "2", "-o", path)
            self.assertExit(result, EXIT_OK)
            self.assertEqual(result.stdout, "")
            with open(path) as f:
                module = json.load(f)["plan"]["model.sparse.ebc"]
        for entry in module.values():
            if entry["sharding_type"] == "data_parallel":  # a replica per rank, no shard spec
                self.assertEqual(entry["ranks"], [0, 1, 2, 3])
                continue
            rank = entry["ranks"][0]
            self.assertEqual(entry["shards"][0]["placement"], f"rank:{rank}/cuda:{rank % 2}")

    def test_torchrec_placements_follow_the_plans_hosts_on_every_path(self):
        # Rank 123 of 16 hosts x 8 devices is cuda:3, whichever command prints the plan.
        task = self.write_json(multi_host_task())

        def placement(stdout):
            return json.loads(stdout)["plan"]["embedding_bag_collection"]["t0"]["shards"][0][
                "placement"]

        planned = self.cli("plan", task, "--format", "torchrec")
        self.assertExit(planned, EXIT_OK)
        self.assertEqual(placement(planned.stdout), "rank:123/cuda:3")
        submitted = self.cli("submit", task)
        self.assertExit(submitted, EXIT_OK)
        job_id = submitted.stdout.strip()
        watched = self.cli("watch", job_id, "--format", "torchrec")
        self.assertExit(watched, EXIT_OK)
        self.assertEqual(placement(watched.stdout), "rank:123/cuda:3")
        got = self.cli("get", job_id, "--format", "torchrec")
        self.assertExit(got, EXIT_OK)
        self.assertEqual(placement(got.stdout), "rank:123/cuda:3")
        plan_file = self.write_json(json.loads(self.cli("plan", task, "--json").stdout))
        evaluated = self.cli("evaluate", task, plan_file, "--format", "torchrec")
        self.assertExit(evaluated, EXIT_OK)
        self.assertEqual(placement(evaluated.stdout), "rank:123/cuda:3")
        # --local-world-size overrides the plan's.
        overridden = self.cli("get", job_id, "--format", "torchrec", "--local-world-size", "16")
        self.assertEqual(placement(overridden.stdout), "rank:123/cuda:11")

    def test_torchrec_export_of_every_sharding_type_passes_torchs_shard_checks(self):
        # evaluate prints any plan the caller brings; analytic@1 costs every sharding type.
        task = mixed_task()
        args = ("evaluate", self.write_json(task), self.write_json(mixed_plan()), "--model",
                "analytic@1")
        result = self.cli(*args, "--format", "torchrec")
        self.assertExit(result, EXIT_OK)
        sharding_plan = json.loads(result.stdout)
        module = sharding_plan["plan"]["embedding_bag_collection"]
        self.assertEqual(module["rw"]["ranks"], [3, 1, 2, 0])
        self.assertEqual([s["shard_sizes"] for s in module["rw"]["shards"]],
                         [[3, 16], [3, 16], [3, 16], [1, 16]])
        self.assertEqual([s["placement"] for s in module["twrw"]["shards"]],
                         ["rank:4/cuda:0", "rank:5/cuda:1", "rank:6/cuda:2", "rank:7/cuda:3"])
        self.assertEqual(module["dp"], {"sharding_type": "data_parallel",
                                        "compute_kernel": "dense", "ranks": list(range(8))})
        checked = torch_shard_checks.check_sharding_plan(
            sharding_plan, torch_shard_checks.task_shapes(task),
            os.environ.get("SHARDPLAN_TORCH_SOURCE"))
        self.assertEqual(sorted(checked), ["cw", "rw", "tw", "twrw"])  # dp has no shards
        # The Python client writes the same JSON from the same plan.
        evaluated = self.cli(*args, "--json")
        self.assertEqual(shardplan.to_torchrec(json.loads(evaluated.stdout)), sharding_plan)

    def test_json_uses_original_field_names(self):
        result = self.cli("plan", example("task_4dev.json"), "--json")
        self.assertExit(result, EXIT_OK)
        plan = json.loads(result.stdout)["plan"]
        for field in ("cost_ms", "bottleneck_device", "cost_model", "request_hash"):
            self.assertIn(field, plan)
        self.assertIn("memory_capacity_bytes", plan["devices"][0])


class ErrorCodeTest(ServerTestCase):
    def test_invalid_task_exits_3(self):
        result = self.cli("plan", self.write_json(invalid_task()))
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
        self.assertIn("tables[1].dim", result.stderr)

    def test_infeasible_task_exits_4(self):
        result = self.cli("plan", self.write_json(infeasible_task()))
        self.assertError(result, EXIT_INFEASIBLE, "FAILED_PRECONDITION")
        self.assertIn("t1", result.stderr)

    def test_unknown_model_or_job_exits_5(self):
        for args in (["plan", example("task_4dev.json"), "--model", "no_such_model"],
                     ["plan", example("task_4dev.json"), "--model", "analytic@999"],
                     ["get", "no-such-job"], ["cancel", "no-such-job"]):
            with self.subTest(args=args):
                self.assertError(self.cli(*args), EXIT_NOT_FOUND, "NOT_FOUND")

    def test_deadline_exceeded_exits_7(self):
        result = self.cli("plan", self.write_json(SLOW_TASK), "--algorithm", SLOW_ALGORITHM,
                          *SLOW_PARAM_ARGS, "--timeout", "0.3")
        self.assertError(result, EXIT_DEADLINE, "DEADLINE_EXCEEDED")


class LimitTest(ServerTestCase):
    server_args = ("--max_tables", "10")

    def test_resource_exhausted_exits_8(self):
        result = self.cli("plan", example("task_4dev.json"))
        self.assertError(result, EXIT_EXHAUSTED, "RESOURCE_EXHAUSTED")


class JobTest(ServerTestCase):
    def submit(self, task_path, *args):
        result = self.cli("submit", task_path, *args)
        self.assertExit(result, EXIT_OK)
        job_id = result.stdout.strip()
        self.assertRegex(job_id, r"^\S+$")
        return job_id

    def test_submit_watch_get(self):
        job_id = self.submit(example("task_8dev.json"), "--algorithm", "size_greedy")
        watch = self.cli("watch", job_id)
        self.assertExit(watch, EXIT_OK)
        self.assertRegex(watch.stdout, rf"(?m)^job {job_id}  SUCCEEDED +100%")
        self.assertIn("algorithm:   size_greedy", watch.stdout)

        lines = self.cli("watch", job_id, "--json")
        self.assertExit(lines, EXIT_OK)
        statuses = [json.loads(line) for line in lines.stdout.splitlines()]
        self.assertTrue(statuses)
        self.assertEqual(statuses[-1]["state"], "SUCCEEDED")
        self.assertEqual(len(statuses[-1]["result"]["plan"]["tables"]), 80)

        get = self.cli("get", job_id, "--json")
        self.assertExit(get, EXIT_OK)
        self.assertEqual(json.loads(get.stdout)["job_id"], job_id)
        torchrec = self.cli("get", job_id, "--format", "torchrec")
        self.assertExit(torchrec, EXIT_OK)
        self.assertEqual(len(json.loads(torchrec.stdout)["plan"]["embedding_bag_collection"]), 80)

    def test_cancel_then_watch_exits_9(self):
        task = self.write_json(SLOW_TASK)
        job_id = self.submit(task, "--algorithm", SLOW_ALGORITHM, *SLOW_PARAM_ARGS)
        cancel = self.cli("cancel", job_id)
        self.assertExit(cancel, EXIT_OK)
        self.assertRegex(cancel.stdout, rf"^job {job_id}: (CANCELLED|QUEUED|RUNNING)$")
        watch = self.cli("watch", job_id, "--timeout", "30")
        self.assertError(watch, EXIT_CANCELLED, "CANCELLED")
        self.assertRegex(watch.stdout, rf"(?m)^job {job_id}  CANCELLED")
        self.assertError(self.cli("get", job_id), EXIT_CANCELLED, "CANCELLED")

    def test_failed_job_exits_10(self):
        job_id = self.submit(self.write_json(infeasible_task()))
        watch = self.cli("watch", job_id, "--timeout", "30")
        self.assertError(watch, EXIT_JOB_FAILED, "FAILED_PRECONDITION")
        self.assertIn(f"job {job_id} failed", watch.stderr)
        get = self.cli("get", job_id)
        self.assertError(get, EXIT_JOB_FAILED, "FAILED_PRECONDITION")
        self.assertIn("state:       FAILED", get.stdout)

    def test_submit_json_and_invalid_task(self):
        result = self.cli("submit", example("task_4dev.json"), "--json")
        self.assertExit(result, EXIT_OK)
        self.assertIn(json.loads(result.stdout)["state"], ("QUEUED", "RUNNING", "SUCCEEDED"))
        result = self.cli("submit", self.write_json(invalid_task()))
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")


SVG = "{http://www.w3.org/2000/svg}"


class PlotTest(ServerTestCase):
    """`plot`: plans from files and from jobs drawn as SVG, side by side, and its refusals."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="shardplan-plot-")
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def plan_file(self, name, task, *args):
        result = self.cli("plan", task, "--format", "json", "-o", self.path(name), *args)
        self.assertExit(result, EXIT_OK)
        with open(self.path(name)) as f:
            return json.load(f)["plan"], self.path(name)

    def plot(self, *args, output="plot.svg"):
        """Runs plot -o OUTPUT; returns the parsed SVG root (well-formed XML or the test fails)."""
        result = self.cli("plot", *args, "-o", self.path(output))
        self.assertExit(result, EXIT_OK)
        self.assertIn(f"wrote {self.path(output)}: ", result.stdout)
        return ElementTree.parse(self.path(output)).getroot()

    def groups(self, root, cls):
        return [g for g in root.iter(f"{SVG}g") if g.get("class") == cls]

    def texts(self, root):
        return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]

    def test_one_plan_from_a_file(self):
        plan, path = self.plan_file("ns.json", example("task_4dev.json"))
        root = self.plot(path)
        self.assertEqual(root.tag, f"{SVG}svg")
        self.assertEqual(len(self.groups(root, "device")), 4)
        self.assertEqual(len(self.groups(root, "memory")), 4)
        [bottleneck] = self.groups(root, "bottleneck")
        self.assertEqual(bottleneck.get("data-device"), str(plan["bottleneck_device"]))
        texts = self.texts(root)
        self.assertIn(f"bottleneck: device {plan['bottleneck_device']}, "
                      f"{plan['cost_ms']:.3f} ms", texts)
        self.assertIn(f"{plan['algorithm']} \u00b7 {plan['cost_model']} \u00b7 "
                      f"{plan['cost_ms']:.3f} ms", texts)

    def test_neuroshard_and_torchrec_side_by_side(self):
        task = example("task_4dev.json")
        neuroshard, first = self.plan_file("ns.json", task, "--algorithm", "neuroshard")
        torchrec, second = self.plan_file("tr.json", task, "--algorithm", "torchrec")
        root = self.plot(first, second)
        self.assertEqual([g.get("data-plan") for g in self.groups(root, "plan")], ["0", "1"])
        self.assertEqual(len(self.groups(root, "bottleneck")), 2)
        titles = [t for t in self.texts(root) if " ms" in t and "\u00b7" in t]
        self.assertTrue(titles[0].startswith("neuroshard \u00b7 "), titles)
        self.assertTrue(titles[1].startswith("torchrec \u00b7 "), titles)
        self.assertIn("Cost and memory per device: 2 plans of 4 devices, same scales",
                      self.texts(root))

    def test_a_job_by_id_and_stdout(self):
        submit = self.cli("submit", example("task_8dev.json"), "--algorithm", "size_greedy")
        self.assertExit(submit, EXIT_OK)
        job_id = submit.stdout.strip()
        self.assertExit(self.cli("watch", job_id), EXIT_OK)
        root = self.plot(job_id, "--title", "8 devices <size_greedy> & co")
        self.assertEqual(len(self.groups(root, "device")), 8)
        self.assertIn("8 devices <size_greedy> & co", self.texts(root))
        self.assertTrue(any(t.startswith(f"job {job_id} ") for t in self.texts(root)))
        stdout = self.cli("plot", job_id, "-o", "-")
        self.assertExit(stdout, EXIT_OK)
        self.assertTrue(stdout.stdout.startswith("<?xml"))
        ElementTree.fromstring(stdout.stdout)

    def test_default_output_file(self):
        _, path = self.plan_file("ns.json", example("task_4dev.json"))
        result = subprocess.run([os.environ["SHARDPLAN_CLI"], "plot", path], cwd=self.dir.name,
                                capture_output=True, text=True, timeout=60)
        self.assertExit(result, EXIT_OK)
        self.assertEqual(result.stdout, "wrote plan.svg: 1 plan of 4 devices\n")
        ElementTree.parse(self.path("plan.svg"))

    def test_refusals(self):
        _, four = self.plan_file("four.json", example("task_4dev.json"))
        _, eight = self.plan_file("eight.json", example("task_8dev.json"))
        result = self.cli("plot", four, eight, "-o", self.path("x.svg"))
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
        self.assertIn("must be of one task", result.stderr)
        self.assertFalse(os.path.exists(self.path("x.svg")))

        torchrec = self.path("torchrec.json")
        self.assertExit(self.cli("plan", example("task_4dev.json"), "--format", "torchrec",
                                 "-o", torchrec), EXIT_OK)
        result = self.cli("plot", torchrec, "-o", self.path("x.svg"))
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
        self.assertIn("no per-device figures", result.stderr)

        result = self.cli("plot", self.path("missing.json"))
        self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
        self.assertIn("missing.json: cannot open", result.stderr)
        self.assertError(self.cli("plot", "no-such-job"), EXIT_NOT_FOUND, "NOT_FOUND")
        failed = self.cli("submit", self.write_json(infeasible_task()))
        job_id = failed.stdout.strip()
        self.cli("watch", job_id, "--timeout", "30")
        self.assertError(self.cli("plot", job_id), EXIT_JOB_FAILED, "FAILED_PRECONDITION")
        self.assertExit(self.cli("plot", four, "--json"), EXIT_USAGE)
        self.assertExit(self.cli("plot", "-", "-"), EXIT_USAGE)
        self.assertExit(self.cli("plot", four, four, four, four, four), EXIT_USAGE)


class CatalogTest(ServerTestCase):
    def test_algorithms(self):
        text = self.cli("algorithms")
        self.assertExit(text, EXIT_OK)
        self.assertRegex(text.stdout, r"(?m)^neuroshard +\* ")
        self.assertIn("max_placements", text.stdout)
        self.assertIn("min_partition", text.stdout)  # torchrec's
        listed = json.loads(self.cli("algorithms", "--json").stdout)["algorithms"]
        self.assertLessEqual(set(BASELINES), {a["name"] for a in listed})

    def test_models(self):
        text = self.cli("models")
        self.assertExit(text, EXIT_OK)
        self.assertRegex(text.stdout, r"(?m)^analytic +1 +analytic ")
        models = json.loads(self.cli("models", "--json").stdout)["models"]
        self.assertIn(("analytic", "1"), [(m["name"], m["version"]) for m in models])

    def test_health(self):
        result = self.cli("health")
        self.assertExit(result, EXIT_OK)
        self.assertEqual(result.stdout, "SERVING\n")
        self.assertEqual(json.loads(self.cli("health", "--json").stdout), {"status": "SERVING"})


TERMINAL_WIDTH = 100


class WidthTest(CliTestCase):
    """Every table and summary the CLI prints keeps within 100 columns, with the real shipped
    catalogue (the bundles under models/) and plans of the example tasks."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(extra_args=[
            "--models_dir", os.environ["SHARDPLAN_MODELS_DIR"],
            "--model_reload_interval_s", "0"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def assertFits(self, args, min_lines=1):
        result = self.cli(*args)
        self.assertExit(result, EXIT_OK)
        lines = result.stdout.splitlines()
        self.assertGreaterEqual(len(lines), min_lines, result.stdout)
        for line in lines:
            self.assertLessEqual(len(line), TERMINAL_WIDTH,
                                 f"{' '.join(args)}: a line of {len(line)} columns:\n{line}")
            self.assertEqual(line, line.rstrip(), f"{' '.join(args)}: trailing blanks")
        return result.stdout

    def test_catalogue(self):
        models = json.loads(self.cli("models", "--json").stdout)["models"]
        self.assertGreaterEqual(len(models), 10, "the shipped bundles did not load")
        text = self.assertFits(["algorithms"], min_lines=20)
        for algorithm in ("neuroshard", "torchrec", "exhaustive", *BASELINES):
            self.assertRegex(text, rf"(?m)^{algorithm} ")
        self.assertIn("sharding_types", text)  # torchrec's parameter table
        self.assertIn("data_parallel", text)   # its sharding types, wrapped
        text = self.assertFits(["models"], min_lines=len(models) + 2)
        for model in models:
            self.assertRegex(text, rf"(?m)^{re.escape(model['name'])} +{model['version']} ")
        text = self.assertFits(["models", "--long"], min_lines=6 * len(models))
        for model in models:
            self.assertIn(f"{model['name']}@{model['version']}", text)
            if model["description"]:
                self.assertIn(model["description"].split()[0], text)

    def test_help(self):
        for command in ("", *COMMANDS):
            with self.subTest(command=command):
                self.assertFits([command, "--help"] if command else ["--help"], min_lines=10)

    def test_plans_jobs_and_evaluations(self):
        for task, args in (("task_4dev.json", []), ("task_8dev.json", []),
                           ("task_8dev.json", ["--algorithm", "torchrec", "--model", "analytic@1"]),
                           ("task_8dev.json", ["--algorithm", "neuroshard",
                                               "--model", "sim-rtx2080ti"])):
            with self.subTest(task=task, args=args):
                self.assertFits(["plan", example(task), *args], min_lines=20)
        submit = self.cli("submit", example("task_8dev.json"), "--algorithm", "torchrec",
                          "--model", "analytic@1")
        job_id = submit.stdout.strip()
        self.assertFits(["watch", job_id], min_lines=20)
        self.assertFits(["get", job_id], min_lines=20)
        plan = self.write_json(json.loads(self.cli("get", job_id, "--json").stdout))
        self.assertFits(["evaluate", example("task_8dev.json"), plan, "--model", "analytic@1"],
                        min_lines=20)
        self.assertFits(["evaluate", example("task_8dev.json"), plan,
                         "--ground-truth", "sim:rtx2080ti"], min_lines=20)
        self.assertFits(["report", example("task_8dev.json"), plan, "--device-ms",
                         ",".join(["41.2"] * 8)], min_lines=2)
        self.assertFits(["models", "reload"])
        self.assertFits(["health"])


def write_bundle(root, name, version, seed=1):
    """A small neural bundle, written atomically by shardplan-test-bundle (test_bundles.h)."""
    subprocess.run([os.environ["SHARDPLAN_TEST_BUNDLE"], root, name, version, str(seed)],
                   check=True, timeout=60)


class ModelsTest(CliTestCase):
    """`models`, `models reload` and `plan --model` against a server with a models directory."""

    @classmethod
    def setUpClass(cls):
        cls.models = tempfile.TemporaryDirectory(prefix="shardplan-models-")
        write_bundle(cls.models.name, "tiny", "1")
        cls.server = ServerProcess(extra_args=[
            "--models_dir", cls.models.name, "--model_reload_interval_s", "0"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.models.cleanup()

    def test_models_plan_and_reload(self):
        text = self.cli("models")
        self.assertExit(text, EXIT_OK)
        self.assertRegex(text.stdout,
                         r"(?m)^tiny +1 +neural +\* +test-profile \(sim\) +any \(no comm\) +1234$")
        long = self.cli("models", "--long")
        self.assertExit(long, EXIT_OK)
        self.assertIn("tiny@1  (latest)\n  kind:         neural\n", long.stdout)
        self.assertRegex(long.stdout, r"(?m)^  test mse: +compute=0\.25 .*\(ms\^2\)$")
        listed = json.loads(self.cli("models", "--json").stdout)["models"]
        self.assertIn(("tiny", "1"), [(m["name"], m["version"]) for m in listed])

        plan = self.cli("plan", example("task_4dev.json"), "--model", "tiny@1", "--json")
        self.assertExit(plan, EXIT_OK)
        self.assertEqual(json.loads(plan.stdout)["plan"]["cost_model"], "tiny@1")

        write_bundle(self.models.name, "tiny", "2", seed=2)
        reload = self.cli("models", "reload")
        self.assertExit(reload, EXIT_OK)
        self.assertIn("loaded    tiny@2\n", reload.stdout)
        self.assertIn("1 loaded, 1 unchanged, 0 removed, 0 refused", reload.stdout)
        plan = self.cli("plan", example("task_4dev.json"), "--model", "tiny", "--json")
        self.assertEqual(json.loads(plan.stdout)["plan"]["cost_model"], "tiny@2")

        write_bundle(self.models.name, "tiny", "3")
        with open(os.path.join(self.models.name, "tiny", "3", "compute.weights"), "wb") as f:
            f.write(b"garbage")
        reload = self.cli("models", "reload", "--json")
        self.assertError(reload, EXIT_INFEASIBLE, "FAILED_PRECONDITION")
        report = json.loads(reload.stdout)
        self.assertEqual(report["unchanged"], ["tiny@1", "tiny@2"])
        self.assertEqual(len(report["refused"]), 1)
        self.assertIn("compute.weights", report["refused"][0]["reason"])
        plan = self.cli("plan", example("task_4dev.json"), "--model", "tiny", "--json")
        self.assertEqual(json.loads(plan.stdout)["plan"]["cost_model"], "tiny@2")

    def test_unknown_subcommand_is_a_usage_error(self):
        self.assertExit(self.cli("models", "purge"), EXIT_USAGE)


class SecuredServerTest(CliTestCase):
    """A server with mutual TLS and bearer tokens (docs/security.md): the CLI's --tls-*,
    --token-file and $SHARDPLAN_TOKEN, and exit codes 11 and 12."""

    @classmethod
    def setUpClass(cls):
        cls.secured = SecuredServer().start()
        cls.pki, cls.server = cls.secured.pki, cls.secured.server

    @classmethod
    def tearDownClass(cls):
        cls.secured.stop()

    def tls_args(self, client="client"):
        return ["--tls-ca", self.pki.file("ca.pem"), "--tls-cert", self.pki.file(f"{client}.pem"),
                "--tls-key", self.pki.file(f"{client}.key")]

    def token_file(self, token):
        handle = tempfile.NamedTemporaryFile("w", suffix=".token", delete=False)
        with handle:
            handle.write(f"  {token}  \nsecond line is ignored\n")
        self.addCleanup(os.unlink, handle.name)
        return handle.name

    def secure(self, *args, token=SecuredPki.PLANNER_TOKEN, env=None):
        """The CLI over mutual TLS, with `token` in a --token-file (None: no token option).
        $SHARDPLAN_TOKEN is unset unless `env` sets it."""
        if env is None:
            env = {k: v for k, v in os.environ.items() if k != "SHARDPLAN_TOKEN"}
        token_args = [] if token is None else ["--token-file", self.token_file(token)]
        return self.cli(*args, *self.tls_args(), *token_args, env=env)

    def test_plan_with_client_certificate_and_token(self):
        result = self.secure("plan", example("task_4dev.json"), "--json")
        self.assertExit(result, EXIT_OK)
        check_plan(self, json.loads(result.stdout)["plan"], example_task("task_4dev.json"))
        # Global options also go before the command.
        result = run_cli("--server", self.server.target, *self.tls_args(), "--token-file",
                         self.token_file(SecuredPki.PLANNER_TOKEN), "algorithms")
        self.assertExit(result, EXIT_OK)

    def test_missing_or_unknown_token_exits_11(self):
        result = self.secure("plan", example("task_4dev.json"), token=None)
        self.assertError(result, EXIT_UNAUTHENTICATED, "UNAUTHENTICATED")
        self.assertIn("missing bearer token", result.stderr)
        self.assertIn("--token-file", result.stderr)  # the hint
        result = self.secure("algorithms", token="not-a-known-token")
        self.assertError(result, EXIT_UNAUTHENTICATED, "UNAUTHENTICATED")
        self.assertIn("unknown bearer token", result.stderr)

    def test_planner_token_may_not_make_admin_calls(self):
        for args in (["models", "reload"], ["delete", "some-job"]):
            with self.subTest(args=args):
                result = self.secure(*args)
                self.assertError(result, EXIT_PERMISSION_DENIED, "PERMISSION_DENIED")
                self.assertIn('needs role "admin"', result.stderr)

    def test_admin_token_makes_admin_calls(self):
        result = self.secure("models", "reload", token=SecuredPki.ADMIN_TOKEN)
        self.assertExit(result, EXIT_OK)
        self.assertIn("0 refused", result.stdout)
        plan = self.secure("plan", example("task_4dev.json"), "--job-key", "secured-cli-key",
                           "--json")
        self.assertExit(plan, EXIT_OK)
        result = self.secure("delete", "--job-key", "secured-cli-key", token=SecuredPki.ADMIN_TOKEN)
        self.assertExit(result, EXIT_OK)
        self.assertIn("deleted job ", result.stdout)

    def test_token_from_environment_and_the_flag_wins(self):
        env = dict(os.environ, SHARDPLAN_TOKEN=SecuredPki.PLANNER_TOKEN)
        self.assertExit(self.secure("algorithms", token=None, env=env), EXIT_OK)
        bad_env = dict(os.environ, SHARDPLAN_TOKEN="not-a-known-token")
        self.assertExit(self.secure("algorithms", token=None, env=bad_env),
                        EXIT_UNAUTHENTICATED)
        self.assertExit(self.secure("algorithms", env=bad_env), EXIT_OK)  # --token-file wins

    def test_health_over_tls_needs_no_token(self):
        result = self.secure("health", token=None)
        self.assertExit(result, EXIT_OK)
        self.assertEqual(result.stdout, "SERVING\n")

    def test_connections_the_server_refuses_exit_6(self):
        token = ["--token-file", self.token_file(SecuredPki.PLANNER_TOKEN), "--max-attempts", "1"]
        cases = {
            "plaintext": [],
            "no client certificate": ["--tls-ca", self.pki.file("ca.pem")],
            "certificate from another CA": self.tls_args("rogue_client"),
            "server from an unknown CA": ["--tls-ca", self.pki.file("other_ca.pem"),
                                          "--tls-cert", self.pki.file("client.pem"),
                                          "--tls-key", self.pki.file("client.key")],
            "name not in the certificate": self.tls_args() + ["--tls-server-name",
                                                              "planner.example"],
        }
        for name, args in cases.items():
            with self.subTest(name):
                result = self.cli("algorithms", *args, *token)
                self.assertError(result, EXIT_UNAVAILABLE, "UNAVAILABLE")

    def test_server_name_override(self):
        # By IP, checking the certificate for its DNS name localhost.
        result = self.secure("health", "--tls-server-name", "localhost")
        self.assertExit(result, EXIT_OK)

    def test_bad_tls_options(self):
        key_missing = self.cli("health", "--tls-ca", self.pki.file("ca.pem"), "--tls-cert",
                               self.pki.file("client.pem"))
        self.assertExit(key_missing, EXIT_USAGE)
        self.assertRegex(key_missing.stderr, r"(?m)^shardplan: usage: --tls-cert and --tls-key")
        name_only = self.cli("health", "--tls-server-name", "localhost")
        self.assertExit(name_only, EXIT_USAGE)
        missing = self.pki.file("no-such.pem")
        for flag in ("--tls-ca", "--token-file"):
            with self.subTest(flag):
                result = self.cli("health", *self.tls_args(), flag, missing)
                self.assertError(result, EXIT_INVALID, "INVALID_ARGUMENT")
                self.assertIn(f"{flag}: {missing}", result.stderr)


if __name__ == "__main__":
    unittest.main()
