"""scripts/import_torch_checkpoint.py: its bundles must pass the C++ reader.

Run by ctest with SHARDPLAN_BUNDLE_CHECK (the shardplan-bundle-check binary) and
SHARDPLAN_SCRIPTS_DIR set. The conversion is tested without torch on plain lists shaped like
the reference's state dicts; the end-to-end case with real .pt files needs torch.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

SCRIPTS_DIR = os.environ.get(
    "SHARDPLAN_SCRIPTS_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "scripts"))
sys.path.insert(0, SCRIPTS_DIR)
import import_torch_checkpoint as itc  # noqa: E402

BUNDLE_CHECK = os.environ.get("SHARDPLAN_BUNDLE_CHECK", "")


def matrix(rows, cols, rng):
    return [[rng.uniform(-0.5, 0.5) for _ in range(cols)] for _ in range(rows)]


def vector(n, rng, low=-0.5, high=0.5):
    return [rng.uniform(low, high) for _ in range(n)]


def sequential(prefix, sizes, rng):
    """An nn.Sequential state dict: Linear at even indices, ReLU between."""
    state = {}
    for i in range(len(sizes) - 1):
        state["%s.%d.weight" % (prefix, 2 * i)] = matrix(sizes[i + 1], sizes[i], rng)
        state["%s.%d.bias" % (prefix, 2 * i)] = vector(sizes[i + 1], rng)
    return state


def compute_checkpoint(rng, prefix=""):
    state = sequential(prefix + "table_mlp", [20, 128, 32], rng)
    state.update(sequential(prefix + "pred_mlp", [32, 64, 1], rng))
    return {"state_dict": state, "feature_means": vector(20, rng, 0, 1000),
            "feature_stds": vector(20, rng, 0.1, 50), "num_table_features": 20,
            "table_mlp_sizes": [128, 32], "pred_mlp_sizes": [32, 64]}


def comm_checkpoint(n, inputs, rng):
    return {"state_dict": sequential("mlp", [inputs, 128, 64, 32, 16, n], rng),
            "feature_means": vector(inputs, rng, 0, 100), "feature_stds": vector(inputs, rng, 1, 9),
            "num_features": inputs, "mlp_sizes": [128, 64, 32, 16], "ndevices": n}


def check(directory):
    """(exit code, output) of shardplan-bundle-check on `directory`."""
    result = subprocess.run([BUNDLE_CHECK, directory], capture_output=True, text=True, timeout=30)
    return result.returncode, result.stdout + result.stderr


@unittest.skipUnless(BUNDLE_CHECK, "SHARDPLAN_BUNDLE_CHECK is not set (run through ctest)")
class ConversionTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="import_torch_checkpoint_test_")
        self.rng = random.Random(5)

    def tearDown(self):
        import shutil
        shutil.rmtree(self.root, ignore_errors=True)

    def test_cpp_reader_accepts_converted_bundle(self):
        comm = {n: (comm_checkpoint(n, 2 * n, self.rng), comm_checkpoint(n, n, self.rng))
                for n in (2, 4)}
        directory = itc.write_bundle(self.root, "neuroshard", "1",
                                     compute_checkpoint(self.rng), comm,
                                     hardware_profile="rtx2080ti", created="2026-01-02T03:04:05Z")
        self.assertEqual(directory, os.path.join(self.root, "neuroshard", "1"))
        code, output = check(directory)
        self.assertEqual(code, 0, output)
        self.assertIn("ok neuroshard@1", output)
        self.assertIn("device_counts: 2,4", output)
        self.assertEqual(sorted(os.listdir(os.path.join(self.root, "neuroshard"))), ["1"])
        with open(os.path.join(directory, "manifest.json")) as f:
            manifest = json.load(f)
        self.assertEqual(manifest["compute"]["table_mlp_sizes"], [20, 128, 32])
        self.assertEqual(manifest["compute"]["pred_mlp_sizes"], [32, 64, 1])
        self.assertEqual(manifest["comm"][0]["mlp_sizes"], [4, 128, 64, 32, 16, 2])
        self.assertEqual(manifest["backend"], "torch-import")

    def test_zero_comm_bundle_and_other_prefixes(self):
        # DataParallel checkpoints prefix every key with "module."; indices need not be 0, 2.
        checkpoint = compute_checkpoint(self.rng, prefix="module.")
        state = checkpoint["state_dict"]
        state["module.pred_mlp.5.weight"] = state.pop("module.pred_mlp.2.weight")
        state["module.pred_mlp.5.bias"] = state.pop("module.pred_mlp.2.bias")
        directory = itc.write_bundle(self.root, "cpu-model", "2.0", checkpoint,
                                     hardware_profile="cpu")
        code, output = check(directory)
        self.assertEqual(code, 0, output)
        self.assertIn("any (zero comm costs)", output)

    def test_reader_refuses_corrupted_conversion(self):
        directory = itc.write_bundle(self.root, "m", "1", compute_checkpoint(self.rng))
        path = os.path.join(directory, "compute.weights")
        with open(path, "r+b") as f:
            f.seek(100)
            byte = f.read(1)
            f.seek(100)
            f.write(bytes([byte[0] ^ 1]))
        code, output = check(directory)
        self.assertEqual(code, 1, output)
        self.assertIn("compute.weights: SHA-256 mismatch", output)

    def test_refuses_bad_checkpoints_and_names(self):
        with self.assertRaisesRegex(itc.CheckpointError, "num_features is 4"):
            itc.write_bundle(self.root, "m", "1", compute_checkpoint(self.rng),
                             {4: (comm_checkpoint(4, 4, self.rng),
                                  comm_checkpoint(4, 4, self.rng))})
        with self.assertRaisesRegex(itc.CheckpointError, "name '../x' is invalid"):
            itc.write_bundle(self.root, "../x", "1", compute_checkpoint(self.rng))
        broken = compute_checkpoint(self.rng)
        broken["state_dict"]["table_mlp.2.weight"] = matrix(32, 64, self.rng)
        with self.assertRaisesRegex(itc.CheckpointError, "takes 64 inputs"):
            itc.write_bundle(self.root, "m", "1", broken)
        self.assertEqual(os.listdir(self.root), [])  # refused before anything was written

    def test_versions_are_immutable(self):
        itc.write_bundle(self.root, "m", "1", compute_checkpoint(self.rng))
        with self.assertRaises(FileExistsError):
            itc.write_bundle(self.root, "m", "1", compute_checkpoint(self.rng))
        self.assertEqual(sorted(os.listdir(os.path.join(self.root, "m"))), ["1"])

    def test_weights_format(self):
        data = itc.serialize_weights([("b", [1], [1.0])])
        self.assertEqual(data, b"SPWT\x01\0\0\0\x01\0\0\0\x01\0\0\0b\x01\0\0\0\x01\0\0\0"
                               b"\0\0\x80\x3f")


@unittest.skipUnless(BUNDLE_CHECK, "SHARDPLAN_BUNDLE_CHECK is not set (run through ctest)")
class TorchEndToEndTest(unittest.TestCase):
    def test_script_converts_real_checkpoints(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not installed")
        torch.manual_seed(0)
        root = tempfile.mkdtemp(prefix="import_torch_checkpoint_e2e_")

        def save(path, module_dict, extra):
            torch.save(dict(state_dict=module_dict.state_dict(), **extra), path)

        def mlp(sizes, relu_on_output):
            layers = []
            for i in range(len(sizes) - 1):
                layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
                if i + 2 < len(sizes) or relu_on_output:
                    layers.append(torch.nn.ReLU())
            return torch.nn.Sequential(*layers)

        net = torch.nn.Module()
        net.table_mlp = mlp([20, 128, 32], True)
        net.pred_mlp = mlp([32, 64, 1], False)
        compute_pt = os.path.join(root, "compute.pt")
        save(compute_pt, net, {"feature_means": torch.rand(20) * 100,
                               "feature_stds": torch.rand(20) + 0.5, "num_table_features": 20,
                               "table_mlp_sizes": [128, 32], "pred_mlp_sizes": [32, 64]})
        paths = []
        for inputs, name in ((8, "fw4.pt"), (4, "bw4.pt")):
            comm_net = torch.nn.Module()
            comm_net.mlp = mlp([inputs, 128, 64, 32, 16, 4], False)
            path = os.path.join(root, name)
            save(path, comm_net, {"feature_means": torch.rand(inputs),
                                  "feature_stds": torch.rand(inputs) + 0.5,
                                  "num_features": inputs, "mlp_sizes": [128, 64, 32, 16],
                                  "ndevices": 4})
            paths.append(path)
        models = os.path.join(root, "models")
        result = subprocess.run(
            [sys.executable, os.path.join(SCRIPTS_DIR, "import_torch_checkpoint.py"),
             "--compute", compute_pt, "--comm", "4", paths[0], paths[1], "--name", "ns",
             "--version", "1", "--models-root", models, "--hardware-profile", "p"],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        code, output = check(os.path.join(models, "ns", "1"))
        self.assertEqual(code, 0, output)
        self.assertIn("device_counts: 4", output)


if __name__ == "__main__":
    unittest.main()
