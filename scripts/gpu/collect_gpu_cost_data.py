#!/usr/bin/env python3
"""Collect compute and comm cost data on GPUs: the `gpu` hardware backend (docs/cpu-backend.md,
section "GPU collection").

The sample inputs come from a cost-data JSONL file made by the C++ generators (for instance
`shardplan data collect --backend sim ...`): this script keeps each record's inputs (id, seed,
pool, tables / dim sums and start offsets), measures them on this machine's GPUs and writes the
same record format (lab/collection/cost_record.h) with backend "gpu" and hardware
profile "gpu-<device name>". The measured fields of the input records are ignored. Reruns
append only the ids missing from --out (resumable; an unfinished last line is dropped first).

  # compute: FBGEMM's table-batched op (EXACT_SGD, FP32, DEVICE) if fbgemm_gpu imports,
  # else one torch.nn.EmbeddingBag per table + torch.optim.SGD; fwd+bwd(+update), median of
  # --iters after --warmup, L2 flushed before each iteration.
  python3 scripts/gpu/collect_gpu_cost_data.py compute --inputs sim_compute.jsonl \
      --out gpu_compute.jsonl
  # comm: one process per GPU, NCCL all_to_all_single, per-rank start offsets as sleeps.
  torchrun --nproc_per_node 4 scripts/gpu/collect_gpu_cost_data.py comm \
      --inputs sim_comm_4.jsonl --out gpu_comm_4.jsonl
  # the parts that need no GPU or torch (arguments, records, resume, sampler arithmetic):
  /usr/bin/python3 scripts/gpu/collect_gpu_cost_data.py --self-check
"""

import argparse
import collections
import datetime
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
import time

NUM_BINS = 17
RUN_FIELDS = ("kind", "backend", "hardware_profile", "seed", "batch_size", "pool", "pool_sha256")
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


