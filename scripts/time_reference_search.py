#!/usr/bin/env python3
"""Times the reference NeuroShard search and shardplan's on the same tasks and weights, in one run.

The reference (daochenzha/neuroshard, MIT licence) is run as its eval_simulator.py runs it:
NeurSharder(compute, fw comm, bw comm, table configs, ndevices, max_mem=4).shard(), one torch
thread (its modules call torch.set_num_threads(1)). Its three networks are built from the
shardplan bundle's own weights (format 1, the reference's architecture: models/<name>/<version>/,
read here without shardplan's code), so both sides search under the same cost model. The tasks
are reproduce_table1's (`shardplan-offline tasks generate`: GenerateTask(pool, devices, max dim,
seed, i), the reference's gen_tasks distribution), and shardplan's times are
`reproduce_table1`'s PlanTask planning times on exactly those tasks, NeuroShard with its defaults
and with baselines=false (the reference's search alone), measured by this script right before
and right after the reference's (on a shared machine the load can change meanwhile: the report
gives both):

    git --git-dir=/work/.mirror/daochenzha+neuroshard/repo archive HEAD | tar -x -C /tmp/ref
    /usr/bin/python3 scripts/time_reference_search.py --reference /tmp/ref --tasks 10

Needs PyTorch (Debian: apt-get install python3-torch) and numpy; writes OUT.json and OUT.md
(default bench/results/reference_speed). docs/benchmarks.md, "Speed against the reference".
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import struct
import subprocess
import sys
import tempfile
import time

WEIGHTS_MAGIC = b"SPWT"
MAX_MEM_GB = 4  # the reference's --max_mem (GB per device, table_size's unit: GiB)


def read_weights(path):
    """{name: (shape, flat floats)} of an SPWT file (costmodels/artifacts/weights_file.h)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != WEIGHTS_MAGIC:
        raise ValueError("%s: not an SPWT weights file" % path)
    _, count = struct.unpack_from("<II", data, 4)
    pos, tensors = 12, {}
    for _ in range(count):
        (name_len,) = struct.unpack_from("<I", data, pos)
        pos += 4
        name = data[pos:pos + name_len].decode("utf-8")
        pos += name_len
        (rank,) = struct.unpack_from("<I", data, pos)
        pos += 4
        shape = list(struct.unpack_from("<%dI" % rank, data, pos))
        pos += 4 * rank
        size = 1
        for d in shape:
            size *= d
        tensors[name] = (shape, list(struct.unpack_from("<%df" % size, data, pos)))
        pos += 4 * size
    return tensors


def linear_state(torch, tensors, prefix, module_prefix):
    """The reference module's state_dict entries of shardplan's "<prefix>.<i>.weight|bias"."""
    state, i = {}, 0
    while "%s.%d.weight" % (prefix, i) in tensors:
        for kind in ("weight", "bias"):
            shape, values = tensors["%s.%d.%s" % (prefix, i, kind)]
            state["%s.%d.%s" % (module_prefix, i, kind)] = torch.tensor(
                values, dtype=torch.float32).reshape(shape)
        i += 1
    return state, i


def reference_models(torch, bundle_dir, devices):
    """The reference's ComputeCostModel and forward/backward CommCostModel for `devices`."""
    from neuroshard.compute_cost_model import ComputeCostModel, ComputeCostNet
    from neuroshard.comm_cost_model import CommCostModel, CommCostNet

    with open(os.path.join(bundle_dir, "manifest.json")) as f:
        manifest = json.load(f)
    if manifest.get("format_version") != 1:
        raise ValueError("%s: format %s; the reference's architecture is format 1"
                         % (bundle_dir, manifest.get("format_version")))
    c = manifest["compute"]
    compute = ComputeCostModel()
    compute._feature_means = torch.tensor(c["normalization"]["mean"], dtype=torch.float32)
    compute._feature_stds = torch.tensor(c["normalization"]["std"], dtype=torch.float32)
    compute._num_table_features = c["table_mlp_sizes"][0]
    compute._table_mlp_sizes = c["table_mlp_sizes"][1:]
    compute._pred_mlp_sizes = c["pred_mlp_sizes"][:-1]
    compute._cost_net = ComputeCostNet(compute._num_table_features, compute._table_mlp_sizes,
                                       compute._pred_mlp_sizes)
    tensors = read_weights(os.path.join(bundle_dir, c["weights"]))
    table, _ = linear_state(torch, tensors, "table_mlp", "t_hidden")
    pred, _ = linear_state(torch, tensors, "pred_mlp", "c_hidden")
    compute._cost_net.load_state_dict({**table, **pred})

    comm = {}
    for entry in manifest["comm"]:
        if entry["num_devices"] != devices:
            continue
        model = CommCostModel(devices)
        model._feature_means = torch.tensor(entry["normalization"]["mean"], dtype=torch.float32)
        model._feature_stds = torch.tensor(entry["normalization"]["std"], dtype=torch.float32)
        model._num_features = entry["mlp_sizes"][0]
        model._mlp_sizes = entry["mlp_sizes"][1:-1]
        model._cost_net = CommCostNet(model._num_features, model._mlp_sizes, devices)
        state, _ = linear_state(torch, read_weights(os.path.join(bundle_dir, entry["weights"])),
                                "mlp", "hidden")
        model._cost_net.load_state_dict(state)
        comm[entry["direction"]] = model
    if set(comm) != {"forward", "backward"}:
        raise ValueError("%s has no comm models for %d devices" % (bundle_dir, devices))
    return compute, comm["forward"], comm["backward"]


