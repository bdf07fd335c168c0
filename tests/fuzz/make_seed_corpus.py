#!/usr/bin/python3
"""Writes the fuzzers' seed inputs into tests/fuzz/corpus/<target>/seed-*.

task_json_fuzzer: the example tasks, the hand-written edge cases below and small variants.
request_validation_fuzzer: PlanRequests serialised from the same tasks (those proto3 JSON can
express) with every algorithm, parameter and model spelling the engine resolves.

Needs the Python stubs, committed in client/python/shardplan/v1 (the default --python-path).
Usage: make_seed_corpus.py [--python-path client/python]
"""

import argparse
import copy
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"

SMALL_TASK = {
    "tables": [
        {"name": "a", "rows": 1000, "dim": 16, "pooling_factor": 2.5},
        {"name": "b", "rows": 50000, "dim": 64, "pooling_factor": 10,
         "access_bins": [0.5, 0.25, 0.125, 0.0625, 0.0625] + [0.0] * 12,
         "element_type": "FP16", "allowed_sharding_types": ["TABLE_WISE", "COLUMN_WISE"]},
        {"name": "c", "rows": "7", "dim": 4, "pooling_factor": 0, "pinned_device": 1,
         "element_type": "INT8"},
    ],
    "topology": {"num_devices": 2, "device_memory_gib": 0.5, "devices_per_host": 1,
                 "intra_host_bandwidth_gibps": 100, "inter_host_bandwidth_gibps": 10},
    "batch_size": 512,
    "colocate": [{"tables": ["a", "b"]}],
    "memory": {"optimizer_state_multiplier": 1, "io_buffer_multiplier": 0.5},
    "max_planning_time_ms": 1000,
}

