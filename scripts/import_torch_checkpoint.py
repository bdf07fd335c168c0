#!/usr/bin/env python3
"""Converts NeuroShard reference PyTorch checkpoints into a shardplan model bundle.

    import_torch_checkpoint.py --compute compute.pt --comm 4 fw4.pt bw4.pt \
        --name neuroshard --version 1 --models-root models --hardware-profile rtx2080ti

writes models/neuroshard/1/ exactly as the C++ writer (costmodels/artifacts/bundle_writer.cc)
does: manifest.json plus one SPWT weights file per sub-model, built in a hidden temporary
directory and renamed into place (docs/model-bundles.md). Without --comm the bundle has zero
comm costs. torch is needed only to load the .pt files: the conversion itself
(write_bundle) takes plain dicts of nested lists or anything with .tolist() (numpy arrays,
tensors), so it runs and is tested without torch.

Reference checkpoints (docs/design.md section 7.3):
    compute: {state_dict, feature_means, feature_stds, num_table_features, table_mlp_sizes,
              pred_mlp_sizes}
    comm:    {state_dict, feature_means, feature_stds, num_features, mlp_sizes, ndevices}
The state_dict holds nn.Sequential Linear layers ("table_mlp.0.weight", "table_mlp.2.weight",
...): layers are taken in index order per prefix, whatever the indices and prefixes are.
"""

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import struct
import sys

FORMAT_VERSION = 1  # manifest.json: format 1, the reference's architecture (model_bundle.h)
WEIGHTS_MAGIC = b"SPWT"
WEIGHTS_FORMAT_VERSION = 1
NUM_TABLE_FEATURES = 20
# The reference's feature keys sorted lexicographically (costmodels/neural/table_features.h).
FEATURE_NAMES = sorted(["bin_%d" % i for i in range(17)] + ["dim", "pooling_factor", "row"])
_NAME_RE = re.compile(r"^[A-Za-z0-9._-]+$")
_LINEAR_KEY_RE = re.compile(r"^(.*)\.(\d+)\.weight$")


class CheckpointError(Exception):
    """A checkpoint that cannot become a bundle; the message says which and why."""


# ---- Values -------------------------------------------------------------------------------


def to_nested(value):
    """Tensors, numpy arrays and lists as nested Python lists of floats."""
    if hasattr(value, "detach"):  # torch.Tensor
        value = value.detach().cpu().numpy()
    if hasattr(value, "tolist"):
        value = value.tolist()
    return value


def shape_and_values(value):
    """(shape, flat row-major floats) of a nested list; refuses ragged nesting."""
    value = to_nested(value)
    if not isinstance(value, (list, tuple)):
        return [], [float(value)]
    if not value:
        return [0], []
    parts = [shape_and_values(v) for v in value]
    shape = parts[0][0]
    if any(p[0] != shape for p in parts):
        raise CheckpointError("ragged tensor")
    return [len(value)] + shape, [x for p in parts for x in p[1]]


def floats(value, what, size):
    shape, values = shape_and_values(value)
    if len(shape) != 1 or shape[0] != size:
        raise CheckpointError("%s has shape %s, expected [%d]" % (what, shape, size))
    return values


# ---- Weights files ------------------------------------------------------------------------


def serialize_weights(tensors):
    """SPWT bytes of [(name, shape, flat values)] (costmodels/artifacts/weights_file.h)."""
    out = [WEIGHTS_MAGIC, struct.pack("<II", WEIGHTS_FORMAT_VERSION, len(tensors))]
    names = set()
    for name, shape, values in tensors:
        if name in names:
            raise CheckpointError("tensor %r repeated" % name)
        names.add(name)
        count = 1
        for d in shape:
            count *= d
        if count != len(values):
            raise CheckpointError("tensor %r: shape %s but %d values" % (name, shape, len(values)))
        encoded = name.encode("utf-8")
        out.append(struct.pack("<I", len(encoded)) + encoded)
        out.append(struct.pack("<I%dI" % len(shape), len(shape), *shape))
        out.append(struct.pack("<%df" % len(values), *values))
    return b"".join(out)


