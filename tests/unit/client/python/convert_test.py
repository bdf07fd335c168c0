"""shardplan.convert without a server: task files read as the CLI and the server read them (a
field given twice, in one spelling or in two, is refused naming it).

    /usr/bin/python3 -m unittest -v convert_test
"""

import io
import os
import tempfile
import unittest

import shardplan


def table(**fields):
    return dict({"name": "t0", "rows": 1000, "dim": 16}, **fields)


def task(*tables):
    return {"tables": list(tables), "topology": {"num_devices": 2, "device_memory_gib": 1}}


class TwoSpellingsTest(unittest.TestCase):
    def test_a_field_given_in_both_spellings_is_refused_naming_it(self):
        both = task(table(), table(name="t1", pooling_factor=1, poolingFactor=50))
        with self.assertRaises(shardplan.InvalidTaskError) as caught:
            shardplan.task_from_dict(both)
        self.assertEqual(caught.exception.message,
                         'task: tables[1].pooling_factor: given twice, as "pooling_factor" and '
                         'as "poolingFactor"')

    def test_nested_messages_and_plans_are_checked_too(self):
        both = task(table())
        both["topology"]["devicesPerHost"] = 2
        both["topology"]["devices_per_host"] = 1
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    r'topology\.devices_per_host: given twice'):
            shardplan.task_from_dict(both)
        plan = {"tables": [{"table": "t0",
                            "shards": [{"device": 0, "rowCount": 5, "row_count": 9}]}]}
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    r'^INVALID_ARGUMENT: plan: tables\[0\]\.shards\[0\]\.row_count: '
                                    r'given twice, as "rowCount" and as "row_count"$'):
            shardplan.plan_from_dict(plan)

    def test_either_spelling_alone_is_read(self):
        for fields in ({"pooling_factor": 50}, {"poolingFactor": 50}):
            parsed = shardplan.task_from_dict(task(table(**fields)))
            self.assertEqual(parsed.tables[0].pooling_factor, 50)


class LoadTaskTest(unittest.TestCase):
    def test_a_task_file_is_read_from_a_path_or_a_file(self):
        text = '{"tables": [{"name": "t0", "rows": 10, "dim": 4, "poolingFactor": 3}]}'
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "task.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            self.assertEqual(shardplan.load_task(path).tables[0].pooling_factor, 3)
        self.assertEqual(shardplan.load_task(io.StringIO(text)).tables[0].rows, 10)

    def test_a_key_given_twice_in_one_spelling_is_refused(self):
        # json.load keeps the last of the two silently.
        text = ('{"tables": [{"name": "t0", "rows": 10, "dim": 4},'
                ' {"name": "t1", "rows": 10, "dim": 4, "dim": 64}]}')
        with self.assertRaises(shardplan.InvalidTaskError) as caught:
            shardplan.load_task(io.StringIO(text))
        self.assertEqual(caught.exception.message,
                         "tables[1].dim: given twice in one object; give each field once")

    def test_both_spellings_in_a_file_are_refused(self):
        text = ('{"tables": [{"name": "t0", "rows": 10, "dim": 4, "pooling_factor": 1, '
                '"poolingFactor": 50}]}')
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    r"tables\[0\]\.pooling_factor: given twice"):
            shardplan.load_task(io.StringIO(text))


if __name__ == "__main__":
    unittest.main()