# --- Arguments -------------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-check", action="store_true",
                        help="test the non-GPU parts (no torch needed) and exit")
    sub = parser.add_subparsers(dest="kind")
    for kind in ("compute", "comm"):
        p = sub.add_parser(kind, help=f"measure the {kind} samples of --inputs")
        p.add_argument("--inputs", required=True, help="cost-data JSONL whose inputs to measure")
        p.add_argument("--out", required=True, help="JSONL to create or resume")
        p.add_argument("--batch-size", type=int, default=65536,
                       help="global batch (default 65536, the reference's)")
        p.add_argument("--warmup", type=int, default=5)
        p.add_argument("--iters", type=int, default=10)
        p.add_argument("--limit", type=int, default=0, help="measure at most this many (0: all)")
        p.add_argument("--fsync-every", type=int, default=64)
        if kind == "compute":
            p.add_argument("--pool", default="",
                           help="table pool JSON (default: the records' pool, from the repo root)")
            p.add_argument("--op", choices=("auto", "fbgemm", "embedding_bag"), default="auto")
            p.add_argument("--learning-rate", type=float, default=0.01)
            p.add_argument("--lookup-seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not args.self_check and not args.kind:
        parser.error("give 'compute' or 'comm' (or --self-check)")
    if args.kind and (args.warmup < 0 or args.iters < 1 or args.batch_size < 1):
        parser.error("--warmup must be >= 0, --iters and --batch-size >= 1")
    return args


# --- Records and resume ----------------------------------------------------------------------

def device_slug(name):
    """'NVIDIA A100-SXM4-80GB' -> 'nvidia-a100-sxm4-80gb'."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "unknown"


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_inputs(path, kind):
    """The records of `kind` in `path`, by id (the first of a repeated id wins)."""
    records = collections.OrderedDict()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{number}: not valid JSON ({e})")
            if not isinstance(record, dict) or "id" not in record or "kind" not in record:
                raise SystemExit(f"{path}:{number}: not a cost record (no id or kind)")
            if record["kind"] != kind:
                continue
            needed = ("tables",) if kind == "compute" else ("num_devices", "dim_sums",
                                                            "start_offsets_ms")
            for key in needed:
                if key not in record:
                    raise SystemExit(f"{path}:{number}: {kind} record without '{key}'")
            records.setdefault(record["id"], record)
    return records


def make_record(inputs, run, measured):
    """A record in cost_record.h's field order: inputs' id/seed/pool, run's backend/profile/
    batch, the measured fields, a UTC timestamp."""
    out = collections.OrderedDict()
    out["id"] = inputs["id"]
    out["kind"] = run["kind"]
    out["backend"] = run["backend"]
    out["hardware_profile"] = run["hardware_profile"]
    out["seed"] = run["seed"]
    out["batch_size"] = run["batch_size"]
    out["pool"] = run["pool"]
    out["pool_sha256"] = run["pool_sha256"]
    if run["kind"] == "compute":
        out["tables"] = [[int(i), int(d)] for i, d in inputs["tables"]]
        out["ms"] = float(measured["ms"])
    else:
        out["num_devices"] = int(inputs["num_devices"])
        out["dim_sums"] = [int(x) for x in inputs["dim_sums"]]
        out["start_offsets_ms"] = [float(x) for x in inputs["start_offsets_ms"]]
        out["forward_ms"] = [float(x) for x in measured["forward_ms"]]
        out["backward_ms"] = [float(x) for x in measured["backward_ms"]]
    out["time"] = run.get("time") or utc_now()
    return out


def existing_ids(out_path, run, log=sys.stderr):
    """Ids already in `out_path`, after dropping an unterminated last line (a killed writer).
    Refuses a file whose records come from another run (a different RUN_FIELDS value)."""
    if not os.path.exists(out_path):
        return set()
    with open(out_path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        print(f"{out_path}: dropping an unfinished last line ({len(data) - keep} bytes)",
              file=log)
        with open(out_path, "r+b") as f:
            f.truncate(keep)
        data = data[:keep]
    ids = set()
    for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise SystemExit(f"{out_path}:{number}: not valid JSON ({e})")
        for key in RUN_FIELDS:
            if record.get(key) != run[key]:
                raise SystemExit(f"{out_path}:{number}: '{key}' is {record.get(key)!r}, this run's "
                                 f"is {run[key]!r}; write to another --out")
        ids.add(record["id"])
    return ids


def collect(inputs, out_path, run, measure, limit=0, fsync_every=64, log=sys.stderr,
            on_plan=None):
    """Measures the inputs missing from out_path (in id order) and appends their records.
    `measure(inputs_record)` returns the measured fields; `on_plan(ids)`, if given, hears the
    ids about to be measured first. Returns the number appended."""
    done = existing_ids(out_path, run, log)
    todo = [r for i, r in sorted(inputs.items()) if i not in done]
    if limit > 0:
        todo = todo[:limit]
    if on_plan:
        on_plan([r["id"] for r in todo])
    print(f"{len(done)} records present, {len(todo)} to measure", file=log)
    start = time.monotonic()
    with open(out_path, "a", encoding="utf-8") as out:
        for n, record in enumerate(todo, 1):
            line = json.dumps(make_record(record, run, measure(record)), separators=(",", ":"))
            out.write(line + "\n")  # one write per record: an interrupt tears at most this one
            out.flush()
            if n % fsync_every == 0 or n == len(todo):
                os.fsync(out.fileno())
            elapsed = time.monotonic() - start
            rate = n / elapsed if elapsed > 0 else 0.0
            eta = (len(todo) - n) / rate if rate > 0 else 0.0
            print(f"\r{n}/{len(todo)} {rate:.2f}/s ETA {eta:.0f}s", end="", file=log)
    print(file=log)
    return len(todo)


def run_fields(first_input, kind, profile, batch_size):
    return {"kind": kind, "backend": "gpu", "hardware_profile": profile,
            "seed": first_input.get("seed", 0), "batch_size": batch_size,
            "pool": first_input.get("pool", ""), "pool_sha256": first_input.get("pool_sha256", "")}


# --- Lookups following the access histogram (as groundtruth/cpu/lookup_sampler.h) ----

def bin_range(j):
    """(lo, hi] of access-count bin j; bin 16 (> 32768) drawn from (32768, 65536]."""
    if j == 0:
        return 0, 1
    if j >= NUM_BINS - 1:
        return 1 << 15, 1 << 16
    return 1 << (j - 1), 1 << j


def rows_per_bin(p, distinct):
    n = [int(round_half_away(x * distinct)) for x in p]
    if sum(n) == 0:
        n[max(range(len(p)), key=lambda j: p[j])] = 1
    return n


def round_half_away(x):
    # C++'s llround, so both samplers apportion identically.
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)


def expected_lookups(p, distinct):
    return sum(n * 0.5 * (lo + 1 + hi)
               for n, (lo, hi) in zip(rows_per_bin(p, distinct), map(bin_range, range(NUM_BINS))))


def distinct_rows_for(p, rows, target):
    """Smallest distinct-row count in [1, rows] whose expected total reaches target."""
    lo, hi = 1, rows
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if expected_lookups(p, mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def sample_lookups(torch, rows, pooling_factor, bins, batch, generator, device):
    """(indices, lengths) of one table for `batch` samples; the construction of
    lookup_sampler.h with torch's generator (statistically, not bit-, equal to the C++)."""
    target = round_half_away(pooling_factor * batch)
    mass = sum(bins) if bins else 0.0
    if target <= 0:
        counts_rows = torch.zeros(0, dtype=torch.long)
        counts = torch.zeros(0, dtype=torch.long)
    elif mass <= 0:
        counts_rows = torch.randint(rows, (target,), generator=generator)
        counts = torch.ones(target, dtype=torch.long)
    else:
        p = [b / mass for b in bins]
        per_bin = rows_per_bin(p, distinct_rows_for(p, rows, target))
        distinct = min(rows, sum(per_bin))
        counts_rows = torch.randperm(rows, generator=generator)[:distinct]
        parts = []
        for j, n in enumerate(per_bin):
            lo, hi = bin_range(j)
            parts.append(torch.randint(lo + 1, hi + 1, (n,), generator=generator))
        counts = torch.cat(parts)[:distinct]
        drawn = int(counts.sum())
        if abs(drawn - target) > 0.02 * target:
            counts = torch.clamp(torch.round(counts.double() * (target / drawn)), min=1).long()
    indices = torch.repeat_interleave(counts_rows, counts)
    indices = indices[torch.randperm(indices.numel(), generator=generator)]
    owner = torch.randint(batch, (indices.numel(),), generator=generator)
    lengths = torch.bincount(owner, minlength=batch)
    # Bags are consecutive runs of the shuffled indices, bag b holding lengths[b] of them.
    return indices.to(device), lengths.to(device)


# --- GPU measurement -------------------------------------------------------------------------

def require_torch():
    try:
        import torch  # noqa: F401 (imported for the caller)
    except ImportError:
        raise SystemExit("collect_gpu_cost_data.py needs PyTorch with CUDA (pip install torch; "
                         "optionally fbgemm-gpu). --self-check runs without it.")
    if not torch.cuda.is_available():
        raise SystemExit("PyTorch sees no CUDA device; the gpu backend measures on GPUs only")
    return torch


def l2_flusher(torch, device):
    props = torch.cuda.get_device_properties(device)
    l2 = getattr(props, "L2_cache_size", 0) or (50 << 20)
    buffer = torch.empty(2 * l2 // 4, dtype=torch.float32, device=device)

    def flush():
        buffer.zero_()  # writes twice the L2, evicting the weights (the reference's torch.rand)
    return flush


def median_ms(torch, step, flush, warmup, iters):
    times = []
    for i in range(warmup + iters):
        flush()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        stop.record()
        torch.cuda.synchronize()
        if i >= warmup:
            times.append(start.elapsed_time(stop))
    return statistics.median(times)


def fbgemm_module():
    """FBGEMM's TBE pieces (current layout as torchrec imports it, then the old one), or None."""
    try:
        from fbgemm_gpu.split_embedding_configs import EmbOptimType
        from fbgemm_gpu.split_table_batched_embeddings_ops_training import (
            ComputeDevice, EmbeddingLocation, SparseType, SplitTableBatchedEmbeddingBagsCodegen)
    except ImportError:
        try:
            from fbgemm_gpu.split_table_batched_embeddings_ops import (
                ComputeDevice, EmbeddingLocation, SparseType, SplitTableBatchedEmbeddingBagsCodegen)
            from fbgemm_gpu.split_table_batched_embeddings_ops import OptimType as EmbOptimType
        except ImportError:
            return None
    return SplitTableBatchedEmbeddingBagsCodegen, EmbOptimType, SparseType, ComputeDevice, \
        EmbeddingLocation


def compute_measurer(torch, args, pool_tables, device):
    fbgemm = fbgemm_module() if args.op in ("auto", "fbgemm") else None
    if args.op == "fbgemm" and fbgemm is None:
        raise SystemExit("--op fbgemm: fbgemm_gpu does not import")
    print(f"compute op: {'FBGEMM TBE (EXACT_SGD, FP32, DEVICE)' if fbgemm else 'nn.EmbeddingBag + SGD'}",
          file=sys.stderr)
    flush = l2_flusher(torch, device)
    batch = args.batch_size

    def measure(record):
        generator = torch.Generator().manual_seed(args.lookup_seed * 1000003 + record["id"])
        tables = [(pool_tables[i], d) for i, d in record["tables"]]
        lookups = [sample_lookups(torch, t["rows"], t["pooling_factor"], t.get("access_bins", []),
                                  batch, generator, device) for t, _ in tables]
        dims = [d for _, d in tables]
        grads = torch.rand(batch, sum(dims), device=device)
        if fbgemm:
            tbe, optim, sparse, compute_device, location = fbgemm
            op = tbe([(t["rows"], d, location.DEVICE, compute_device.CUDA) for t, d in tables],
                     optimizer=optim.EXACT_SGD, learning_rate=args.learning_rate,
                     weights_precision=sparse.FP32)  # on the current device
            indices = torch.cat([ix for ix, _ in lookups])
            lengths = torch.cat([ln for _, ln in lookups])  # table-major, as TBE expects
            offsets = torch.cat([torch.zeros(1, dtype=torch.long, device=device),
                                 torch.cumsum(lengths, 0)])

            def step():
                op(indices, offsets).backward(grads)
        else:
            bags = [torch.nn.EmbeddingBag(t["rows"], d, mode="sum", sparse=True, device=device)
                    for t, d in tables]
            optimizer = torch.optim.SGD([p for b in bags for p in b.parameters()],
                                        lr=args.learning_rate)
            inputs = [(ix, torch.cat([torch.zeros(1, dtype=torch.long, device=device),
                                      torch.cumsum(ln, 0)[:-1]])) for ix, ln in lookups]

            def step():
                out = torch.cat([b(ix, off) for b, (ix, off) in zip(bags, inputs)], dim=1)
                out.backward(grads)
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
        return {"ms": median_ms(torch, step, flush, args.warmup, args.iters)}
    return measure


def comm_measurer(torch, dist, args, rank, world, device):
    batch = args.batch_size - args.batch_size % world  # all_to_all needs equal batch shards
    local = batch // world

    def measure(record):
        if record["num_devices"] != world:
            raise SystemExit(f"record {record['id']} has num_devices {record['num_devices']}, "
                             f"this run has {world} processes")
        dims = [int(x) for x in record["dim_sums"]]
        offset_s = float(record["start_offsets_ms"][rank]) / 1000.0
        x = torch.rand(batch * dims[rank], device=device)
        y = torch.empty(local * sum(dims), device=device)
        grad_in = torch.rand(local * sum(dims), device=device)
        grad_out = torch.empty(batch * dims[rank], device=device)
        send = [local * dims[rank]] * world
        recv = [local * d for d in dims]
        fw, bw = [], []
        for i in range(args.warmup + args.iters):
            torch.cuda.synchronize()
            dist.barrier()
            time.sleep(offset_s)  # this rank reaches the all-to-all offset_s late
            t0 = time.perf_counter()
            dist.all_to_all_single(y, x, recv, send)
            torch.cuda.synchronize()
            t1 = time.perf_counter()
            dist.barrier()
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            dist.all_to_all_single(grad_out, grad_in, send, recv)
            torch.cuda.synchronize()
            t3 = time.perf_counter()
            if i >= args.warmup:
                fw.append((t1 - t0) * 1000.0)
                bw.append((t3 - t2) * 1000.0)
        mine = [statistics.median(fw), statistics.median(bw)]
        everyone = [None] * world
        dist.all_gather_object(everyone, mine)
        return {"forward_ms": [m[0] for m in everyone], "backward_ms": [m[1] for m in everyone]}
    return measure, batch


def load_pool(args, first_input):
    path = args.pool or os.path.join(REPO_ROOT, first_input.get("pool", ""))
    with open(path, "rb") as f:
        data = f.read()
    want = first_input.get("pool_sha256", "")
    got = hashlib.sha256(data).hexdigest()
    if want and got != want:
        raise SystemExit(f"{path}: SHA-256 {got} is not the inputs' pool_sha256 {want}")
    return json.loads(data)["tables"]


def main_compute(args):
    inputs = read_inputs(args.inputs, "compute")
    if not inputs:
        raise SystemExit(f"{args.inputs}: no compute records")
    first = next(iter(inputs.values()))
    pool_tables = load_pool(args, first)
    torch = require_torch()
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    profile = "gpu-" + device_slug(torch.cuda.get_device_name(device))
    run = run_fields(first, "compute", profile, args.batch_size)
    measure = compute_measurer(torch, args, pool_tables, device)
    collect(inputs, args.out, run, measure, args.limit, args.fsync_every)


def main_comm(args):
    inputs = read_inputs(args.inputs, "comm")
    if not inputs:
        raise SystemExit(f"{args.inputs}: no comm records")
    torch = require_torch()
    import torch.distributed as dist
    if "RANK" not in os.environ:
        raise SystemExit("comm runs one process per GPU: torchrun --nproc_per_node N ...")
    # The device first: NCCL collectives (barrier, object gathers) use the current device.
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", os.environ["RANK"])))
    torch.cuda.set_device(device)
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    measure, batch = comm_measurer(torch, dist, args, rank, world, device)
    profile = "gpu-" + device_slug(torch.cuda.get_device_name(device))
    run = run_fields(next(iter(inputs.values())), "comm", profile, batch)
    # Rank 0 alone reads and writes --out; it tells the others which ids to measure, and every
    # rank measures them in the same order (each measurement is a collective).
    if rank == 0:
        collect(inputs, args.out, run, measure, args.limit, args.fsync_every,
                on_plan=lambda ids: dist.broadcast_object_list([ids], src=0))
    else:
        plan = [None]
        dist.broadcast_object_list(plan, src=0)
        for record_id in plan[0]:
            measure(inputs[record_id])
    dist.destroy_process_group()


# --- Self-check (no torch, no GPU) -----------------------------------------------------------

def self_check():
    failures = []

    def check(condition, what):
        if not condition:
            failures.append(what)

    args = parse_args(["compute", "--inputs", "a.jsonl", "--out", "b.jsonl", "--iters", "3"])
    check(args.kind == "compute" and args.iters == 3 and args.warmup == 5 and
          args.batch_size == 65536 and args.op == "auto", "compute arguments")
    args = parse_args(["comm", "--inputs", "a.jsonl", "--out", "b.jsonl"])
    check(args.kind == "comm" and not hasattr(args, "pool"), "comm arguments")
    check(device_slug("NVIDIA A100-SXM4-80GB") == "nvidia-a100-sxm4-80gb", "device slug")
    check([bin_range(j) for j in (0, 1, 2, 15, 16)] ==
          [(0, 1), (1, 2), (2, 4), (16384, 32768), (32768, 65536)], "bin ranges")
    p = [0.5, 0.5] + [0.0] * (NUM_BINS - 2)  # counts 1 or 2: mean 1.5 lookups per row
    u = distinct_rows_for(p, 10 ** 6, 3000)
    check(expected_lookups(p, u) >= 3000 > expected_lookups(p, u - 1) and 1990 < u <= 2000,
          f"distinct rows for the target: {u}")
    check(distinct_rows_for(p, 100, 3000) == 100, "distinct rows capped at the table's rows")

    with tempfile.TemporaryDirectory() as tmp:
        inputs_path = os.path.join(tmp, "inputs.jsonl")
        out_path = os.path.join(tmp, "out.jsonl")
        with open(inputs_path, "w") as f:
            for i in range(5):
                f.write(json.dumps({"id": i, "kind": "compute", "backend": "sim",
                                    "hardware_profile": "sim-x", "seed": 7, "batch_size": 65536,
                                    "pool": "data/table_pool/dlrm_856.json", "pool_sha256": "ab",
                                    "tables": [[i, 16], [3, 4]], "ms": 9.0, "time": "t"}) + "\n")
            f.write(json.dumps({"id": 0, "kind": "comm", "num_devices": 2, "dim_sums": [1, 2],
                                "start_offsets_ms": [0, 1]}) + "\n")
        inputs = read_inputs(inputs_path, "compute")
        check(sorted(inputs) == [0, 1, 2, 3, 4], "compute inputs read, comm skipped")
        check(len(read_inputs(inputs_path, "comm")) == 1, "comm inputs read")
        run = run_fields(inputs[0], "compute", "gpu-test", 4096)
        run["time"] = "2026-11-21T09:00:00Z"
        measured = []

        def fake(record):
            measured.append(record["id"])
            return {"ms": 1.5 + record["id"]}

        log = open(os.devnull, "w")
        check(collect(inputs, out_path, run, fake, limit=2, log=log) == 2, "limit respected")
        with open(out_path, "a") as f:
            f.write('{"id": 2, "kind": "comp')  # a writer killed mid-line
        check(collect(inputs, out_path, run, fake, log=log) == 3, "resume measures the rest")
        check(measured == [0, 1, 2, 3, 4], f"each id measured once, in order: {measured}")
        with open(out_path) as f:
            lines = f.read().splitlines()
        records = [json.loads(line) for line in lines]
        check([r["id"] for r in records] == [0, 1, 2, 3, 4], "torn line dropped, ids in order")
        check(list(records[0]) == ["id", "kind", "backend", "hardware_profile", "seed",
                                   "batch_size", "pool", "pool_sha256", "tables", "ms", "time"],
              f"field order of cost_record.h: {list(records[0])}")
        check(records[3]["backend"] == "gpu" and records[3]["ms"] == 4.5 and
              records[3]["tables"] == [[3, 16], [3, 4]] and records[3]["batch_size"] == 4096 and
              records[3]["seed"] == 7, "record contents")
        check(collect(inputs, out_path, run, fake, log=log) == 0, "complete file: nothing to do")
        other = dict(run, hardware_profile="gpu-other")
        try:
            collect(inputs, out_path, other, fake, log=log)
            failures.append("a file from another run is refused")
        except SystemExit as e:
            check("hardware_profile" in str(e), "refusal names the field")
        comm_run = dict(run, kind="comm")
        comm_record = make_record({"id": 0, "num_devices": 2, "dim_sums": [1, 2],
                                   "start_offsets_ms": [0, 1.5]}, comm_run,
                                  {"forward_ms": [1, 2], "backward_ms": [3, 4]})
        check(list(comm_record)[8:] == ["num_devices", "dim_sums", "start_offsets_ms",
                                        "forward_ms", "backward_ms", "time"], "comm field order")
        log.close()

    for failure in failures:
        print(f"self-check FAILED: {failure}", file=sys.stderr)
    if not failures:
        print("self-check passed")
    return 1 if failures else 0


def main(argv):
    args = parse_args(argv)
    if args.self_check:
        return self_check()
    if args.kind == "compute":
        main_compute(args)
    else:
        main_comm(args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