def linear_layers(state_dict, what):
    """{prefix: [(weight, bias)]} of the Linear layers in `state_dict`, by index per prefix."""
    found = {}
    for key, value in state_dict.items():
        match = _LINEAR_KEY_RE.match(key)
        if not match:
            continue
        shape, _ = shape_and_values(value)
        if len(shape) != 2:
            continue  # not a Linear weight (e.g. a norm layer)
        prefix, index = match.group(1), int(match.group(2))
        bias_key = "%s.%d.bias" % (prefix, index)
        if bias_key not in state_dict:
            raise CheckpointError("%s: %s has no %s" % (what, key, bias_key))
        found.setdefault(prefix, []).append((index, key, value, state_dict[bias_key]))
    layers = {}
    for prefix, entries in found.items():
        entries.sort(key=lambda e: e[0])
        layers[prefix] = [(key, weight, bias) for _, key, weight, bias in entries]
    return layers


def mlp_tensors(layers, tensor_prefix, expected_input, what):
    """Weights tensors "<prefix>.<i>.weight|bias" and the MLP's sizes [in, out_0, out_1, ...]."""
    tensors, sizes = [], [expected_input]
    for i, (key, weight, bias) in enumerate(layers):
        w_shape, w_values = shape_and_values(weight)
        out_size, in_size = w_shape
        if in_size != sizes[-1]:
            raise CheckpointError("%s: %s takes %d inputs, the previous layer gives %d"
                               % (what, key, in_size, sizes[-1]))
        b_values = floats(bias, "%s: bias of %s" % (what, key), out_size)
        tensors.append(("%s.%d.weight" % (tensor_prefix, i), [out_size, in_size], w_values))
        tensors.append(("%s.%d.bias" % (tensor_prefix, i), [out_size], b_values))
        sizes.append(out_size)
    return tensors, sizes


def check_declared_sizes(declared, sizes, what):
    """The checkpoint's own size list. The reference spells it per model: the outputs (table
    MLP [128, 32]), input and hidden (pred MLP [32, 64]) or hidden only (comm [128, 64, 32, 16])."""
    if declared is None:
        return
    declared = [int(x) for x in to_nested(declared)]
    if declared not in (sizes[1:], sizes[:-1], sizes[1:-1], sizes):
        raise CheckpointError("%s: the checkpoint declares sizes %s but its layers are %s"
                           % (what, declared, sizes))


def normalization(checkpoint, size, what):
    return {"mean": floats(checkpoint["feature_means"], what + ": feature_means", size),
            "std": floats(checkpoint["feature_stds"], what + ": feature_stds", size)}


def require(checkpoint, keys, what):
    missing = [k for k in keys if k not in checkpoint]
    if missing:
        raise CheckpointError("%s: checkpoint lacks %s" % (what, ", ".join(missing)))


# ---- Sub-models ---------------------------------------------------------------------------