# Edge cases of the parser and the validator, as text (some are not valid JSON on purpose).
JSON_EDGE_CASES = {
    "empty-object": "{}",
    "null": "null",
    "array": "[]",
    "truncated": '{"tables": [{"name": "x", "rows": 1',
    "unknown-field": '{"tabels": []}',
    "both-spellings": '{"batch_size": 1, "batchSize": 2}',
    "camel-case": '{"tables":[{"name":"x","rows":8,"dim":8,"poolingFactor":1}],'
                  '"topology":{"numDevices":1,"deviceMemoryGib":1},"batchSize":"64"}',
    "int64-strings": '{"tables":[{"name":"x","rows":"9223372036854775807","dim":"8"}],'
                     '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "float-integers": '{"tables":[{"name":"x","rows":1e3,"dim":8.0}],'
                      '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "out-of-range": '{"tables":[{"name":"x","rows":9223372036854775808,"dim":2147483648}]}',
    "nan-infinity": '{"tables":[{"name":"x","rows":8,"dim":8,"pooling_factor":"NaN"}],'
                    '"topology":{"num_devices":1,"device_memory_gib":"Infinity"}}',
    "per-device-memory": '{"tables":[{"name":"x","rows":8,"dim":8}],"topology":'
                         '{"per_device_memory_gib":[1,2,0.5],"devices_per_host":2}}',
    "per-device-mismatch": '{"topology":{"num_devices":2,"per_device_memory_gib":[1]}}',
    "huge-devices": '{"topology":{"num_devices":2147483647,"device_memory_gib":1}}',
    "tiny-capacity": '{"tables":[{"name":"x","rows":1,"dim":4}],'
                     '"topology":{"num_devices":1,"device_memory_gib":1e-300}}',
    "huge-capacity": '{"topology":{"num_devices":1,"device_memory_gib":8589934591.99}}',
    "enum-numbers": '{"tables":[{"name":"x","rows":8,"dim":8,"element_type":2,'
                    '"allowed_sharding_types":[1,2,3,4]}],'
                    '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "unspecified-sharding": '{"tables":[{"name":"x","allowed_sharding_types":'
                            '["SHARDING_TYPE_UNSPECIFIED"]}]}',
    "nulls": '{"tables":[{"name":"x","pinned_device":null,"access_bins":null}],'
             '"topology":null,"colocate":null,"memory":null}',
    "duplicate-names": '{"tables":[{"name":"x","rows":8,"dim":8},{"name":"x","rows":8,"dim":8}],'
                       '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "bad-colocation": '{"tables":[{"name":"x","rows":8,"dim":8}],"colocate":[{"tables":'
                      '["x","x","y"]}],"topology":{"num_devices":1,"device_memory_gib":1}}',
    "pinned-out-of-range": '{"tables":[{"name":"x","rows":8,"dim":8,"pinned_device":5}],'
                           '"topology":{"num_devices":2,"device_memory_gib":1}}',
    "access-bins-short": '{"tables":[{"name":"x","rows":8,"dim":8,"access_bins":[1]}],'
                         '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "negative-multiplier": '{"memory":{"optimizer_state_multiplier":-1}}',
    "access-bins-sum-17": '{"tables":[{"name":"x","rows":8,"dim":8,"pooling_factor":2,'
                          '"access_bins":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}],'
                          '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "access-bins-unread": '{"tables":[{"name":"x","rows":8,"dim":8,"pooling_factor":0,'
                          '"access_bins":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}],'
                          '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "planning-time-overflow": '{"tables":[{"name":"x","rows":8,"dim":8}],'
                              '"topology":{"num_devices":1,"device_memory_gib":1},'
                              '"max_planning_time_ms":"10000000000000"}',
    "torchrec-memory": '{"tables":[{"name":"x","rows":8,"dim":8}],'
                       '"topology":{"num_devices":1,"device_memory_gib":1},'
                       '"memory":{"storage_reservation":0.15,"optimizer":"ROWWISE_ADAGRAD"}}',
    "unicode-names": '{"tables":[{"name":"t\\u00e9\\u4e2d\\ud83d\\ude00","rows":8,"dim":8}],'
                     '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "lone-surrogate": '{"tables":[{"name":"\\ud800","rows":8,"dim":8}]}',
    "nested-deep": "[" * 2000 + "]" * 2000,
    "negative-zero": '{"tables":[{"name":"x","rows":8,"dim":8,"pooling_factor":-0.0}],'
                     '"topology":{"num_devices":1,"device_memory_gib":1}}',
    "bandwidth-zero": '{"tables":[{"name":"x","rows":8,"dim":8}],"topology":{"num_devices":4,'
                      '"device_memory_gib":1,"intra_host_bandwidth_gibps":0,'
                      '"inter_host_bandwidth_gibps":0,"devices_per_host":3}}',
}

ALGORITHM_PARAMS = {
    "": {},
    "size_lookup_greedy": {},
    "dim_greedy": {},
    "random": {"respect_memory": "false"},
    "exhaustive": {"max_placements": "100"},
    "neuroshard": {"beam_width": "2", "candidates": "3", "max_steps": "4", "threads": "1",
                   "grid_steps": "5", "beam_search": "true", "grid_search": "false",
                   "cost_cache": "true"},
    "torchrec": {"min_partition": "8"},
    "no_such_algorithm": {},
}
BAD_PARAMS = [
    ("random", {"respect_memory": "maybe"}),
    ("exhaustive", {"max_placements": "0"}),
    ("torchrec", {"min_partition": "1e9"}),
    ("neuroshard", {"beam_width": "-1", "unknown": "1"}),
]
MODELS = ["", "analytic", "analytic@1", "analytic@2", "neural", "@", "analytic@"]


def write(target, name, data):
    path = CORPUS / target / f"seed-{name}"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python-path", default=str(ROOT / "client" / "python"),
                        help="directory holding shardplan/v1/*_pb2.py")
    args = parser.parse_args()
    sys.path.insert(0, args.python_path)
    from google.protobuf import json_format  # pylint: disable=import-outside-toplevel
    from shardplan.v1 import planner_pb2  # pylint: disable=import-outside-toplevel

    tasks = {"small": SMALL_TASK}
    for example in sorted((ROOT / "examples").glob("*.json")):
        tasks[example.stem] = json.loads(example.read_text())
    # Variants near the validator's checks.
    one_table = copy.deepcopy(SMALL_TASK)
    one_table["tables"] = one_table["tables"][:1]
    one_table["colocate"] = []
    tasks["one-table"] = one_table
    heterogeneous = copy.deepcopy(SMALL_TASK)
    del heterogeneous["topology"]["device_memory_gib"]
    heterogeneous["topology"]["per_device_memory_gib"] = [0.25, 1.0]
    tasks["heterogeneous"] = heterogeneous

    for name, task in tasks.items():
        write("task_json_fuzzer", f"task-{name}", json.dumps(task))
    for name, text in JSON_EDGE_CASES.items():
        write("task_json_fuzzer", name, text)

    count = 0
    for name, task in tasks.items():
        proto_task = json_format.ParseDict(task, planner_pb2.Task())
        for algorithm, params in list(ALGORITHM_PARAMS.items()) + BAD_PARAMS:
            # Every algorithm on the small task; the examples with the default only.
            if name != "small" and algorithm:
                continue
            for model in MODELS if name == "small" else [""]:
                request = planner_pb2.PlanRequest(task=proto_task, algorithm=algorithm,
                                                  seed=7, model=model)
                request.parameters.update(params)
                write("request_validation_fuzzer",
                      f"{name}-{algorithm or 'default'}-{model or 'default'}-{count}",
                      request.SerializeToString())
                count += 1
    for name, text in JSON_EDGE_CASES.items():
        try:
            proto_task = json_format.Parse(text, planner_pb2.Task())
        except (json_format.ParseError, ValueError, TypeError, RecursionError):
            continue  # not expressible as a proto
        write("request_validation_fuzzer", f"edge-{name}",
              planner_pb2.PlanRequest(task=proto_task).SerializeToString())
    write("request_validation_fuzzer", "empty", b"")
    print(f"make_seed_corpus: wrote {len(tasks) + len(JSON_EDGE_CASES)} JSON and "
          f"{count} + edge-case PlanRequest seeds under {CORPUS}")


if __name__ == "__main__":
    main()
