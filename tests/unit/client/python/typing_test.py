"""The package is typed (py.typed): every public function and method of its public modules
declares its parameters' and its return's types.

    /usr/bin/python3 -m unittest -v typing_test
"""

import inspect
import os
import unittest

import shardplan
import shardplan._base
import shardplan.aio
import shardplan.client
import shardplan.convert
import shardplan.errors
import shardplan.torchrec
import shardplan.torchrec._format
import shardplan.torchrec.planner
import shardplan.torchrec.task

MODULES = (shardplan._base, shardplan.client, shardplan.aio, shardplan.convert, shardplan.errors,
           shardplan.torchrec._format, shardplan.torchrec.planner, shardplan.torchrec.task)


def public_callables(module):
    """(qualified name, function) of the module's own public functions and class methods."""
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            yield f"{module.__name__}.{name}", value
        elif inspect.isclass(value):
            for method_name, method in vars(value).items():
                if inspect.isfunction(method) and (not method_name.startswith("_") or
                                                   method_name == "__init__"):
                    yield f"{module.__name__}.{name}.{method_name}", method


class TypingTest(unittest.TestCase):
    def test_py_typed_marks_the_package(self):
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(shardplan.__file__),
                                                    "py.typed")))

    def test_public_functions_are_annotated(self):
        checked = 0
        for name, function in (c for m in MODULES for c in public_callables(m)):
            signature = inspect.signature(function)
            with self.subTest(function=name):
                self.assertIsNot(signature.return_annotation, inspect.Signature.empty)
                for parameter in list(signature.parameters.values())[
                        1 if "." in function.__qualname__ else 0:]:
                    self.assertIsNot(parameter.annotation, inspect.Parameter.empty,
                                     f"{name}({parameter.name})")
            checked += 1
        self.assertGreater(checked, 40)  # the modules above were really read


if __name__ == "__main__":
    unittest.main()