def convert_compute(checkpoint, what="compute checkpoint"):
    """(weights bytes, manifest entry without weights/sha256) of a ComputeCostNet checkpoint."""
    require(checkpoint, ["state_dict", "feature_means", "feature_stds"], what)
    n = int(checkpoint.get("num_table_features", NUM_TABLE_FEATURES))
    if n != NUM_TABLE_FEATURES:
        raise CheckpointError("%s: num_table_features is %d, this format has %d"
                           % (what, n, NUM_TABLE_FEATURES))
    groups = linear_layers(checkpoint["state_dict"], what)
    if len(groups) != 2:
        raise CheckpointError("%s: expected two MLPs (table and pred), found prefixes %s"
                           % (what, sorted(groups)))
    table_prefix = [p for p in groups if "table" in p]
    pred_prefix = [p for p in groups if "pred" in p]
    if len(table_prefix) != 1 or len(pred_prefix) != 1 or table_prefix == pred_prefix:
        # Unusual names: the table MLP is the one that takes the table features.
        table_prefix = [p for p in groups if shape_and_values(groups[p][0][1])[0][1] == n]
        pred_prefix = [p for p in groups if p not in table_prefix]
        if len(table_prefix) != 1:
            raise CheckpointError("%s: cannot tell the table MLP from the pred MLP in %s"
                               % (what, sorted(groups)))
    table, table_sizes = mlp_tensors(groups[table_prefix[0]], "table_mlp", n, what)
    pred, pred_sizes = mlp_tensors(groups[pred_prefix[0]], "pred_mlp", table_sizes[-1], what)
    if pred_sizes[-1] != 1:
        raise CheckpointError("%s: the pred MLP gives %d values, expected 1" % (what, pred_sizes[-1]))
    check_declared_sizes(checkpoint.get("table_mlp_sizes"), table_sizes, what + " table_mlp")
    check_declared_sizes(checkpoint.get("pred_mlp_sizes"), pred_sizes, what + " pred_mlp")
    entry = {"table_mlp_sizes": table_sizes, "pred_mlp_sizes": pred_sizes,
             "features": FEATURE_NAMES, "normalization": normalization(checkpoint, n, what)}
    return serialize_weights(table + pred), entry


def comm_input_names(n, direction):
    names = ["dim_sum_%d" % i for i in range(n)]
    if direction == "forward":
        names += ["wait_%d" % i for i in range(n)]
    return names


def convert_comm(checkpoint, n, direction, what):
    """(weights bytes, manifest entry) of a CommCostNet checkpoint for `n` devices."""
    require(checkpoint, ["state_dict", "feature_means", "feature_stds"], what)
    inputs = 2 * n if direction == "forward" else n
    if "ndevices" in checkpoint and int(checkpoint["ndevices"]) != n:
        raise CheckpointError("%s: ndevices is %s, given as %d" % (what, checkpoint["ndevices"], n))
    if "num_features" in checkpoint and int(checkpoint["num_features"]) != inputs:
        raise CheckpointError("%s: num_features is %s; a %s model for %d devices takes %d (is it "
                           "the other direction?)" % (what, checkpoint["num_features"], direction,
                                                       n, inputs))
    groups = linear_layers(checkpoint["state_dict"], what)
    if len(groups) != 1:
        raise CheckpointError("%s: expected one MLP, found prefixes %s" % (what, sorted(groups)))
    tensors, sizes = mlp_tensors(next(iter(groups.values())), "mlp", inputs, what)
    if sizes[-1] != n:
        raise CheckpointError("%s: the MLP gives %d values, expected %d" % (what, sizes[-1], n))
    check_declared_sizes(checkpoint.get("mlp_sizes"), sizes, what + " mlp")
    entry = {"num_devices": n, "direction": direction, "mlp_sizes": sizes,
             "inputs": comm_input_names(n, direction),
             "normalization": normalization(checkpoint, inputs, what)}
    return serialize_weights(tensors), entry


# ---- The bundle ---------------------------------------------------------------------------


def _check_name(value, what):
    if not _NAME_RE.match(value) or value.startswith(".") or len(value) > 128:
        raise CheckpointError("bundle %s %r is invalid: use [A-Za-z0-9._-], not starting with '.'"
                           % (what, value))


