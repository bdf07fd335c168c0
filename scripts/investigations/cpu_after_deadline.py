#!/usr/bin/env python3
"""How long a shardplan-server keeps working after callers with short deadlines gave up (issue 32).

Starts build/server/shardplan-server with the shipped models, sends CALLS concurrent Plan (or
EvaluatePlan) calls of a task of TABLES tables on DEVICES devices without access histograms, each
with a DEADLINE-second deadline, and reads the server's process_cpu_seconds_total every 0.25 s
until it has been idle for 2 s (at most 120 s): prints the CPU seconds it used and when it went
idle (null: still busy after 120 s), counted from the moment the last caller gave up. Needs /usr/bin/python3 with grpcio (scripts/install_deps.sh).

    PYTHONPATH=client/python /usr/bin/python3 scripts/investigations/cpu_after_deadline.py \
        [--tables 100000] [--devices 8] [--calls 1] [--deadline 0.2] [--method plan|evaluate]
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import tempfile
import time
import urllib.request

import shardplan

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def task(tables, devices, seed=0):
    rng = random.Random(seed)
    return {
        "tables": [{"name": f"t{i}", "rows": int(10 ** rng.uniform(2, 7)),
                    "dim": rng.choice([4, 8, 16, 32, 64, 128]),
                    "pooling_factor": rng.uniform(1, 100)} for i in range(tables)],
        "topology": {"num_devices": devices, "device_memory_gib": 1024,
                     "devices_per_host": 8, "hardware": "rtx2080ti"},
    }


def cpu_seconds(metrics_port):
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read()
    return float(re.search(rb"^process_cpu_seconds_total (\S+)", text, re.M).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=100000)
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--calls", type=int, default=1)
    parser.add_argument("--deadline", type=float, default=0.2)
    parser.add_argument("--method", choices=["plan", "evaluate"], default="plan")
    parser.add_argument("--server", default=os.path.join(ROOT, "build", "server",
                                                         "shardplan-server"))
    args = parser.parse_args()
    the_task = task(args.tables, args.devices)
    plan = {"tables": [{"table": t["name"], "sharding_type": "TABLE_WISE",
                        "shards": [{"device": i % args.devices, "row_count": t["rows"],
                                    "column_count": t["dim"]}]}
                       for i, t in enumerate(the_task["tables"])]}
    with tempfile.TemporaryDirectory() as tmp:
        port_file = os.path.join(tmp, "ports.json")
        server = subprocess.Popen(
            [args.server, "--address", "127.0.0.1:0", "--metrics_address", "127.0.0.1:0",
             "--port_file", port_file, "--models_dir", os.path.join(ROOT, "models"),
             "--store", "", "--max_message_bytes", str(256 << 20)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not os.path.exists(port_file) or not open(port_file).read().strip():
                time.sleep(0.1)
            ports = json.load(open(port_file))
            client = shardplan.PlannerClient(f"127.0.0.1:{ports['grpc_port']}", retries=1)
            before = cpu_seconds(ports["metrics_port"])

            def call(_):
                try:
                    if args.method == "plan":
                        client.plan(the_task, timeout=args.deadline, bypass_cache=True)
                    else:
                        client.evaluate(the_task, plan, timeout=args.deadline)
                    return "OK"
                except shardplan.ShardplanError as error:
                    return type(error).__name__

            with concurrent.futures.ThreadPoolExecutor(args.calls) as pool:
                outcomes = list(pool.map(call, range(args.calls)))
            gave_up = time.monotonic()
            at_gave_up = cpu_seconds(ports["metrics_port"])
            last, last_change, idle_at = at_gave_up, gave_up, None
            while time.monotonic() - gave_up < 120:
                time.sleep(0.25)
                now = cpu_seconds(ports["metrics_port"])
                if now - last > 0.02:
                    last_change = time.monotonic()
                last = now
                if time.monotonic() - last_change > 2:
                    idle_at = last_change - gave_up
                    break
            print(json.dumps({"tables": args.tables, "devices": args.devices,
                              "calls": args.calls, "deadline_s": args.deadline,
                              "method": args.method, "outcomes": sorted(set(outcomes)),
                              "cpu_s_until_callers_gave_up": round(at_gave_up - before, 2),
                              "cpu_s_after_callers_gave_up": round(last - at_gave_up, 2),
                              "busy_s_after_callers_gave_up":
                                  None if idle_at is None else round(max(idle_at, 0), 2)}))
        finally:
            server.kill()  # a server still busy would drain for as long as it works
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
