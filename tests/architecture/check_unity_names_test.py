"""Self-test of check_unity_names.py on small made-up build trees."""
import os
import tempfile
import unittest

import check_unity_names


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class CheckUnityNamesTest(unittest.TestCase):
    def tree(self, first, second):
        root = tempfile.mkdtemp()
        a, b = os.path.join(root, "a_test.cc"), os.path.join(root, "b_test.cc")
        write(a, first)
        write(b, second)
        write(os.path.join(root, "build", "t.dir", "Unity", "unity_0_cxx.cxx"),
              f'#include "{a}"\n')
        write(os.path.join(root, "build", "t.dir", "Unity", "unity_1_cxx.cxx"),
              f'#include "{b}"\n')
        return os.path.join(root, "build")

    def test_an_overload_in_another_batch_is_a_clash(self):
        build = self.tree("namespace {\nTable MakeTable(int rows, int dim) {\n}\n}\n",
                          "namespace {\nTable MakeTable(int rows,\n                double pooling) {\n}\n}\n")
        self.assertEqual(check_unity_names.main(["x", build]), 1)

    def test_types_and_constants_clash_too(self):
        build = self.tree("struct BadCase {\n};\nconstexpr int kRows = 3;\n",
                          "struct BadCase {\n};\nconstexpr int kRows = 4;\n")
        sources = [s for v in check_unity_names.unity_targets(build).values() for s in v]
        self.assertEqual([n for n, _ in check_unity_names.clashes(sources)], ["BadCase", "kRows"])

    def test_raw_string_lines_are_not_definitions(self):
        build = self.tree('constexpr char kA[] = R"(\nplans (\n)";\n',
                          'constexpr char kB[] = R"sql(\nplans (\n)sql";\n')
        self.assertEqual(check_unity_names.main(["x", build]), 0)

    def test_tests_calls_and_declarations_are_not_definitions(self):
        build = self.tree("TEST(A, B) {\n  MakeTable(1, 2);\n}\nint Count(int x);\n",
                          "TEST(A, C) {\n  MakeTable(1, 2);\n}\nint Count(int x);\n")
        self.assertEqual(check_unity_names.main(["x", build]), 0)

    def test_a_one_line_body_is_a_definition(self):
        build = self.tree('std::string Ms(double ms) { return Format("%.3f", ms); }\n',
                          'std::string Ms(double ms) { return Format("%.3f", ms); }\n')
        self.assertEqual(check_unity_names.main(["x", build]), 1)

    def test_a_source_in_a_stale_batch_counts_once(self):
        build = self.tree("namespace {\nint Rows() {\n}\n}\n", "int Other();\n")
        stale = os.path.join(build, "t.dir", "Unity", "unity_2_cxx.cxx")
        with open(os.path.join(build, "t.dir", "Unity", "unity_0_cxx.cxx")) as f:
            write(stale, f.read())
        self.assertEqual(check_unity_names.main(["x", build]), 0)


if __name__ == "__main__":
    unittest.main()
