#!/usr/bin/python3
"""Checks that no two test files compiled in one unity build share a file-local name.

Test executables compile their sources in unity batches (tests/CMakeLists.txt): one translation
unit includes several test files, so their anonymous namespaces merge. Two files that each define
`Table MakeTable(...)` then fail to compile when the signatures match, and when they differ the
calls silently pick whichever overload fits best (it happened: a sampler test called another
file's MakeTable(rows, dim, pooling) with its own (rows, pooling, bins) arguments). This check
reads the unity sources CMake generated under BUILD_DIR and, per target, lists every name defined
at file scope (column 0: functions, classes, structs, enums, constants) by more than one of its
files, whatever batch each file is in today.

    /usr/bin/python3 tests/architecture/check_unity_names.py BUILD_DIR
"""
import collections
import os
import re
import sys

INCLUDE = re.compile(r'^#include "(.+)"$')
# Column-0 definitions in Google style. A function definition's line ends with "{" or its
# parameter list goes on ("," or an open parenthesis); declarations end with ";".
FUNCTION = re.compile(r"^(?!TEST|namespace|using|return|template|typedef|#|//|\}|case)"
                      r"[A-Za-z_][\w:<>,\s\*&]*?\b([A-Za-z_]\w*)\s*\([^;]*$")
TYPE = re.compile(r"^(?:struct|class|enum(?:\s+class)?)\s+([A-Za-z_]\w*)\b[^;]*$")
CONSTANT = re.compile(r"^(?:static\s+)?(?:inline\s+)?(?:constexpr|const)\s+[\w:<>,\s\*&]+?"
                      r"\b([A-Za-z_]\w*)\s*(?:=|\{|\[)")
OPERATORS = {"operator"}


def file_scope_names(path):
    names = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            for pattern in (TYPE, CONSTANT, FUNCTION):
                match = pattern.match(line)
                if match and match.group(1) not in OPERATORS:
                    names.add(match.group(1))
                    break
    return names


def unity_targets(build_dir):
    """{target Unity dir: [source files]} from CMake's unity_*.cxx files."""
    targets = collections.defaultdict(list)
    for root, _, files in os.walk(build_dir):
        if os.path.basename(root) != "Unity":
            continue
        for name in sorted(files):
            if not (name.startswith("unity_") and name.endswith(".cxx")):
                continue
            with open(os.path.join(root, name), encoding="utf-8") as f:
                for line in f:
                    match = INCLUDE.match(line.strip())
                    if match:
                        targets[root].append(match.group(1))
    return targets


def clashes(sources):
    """[(name, [files])] of names more than one of `sources` defines."""
    where = collections.defaultdict(list)
    for source in sources:
        for name in file_scope_names(source):
            where[name].append(source)
    return sorted((name, files) for name, files in where.items() if len(files) > 1)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    targets = unity_targets(argv[1])
    failures = 0
    for target, sources in sorted(targets.items()):
        for name, files in clashes(sources):
            failures += 1
            label = os.path.basename(os.path.dirname(target))
            print(f"{label}: '{name}' is defined at file scope by "
                  + ", ".join(os.path.relpath(f) for f in files)
                  + ": rename one (unity batches merge their anonymous namespaces)")
    print(f"check_unity_names: {len(targets)} unity targets, "
          f"{sum(len(s) for s in targets.values())} files, {failures} clashes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
