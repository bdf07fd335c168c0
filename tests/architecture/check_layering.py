#!/usr/bin/env python3
"""Checks that every include of the source tree points down the layering of docs/architecture.md.

Each source file belongs to the most specific part below that holds it; a part may include only
itself and the parts it is allowed to see. Algorithms are independent of each other: what two of
them share belongs in planner/search/ (or planner/estimators/). Exit status 1 lists every
include that breaks a rule, as FILE:LINE: PART -> PART (the include).

    tests/architecture/check_layering.py [ROOT]
"""

import pathlib
import re
import sys

# part -> the parts it may include (besides itself). Order matters only for reading.
ALLOWED = {
    "base": [],
    "nn": ["base"],
    "proto": [],
    "planner/domain": ["base"],
    "planner/framework": ["planner/domain", "base"],
    "planner/search": ["planner/framework", "planner/domain", "base"],
    "planner/estimators": ["planner/domain", "base"],
    "planner/traffic": ["planner/domain", "base"],
    "planner/algorithms": ["planner/search", "planner/estimators", "planner/traffic",
                           "planner/framework", "planner/domain", "nn", "base"],
    "wire": ["planner/framework", "planner/domain", "base", "proto"],
    "costmodels": ["planner/estimators", "planner/domain", "nn", "base"],
    "groundtruth": ["planner/domain", "base"],
    "lab": ["costmodels", "groundtruth", "wire", "planner", "nn", "base"],
    "server": ["costmodels", "groundtruth", "wire", "planner", "nn", "base", "proto"],
    "server/grpc": ["server", "costmodels", "groundtruth", "wire", "planner", "nn", "base",
                    "proto"],
    "client": ["proto", "base"],
    "bench": ["server", "client", "lab", "costmodels", "groundtruth", "wire", "planner", "nn",
              "base", "proto", "tests/integration/support"],
}
# Only the transports may include gRPC: the server's core stays transport-free.
GRPC_PARTS = {"server/grpc", "client", "bench"}
GRPC_HEADER = re.compile(r"^(grpcpp?/|grpc/)|\.grpc\.pb\.h$")
ALGORITHMS = "planner/algorithms"
SOURCE_SUFFIXES = {".h", ".cc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def part_of(path):
    """The most specific part holding `path` (a path relative to the root), or None."""
    best = None
    for part in ALLOWED:
        if path == part or path.startswith(part + "/"):
            if best is None or len(part) > len(best):
                best = part
    return best


def allowed(source, target):
    if source == target:
        return True
    return any(target == p or target.startswith(p + "/") for p in ALLOWED[source])


def algorithm_of(path):
    """'neuroshard' for planner/algorithms/neuroshard/x.h; '' for files at the folder's top."""
    rest = path[len(ALGORITHMS) + 1:]
    return rest.split("/")[0] if "/" in rest else ""


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    broken = []
    checked = 0
    for file in sorted(root.rglob("*")):
        if file.suffix not in SOURCE_SUFFIXES or not file.is_file():
            continue
        rel = file.relative_to(root).as_posix()
        source = part_of(rel)
        if source is None or rel.startswith(("build", "tests/")):
            continue
        for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            included = match.group(1)
            if source not in GRPC_PARTS and GRPC_HEADER.search(included):
                broken.append(f"{rel}:{number}: {source} -> gRPC ({included}); only "
                              f"{', '.join(sorted(GRPC_PARTS))} speak gRPC")
                continue
            target = part_of(included)
            if target is None and included.startswith("shardplan/v1/"):
                target = "proto"  # generated from proto/shardplan/v1/*.proto
            if target is None:
                continue  # a third-party header, or one beside the file
            checked += 1
            if not allowed(source, target):
                broken.append(f"{rel}:{number}: {source} -> {target} ({included})")
            elif source == target == ALGORITHMS:
                mine, theirs = algorithm_of(rel), algorithm_of(included)
                if mine and theirs and mine != theirs:
                    broken.append(f"{rel}:{number}: algorithm {mine} -> algorithm {theirs} "
                                  f"({included}); share it through planner/search/")
    if broken:
        print("check_layering: includes against docs/architecture.md's layering:")
        print("\n".join("  " + b for b in broken))
        return 1
    print(f"check_layering: {checked} includes of ours, all pointing down the layering")
    return 0


if __name__ == "__main__":
    sys.exit(main())
