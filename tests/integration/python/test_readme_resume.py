"""The README's job-key resume steps ("A training job that will resume from checkpoints names
its plan with a job key"), run as written, in order, against a real shardplan-server with the
shipped models, restarted on the same store and address where the README's comment says.

Run by ctest like test_client.py:
    /usr/bin/python3 -m unittest -v test_readme_resume
"""

import os
import re
import tempfile
import unittest

import shardplan
from server_fixture import ServerProcess
from tasks import example_task

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                      os.pardir, "README.md")
RESTART = "# ... the job crashes and resumes from a checkpoint, the server restarted meanwhile ..."


def readme_resume_steps():
    """The README's Python block that names its plan with a job key, split where the server
    restarts: (lines before, lines after)."""
    with open(README) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    block = next(b for b in blocks if "job_key=" in b and RESTART in b)
    before, after = block.split(RESTART)
    return before, after


class ReadmeResumeTest(unittest.TestCase):
    def test_the_readmes_resume_steps_run_in_order(self):
        before, after = readme_resume_steps()
        self.assertIn("client.replan(", after)
        models = os.environ.get("SHARDPLAN_MODELS_DIR")
        if not models:
            self.skipTest("SHARDPLAN_MODELS_DIR is not set (ctest sets it)")
        with tempfile.TemporaryDirectory() as tmp:
            args = ["--store", "sqlite:" + os.path.join(tmp, "plans.db"),
                    "--models_dir", models, "--model_reload_interval_s", "0"]
            # The README's `task`: a task of a device count sim-rtx2080ti covers.
            scope = {"task": example_task("task_4dev.json")}
            with ServerProcess(args) as server:
                address = f"127.0.0.1:{server.grpc_port}"
                with shardplan.PlannerClient(address, timeout=60) as client:
                    scope["client"] = client
                    exec(compile(before, "README.md (before the restart)", "exec"), scope)
            with ServerProcess(args + ["--address", address]):
                with shardplan.PlannerClient(address, timeout=60) as client:
                    scope["client"] = client
                    exec(compile(after, "README.md (after the restart)", "exec"), scope)
        self.assertEqual(scope["plan"].cost_model.split("@")[0], "sim-rtx2080ti")


if __name__ == "__main__":
    unittest.main()
