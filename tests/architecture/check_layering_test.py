"""The layering check fails on includes that point up or across algorithms, and on nothing else."""

import pathlib
import subprocess
import sys
import tempfile
import unittest

CHECK = pathlib.Path(__file__).with_name("check_layering.py")


def run(files):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            file = pathlib.Path(root, path)
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text)
        return subprocess.run([sys.executable, str(CHECK), root], capture_output=True, text=True)


class CheckLayeringTest(unittest.TestCase):
    def test_includes_that_point_down_pass(self):
        result = run({
            "planner/domain/task.h": '#include "base/status_macros.h"\n#include <vector>\n',
            "planner/algorithms/greedy/greedy.cc": '#include "planner/search/units.h"\n',
            "server/engine.cc": '#include "planner/domain/task.h"\n#include "shardplan/v1/planner.pb.h"\n',
        })
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_an_include_that_points_up_fails_naming_it(self):
        result = run({"planner/domain/task.h": '#include "server/engine.h"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("planner/domain/task.h:1: planner/domain -> server (server/engine.h)",
                      result.stdout)

    def test_the_server_may_not_include_the_lab_nor_the_client_grpc(self):
        result = run({"server/a.cc": '#include "lab/data/generators.h"\n',
                      "client/b.cc": '#include "planner/domain/plan.h"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("server -> lab", result.stdout)
        self.assertIn("client -> planner/domain", result.stdout)

    def test_only_the_transports_include_grpc(self):
        result = run({"server/service.cc": '#include "grpcpp/grpcpp.h"\n',
                      "server/grpc/service.cc": '#include "grpcpp/grpcpp.h"\n'
                                                '#include "server/service.h"\n',
                      "server/core.cc": '#include "server/grpc/service.h"\n',
                      "wire/x.cc": '#include "shardplan/v1/planner.grpc.pb.h"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("server/service.cc:1: server -> gRPC (grpcpp/grpcpp.h)", result.stdout)
        self.assertIn("server/core.cc:1: server -> server/grpc", result.stdout)
        self.assertIn("wire/x.cc:1: wire -> gRPC", result.stdout)
        self.assertNotIn("server/grpc/service.cc", result.stdout)

    def test_one_algorithm_may_not_include_another(self):
        result = run({"planner/algorithms/torchrec/t.cc":
                      '#include "planner/algorithms/neuroshard/grid.h"\n',
                      "planner/algorithms/builtin.cc":
                      '#include "planner/algorithms/neuroshard/grid.h"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("algorithm torchrec -> algorithm neuroshard", result.stdout)
        self.assertNotIn("builtin.cc", result.stdout)


if __name__ == "__main__":
    unittest.main()