def table_configs(task):
    """The reference's table configs (table_configs.json keys plus the task's dim)."""
    configs = []
    for t in task["tables"]:
        config = {"row": int(t["rows"]), "dim": int(t["dim"]),
                  "pooling_factor": float(t["pooling_factor"])}
        for j, value in enumerate(t["access_bins"]):
            config["bin_%d" % j] = float(value)
        configs.append(config)
    return configs


def time_reference(torch, args, devices, tasks):
    from neuroshard.neurosharder import NeurSharder

    compute, fw, bw = reference_models(torch, args.bundle, devices)
    out = []
    for i, task in enumerate(tasks):
        configs = table_configs(task)
        start, cpu_start = time.perf_counter(), time.process_time()
        sharder = NeurSharder(compute, fw, bw, configs, devices, MAX_MEM_GB)
        steps, shards = sharder.shard()
        seconds = time.perf_counter() - start
        # The process's CPU time beside the wall time: on a loaded machine wall time also counts
        # the time other processes held the CPU (shardplan's planning times are wall times).
        cpu_seconds = time.process_time() - cpu_start
        cost = sharder.get_final_cost(shards)  # under the same weights, as eval_simulator.py
        out.append({"index": i, "tables": len(configs), "seconds": seconds,
                    "cpu_seconds": cpu_seconds,
                    "cost_ms": cost, "column_splits": len(steps)})
        print("reference %d devices: task %d/%d %.2f s (cost %.3f ms)"
              % (devices, i + 1, len(tasks), seconds, cost), file=sys.stderr)
    return out