def _write_new_file(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bundle(models_root, name, version, compute, comm=None, hardware_profile="",
                 description="", backend="torch-import", created=None, seed=0):
    """Writes <models_root>/<name>/<version>/ and returns that directory.

    compute: a compute checkpoint dict; comm: {num_devices: (forward dict, backward dict)}, or
    empty for zero comm costs. Raises CheckpointError for a bad checkpoint or name, FileExistsError
    when the version exists (versions are immutable).
    """
    _check_name(name, "name")
    _check_name(version, "version")
    comm = comm or {}
    files = []  # (file name, bytes)
    compute_bytes, compute_entry = convert_compute(compute)
    compute_entry.update(weights="compute.weights",
                         sha256=hashlib.sha256(compute_bytes).hexdigest())
    files.append(("compute.weights", compute_bytes))
    comm_entries = []
    for n in sorted(comm):
        for direction, checkpoint in zip(("forward", "backward"), comm[n]):
            file = "comm_%d_%s.weights" % (n, direction)
            data, entry = convert_comm(checkpoint, int(n), direction, "comm %d %s checkpoint"
                                       % (n, direction))
            entry.update(weights=file, sha256=hashlib.sha256(data).hexdigest())
            comm_entries.append(entry)
            files.append((file, data))
    if created is None:
        created = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    manifest = {"format_version": FORMAT_VERSION, "name": name, "version": version,
                "kind": "neural", "description": description,
                "hardware_profile": hardware_profile, "backend": backend, "created": created,
                "seed": int(seed), "comm_costs": "neural" if comm_entries else "zero",
                "compute": compute_entry, "comm": comm_entries}
    # allow_nan=False: NaN is not JSON; a checkpoint with NaN statistics is refused here.
    try:
        manifest_bytes = (json.dumps(manifest, indent=2, sort_keys=True, allow_nan=False)
                          + "\n").encode("utf-8")
    except ValueError as e:
        raise CheckpointError("checkpoint statistics are not finite: %s" % e)

    name_dir = os.path.join(models_root, name)
    final_dir = os.path.join(name_dir, version)
    if os.path.exists(final_dir):
        raise FileExistsError("%s: the version exists (versions are immutable)" % final_dir)
    os.makedirs(name_dir, exist_ok=True)
    tmp_dir = os.path.join(name_dir, ".%s.tmp-%d" % (version, os.getpid()))
    shutil.rmtree(tmp_dir, ignore_errors=True)  # a crashed run's leftover with our pid
    os.mkdir(tmp_dir)
    try:
        for file, data in files:
            _write_new_file(os.path.join(tmp_dir, file), data)
        _write_new_file(os.path.join(tmp_dir, "manifest.json"), manifest_bytes)  # last
        _fsync_dir(tmp_dir)
        if os.path.exists(final_dir):  # Python has no RENAME_NOREPLACE
            raise FileExistsError("%s: the version exists (versions are immutable)" % final_dir)
        os.rename(tmp_dir, final_dir)
        _fsync_dir(name_dir)
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise
    return final_dir


# ---- Command line -------------------------------------------------------------------------


def load_torch_checkpoint(path):
    try:
        import torch  # only here: the conversion itself needs no torch
    except ImportError:
        raise CheckpointError("loading %s needs PyTorch (pip install torch)" % path)
    checkpoint = torch.load(path, map_location="cpu")
    if not isinstance(checkpoint, dict):
        raise CheckpointError("%s: not a checkpoint dict" % path)
    return checkpoint


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compute", required=True, help="compute model checkpoint (.pt)")
    parser.add_argument("--comm", nargs=3, action="append", default=[],
                        metavar=("N", "FORWARD_PT", "BACKWARD_PT"),
                        help="comm checkpoints of N devices (repeat per N); none: zero comm costs")
    parser.add_argument("--name", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--models-root", default="models")
    parser.add_argument("--hardware-profile", required=True)
    parser.add_argument("--description", default="imported from a NeuroShard PyTorch checkpoint")
    parser.add_argument("--backend", default="torch-import")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        comm = {}
        for n, forward, backward in args.comm:
            if not n.isdigit() or int(n) <= 0 or int(n) in comm:
                raise CheckpointError("--comm N must be a positive device count, once each: %r" % n)
            comm[int(n)] = (load_torch_checkpoint(forward), load_torch_checkpoint(backward))
        directory = write_bundle(args.models_root, args.name, args.version,
                                 load_torch_checkpoint(args.compute), comm,
                                 hardware_profile=args.hardware_profile,
                                 description=args.description, backend=args.backend,
                                 seed=args.seed)
    except (CheckpointError, OSError) as e:
        print("import_torch_checkpoint: %s" % e, file=sys.stderr)
        return 1
    print(directory)
    return 0


if __name__ == "__main__":
    sys.exit(main())
