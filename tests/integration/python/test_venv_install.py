"""The Python client as a user installs it: pip install of client/python into a fresh venv
(Debian's python3 -m venv --system-site-packages --without-pip, so that Debian's grpcio,
protobuf, setuptools and pip serve it offline), then, from a directory outside the repository
with no PYTHONPATH, venv_check.py (the installed copy, its metadata, sync and async plans) and
examples/torchrec_job.py against a real server.

Run by ctest like test_client.py:
    /usr/bin/python3 -m unittest -v test_venv_install
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from server_fixture import SharedServer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.realpath(os.path.join(HERE, os.pardir, os.pardir, os.pardir))


class VenvInstallTest(SharedServer, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.TemporaryDirectory(prefix="shardplan-venv-")
        cls.work = os.path.join(cls.tmp.name, "work")  # outside the repository
        os.mkdir(cls.work)
        cls.env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        cls.env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1",
                       SHARDPLAN_SERVER=cls.server.target, SHARDPLAN_SOURCE_TREE=ROOT)
        venv = os.path.join(cls.tmp.name, "venv")
        cls.python = os.path.join(venv, "bin", "python")
        # A copy, so that pip's in-tree build writes nothing into the repository.
        source = shutil.copytree(os.path.join(ROOT, "client", "python"),
                                 os.path.join(cls.tmp.name, "client-python"),
                                 ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                               "__pycache__"))
        cls.run_checked([sys.executable, "-m", "venv", "--system-site-packages",
                         "--without-pip", venv])
        cls.install = cls.run_checked([cls.python, "-m", "pip", "install", "--no-build-isolation",
                                       "--no-index", "--no-deps", source])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()
        super().tearDownClass()

    @classmethod
    def run_checked(cls, command):
        result = subprocess.run(command, cwd=cls.work, env=cls.env, capture_output=True,
                                text=True, timeout=120)
        if result.returncode != 0:
            raise AssertionError(f"{' '.join(command)} exited {result.returncode}:\n"
                                 f"{result.stdout}\n{result.stderr}")
        return result

    def run_in_venv(self, script):
        copy = shutil.copy(script, self.work)
        return self.run_checked([self.python, copy]).stdout

    def test_pip_installed_it(self):
        self.assertIn("Successfully installed shardplan-", self.install.stdout)

    def test_the_installed_copy_plans_sync_and_async(self):
        out = self.run_in_venv(os.path.join(HERE, "venv_check.py"))
        self.assertIn("venv_check: ok", out)
        self.assertIn(os.path.join(self.tmp.name, "venv"), out)

    def test_the_torchrec_example_gets_a_plan_for_every_rank(self):
        out = self.run_in_venv(os.path.join(ROOT, "examples", "torchrec_job.py"))
        lines = out.splitlines()
        self.assertRegex(lines[0], r"^plan: \w+ under \S+, [0-9.]+ ms per iteration$")
        self.assertEqual([line.split(":")[0] for line in lines[1:]],
                         [f"rank {r}" for r in range(8)])
        for table in ("user_id", "item_id", "category"):
            self.assertIn(f"sparse_arch.embedding_bag_collection.{table}", out)


if __name__ == "__main__":
    unittest.main()