def run(cmd):
    print("+ " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", required=True,
                        help="a checkout of daochenzha/neuroshard (its neuroshard/ package)")
    parser.add_argument("--model", default="sim-rtx2080ti@2",
                        help="shardplan bundle NAME@VERSION of the reference's architecture")
    parser.add_argument("--models-dir", default="models")
    parser.add_argument("--devices", default="4,8")
    parser.add_argument("--max-dim", type=int, default=128)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default="bench/results/reference_speed")
    args = parser.parse_args()
    name, version = args.model.split("@")
    args.bundle = os.path.join(args.models_dir, name, version)
    sys.path.insert(0, os.path.abspath(args.reference))
    import torch  # noqa: E402 (after the argument check, so --help needs no torch)

    result = {"config": {"model": args.model, "max_dim": args.max_dim, "tasks": args.tasks,
                         "seed": args.seed, "reference": os.path.abspath(args.reference),
                         "torch": torch.__version__, "torch_threads": 1},
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": "%s, %d CPUs" % (platform.processor() or platform.machine(),
                                          os.cpu_count()),
              "settings": []}
    with tempfile.TemporaryDirectory() as tmp:
        for devices in [int(d) for d in args.devices.split(",")]:
            tasks_file = os.path.join(tmp, "tasks_%d.jsonl" % devices)
            run([os.path.join(args.build, "client/cli/shardplan-offline"), "tasks", "generate",
                 "--devices", str(devices), "--max-dim", str(args.max_dim), "--count",
                 str(args.tasks), "--seed", str(args.seed), "--out", tasks_file])
            with open(tasks_file) as f:
                tasks = [json.loads(line) for line in f if line.strip()]
            def ours(when):
                prefix = os.path.join(tmp, "ours_%d_%s" % (devices, when))
                run([os.path.join(args.build, "bench/reproduce_table1"), "--devices",
                     str(devices), "--max-dims", str(args.max_dim), "--tasks", str(args.tasks),
                     "--seed", str(args.seed), "--algorithms", "neuroshard", "--analytic-row",
                     "", "--search-only-row", "--model", args.model, "--models-dir",
                     args.models_dir, "--out", prefix, "--fresh"])
                with open(prefix + ".json") as f:
                    return json.load(f)["settings"][0]["tasks"]

            before = ours("before")
            reference = time_reference(torch, args, devices, tasks)
            after = ours("after")
            rows = []
            for ref, b, a in zip(reference, before, after):
                rows.append({**ref,
                             "neuroshard_ms": [x["results"]["neuroshard"]["planning_ms"]
                                               for x in (b, a)],
                             "search_only_ms":
                                 [x["results"]["neuroshard-search-only"]["planning_ms"]
                                  for x in (b, a)],
                             "search_only_cost_ms":
                                 a["results"]["neuroshard-search-only"].get(
                                     "planning_model_cost_ms")})
            ref_median = statistics.median(r["seconds"] * 1000 for r in rows)
            ref_cpu_median = statistics.median(r["cpu_seconds"] * 1000 for r in rows)
            # shardplan's median: before and after the reference, the larger (the smaller ratio).
            ns_median = max(statistics.median(r["neuroshard_ms"][k] for r in rows)
                            for k in (0, 1))
            so_median = max(statistics.median(r["search_only_ms"][k] for r in rows)
                            for k in (0, 1))
            medians = {"neuroshard_medians_before_after_ms":
                           [statistics.median(r["neuroshard_ms"][k] for r in rows)
                            for k in (0, 1)],
                       "search_only_medians_before_after_ms":
                           [statistics.median(r["search_only_ms"][k] for r in rows)
                            for k in (0, 1)]}
            same = sum(1 for r in rows if r["search_only_cost_ms"] is not None
                       and abs(r["search_only_cost_ms"] - r["cost_ms"]) <= 1e-3 * r["cost_ms"])
            result["settings"].append({
                "devices": devices, "tasks": rows,
                "mean_tables": statistics.mean(r["tables"] for r in rows),
                "reference_median_ms": ref_median, "reference_cpu_median_ms": ref_cpu_median, "neuroshard_median_ms": ns_median,
                "search_only_median_ms": so_median, **medians,
                "ratio_reference_over_neuroshard": ref_median / ns_median,
                "ratio_reference_over_search_only": ref_median / so_median,
                "same_cost_as_reference": same})

    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out + ".json", "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    lines = ["# The reference's search and shardplan's, timed side by side", "",
             "%s, %s; %d tasks per device count from reproduce_table1 (max dim %d, seed %d), "
             "both searching under %s's weights (the reference's torch modules built from the "
             "bundle), one thread each; torch %s. Medians of per-task planning times; shardplan's "
             "were measured before and after the reference's and the larger median is used "
             "(both in brackets)."
             % (result["date"], result["machine"], args.tasks, args.max_dim, args.seed,
                args.model, torch.__version__), "",
             "| devices | mean tables | reference median s (CPU s) | neuroshard median ms | ratio | "
             "search-only median ms | ratio | search-only plan costs as the reference's |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in result["settings"]:
        ns, so = s["neuroshard_medians_before_after_ms"], s["search_only_medians_before_after_ms"]
        lines.append("| %d | %.1f | %.2f (%.2f) | %.2f (%.2f, %.2f) | %.0fx | %.2f (%.2f, %.2f) "
                     "| %.0fx | %d of %d |" % (
                         s["devices"], s["mean_tables"], s["reference_median_ms"] / 1000,
                         s["reference_cpu_median_ms"] / 1000,
                         s["neuroshard_median_ms"], ns[0], ns[1],
                         s["ratio_reference_over_neuroshard"], s["search_only_median_ms"], so[0],
                         so[1], s["ratio_reference_over_search_only"],
                         s["same_cost_as_reference"], len(s["tasks"])))
    report = "\n".join(lines) + "\n"
    with open(args.out + ".md", "w") as f:
        f.write(report)
    print(report)


if __name__ == "__main__":
    main()
