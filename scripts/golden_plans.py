#!/usr/bin/env python3
"""Plans Table-1 tasks through the real server and CLI and writes every answer, for diffing.

A refactor that must not change behaviour is checked by running this against the build before
and the build after and comparing the two files (`cmp`, or `diff` for the first difference):

    scripts/golden_plans.py --build /path/to/old/build --out /tmp/old.jsonl
    scripts/golden_plans.py --build build --out /tmp/new.jsonl
    cmp /tmp/old.jsonl /tmp/new.jsonl

Tasks come from `shardplan tasks generate` (the reference's gen_tasks.py distribution, seed 0).
Each task is planned with every Table-1 algorithm under the shipped neural model and NeuroShard
also under analytic@1 and with the server's defaults (no algorithm, no model), then the
NeuroShard plan is scored on ground truth (`evaluate --ground-truth sim:rtx2080ti`). A line holds
the CLI's exit status and its `--json` output (or its error text), with the one field that
varies from run to run, the planning time, removed; everything else (shards, per-device figures,
cost, cache counts, request hash, selection, warnings) must match exactly.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ALGORITHMS = ["random", "size_greedy", "dim_greedy", "lookup_greedy", "size_lookup_greedy",
              "torchrec", "neuroshard"]
VARYING_FIELDS = {"planning_time_ms", "planningTimeMs"}


def strip_varying(value):
    if isinstance(value, dict):
        return {k: strip_varying(v) for k, v in value.items() if k not in VARYING_FIELDS}
    if isinstance(value, list):
        return [strip_varying(v) for v in value]
    return value


def start_server(build, work):
    port_file = work / "ports.json"
    log = open(work / "server.log", "w")
    server = subprocess.Popen(
        [str(build / "server/shardplan-server"), "--address", "127.0.0.1:0",
         "--metrics_address", "", "--port_file", str(port_file), "--store", "",
         "--models_dir", "models", "--model_reload_interval_s", "0", "--cache_bytes", "0",
         "--max_requests_per_client", "0"],
        stdout=log, stderr=subprocess.STDOUT)
    for _ in range(300):
        if port_file.exists() and port_file.stat().st_size > 0:
            return server, json.loads(port_file.read_text())["grpc_port"]
        if server.poll() is not None:
            sys.exit(f"golden_plans: the server exited: {(work / 'server.log').read_text()}")
        time.sleep(0.1)
    server.kill()
    sys.exit("golden_plans: the server wrote no port file in 30 s")


def cli(build, port, args):
    result = subprocess.run([str(build / "client/cli/shardplan"), "--server",
                             f"127.0.0.1:{port}", *args], capture_output=True, text=True)
    answer = {"exit": result.returncode}
    if result.returncode == 0:
        answer["json"] = strip_varying(json.loads(result.stdout))
    else:
        answer["error"] = result.stderr.strip()
    return answer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", required=True, type=pathlib.Path, help="a build directory")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="JSON lines written here")
    parser.add_argument("--tasks", type=int, default=6, help="tasks per setting")
    parser.add_argument("--devices", default="4,8")
    parser.add_argument("--max-dims", default="16,64,128")
    parser.add_argument("--model", default="sim-rtx2080ti@2")
    args = parser.parse_args()
    build = args.build.resolve()

    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        server, port = start_server(build, work)
        try:
            with open(args.out, "w") as out:
                for devices in args.devices.split(","):
                    for max_dim in args.max_dims.split(","):
                        task_dir = work / f"tasks_{devices}_{max_dim}"
                        subprocess.run(
                            [str(build / "client/cli/shardplan-offline"), "tasks", "generate",
                             "--devices", devices, "--count", str(args.tasks), "--max-dim",
                             max_dim, "--seed", "0", "--out", str(task_dir)],
                            check=True, capture_output=True)
                        for task in sorted(task_dir.glob("*.json")):
                            runs = [[a, "--model", args.model] for a in ALGORITHMS]
                            runs += [["neuroshard", "--model", "analytic@1"], [None]]
                            for run in runs:
                                flags = ["--algorithm", run[0], *run[1:]] if run[0] else []
                                answer = cli(build, port, ["plan", str(task), "--json", *flags])
                                line = {"setting": f"{devices}/{max_dim}", "task": task.name,
                                        "plan": flags, **answer}
                                out.write(json.dumps(line, sort_keys=True) + "\n")
                                if run[0] == "neuroshard" and answer["exit"] == 0 and \
                                        run[1:] == ["--model", args.model]:
                                    plan_file = work / "plan.json"
                                    plan_file.write_text(json.dumps(answer["json"]))
                                    truth = cli(build, port, ["evaluate", str(task), str(plan_file),
                                                              "--ground-truth", "sim:rtx2080ti",
                                                              "--json"])
                                    out.write(json.dumps({"setting": f"{devices}/{max_dim}",
                                                          "task": task.name,
                                                          "evaluate": "sim:rtx2080ti", **truth},
                                                         sort_keys=True) + "\n")
                        print(f"golden_plans: {devices} devices, max dim {max_dim} done",
                              file=sys.stderr)
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
