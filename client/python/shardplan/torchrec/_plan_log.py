"""The job log's account of a plan, as TorchRec's planner logs its stats (EmbeddingStats in
torchrec/distributed/planner/stats.py): who planned it and under which cost model, a table of
every rank (shards by type, memory, predicted costs, tables), each table's sharding, and every
warning the server attached to the plan.

    shardplan plan: algorithm torchrec, cost model analytic@1, predicted step 0.412 ms (rank 1)
    rank  shards      memory GiB     %  compute ms  fwd comm ms  bwd comm ms  total ms  tables
       0  TW 1, CW 1  0.024 / 16.0   0.1     0.101        0.050        0.061     0.212  item_id, user_id
    ...
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Mapping, Optional

from shardplan.v1 import planner_pb2

GIB = 1024 ** 3
_ABBREVIATIONS = {planner_pb2.TABLE_WISE: "TW", planner_pb2.COLUMN_WISE: "CW",
                  planner_pb2.ROW_WISE: "RW", planner_pb2.TABLE_ROW_WISE: "TWRW",
                  planner_pb2.DATA_PARALLEL: "DP"}
_HEADER = ("rank", "shards", "memory GiB", "%", "compute ms", "fwd comm ms", "bwd comm ms",
           "total ms", "tables")
_RIGHT_ALIGNED = frozenset(range(len(_HEADER) - 1)) - {1}


def _rank_rows(plan: Any) -> List[List[str]]:
    """One row per device of the plan: its shards by type, memory, costs and tables."""
    shards: Dict[int, Dict[str, int]] = {}
    tables: Dict[int, List[str]] = {}
    for table in plan.tables:
        kind = _ABBREVIATIONS.get(table.sharding_type, "?")
        for shard in table.shards:
            counts = shards.setdefault(shard.device, {})
            counts[kind] = counts.get(kind, 0) + 1
            held = tables.setdefault(shard.device, [])
            if table.table not in held:
                held.append(table.table)
    rows = []
    for device in plan.devices:
        counts = shards.get(device.device, {})
        capacity = device.memory_capacity_bytes
        rows.append([
            str(device.device),
            ", ".join(f"{k} {counts[k]}" for k in _ABBREVIATIONS.values() if k in counts) or "-",
            f"{device.memory_bytes / GIB:.3f} / {capacity / GIB:.1f}",
            f"{100.0 * device.memory_bytes / capacity:.1f}" if capacity else "-",
            f"{device.compute_ms:.3f}", f"{device.forward_comm_ms:.3f}",
            f"{device.backward_comm_ms:.3f}", f"{device.total_ms:.3f}",
            ", ".join(sorted(tables.get(device.device, []))) or "-",
        ])
    return rows


def _aligned(rows: List[List[str]]) -> List[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.rjust(widths[i]) if i in _RIGHT_ALIGNED else cell.ljust(widths[i])
                      for i, cell in enumerate(row)).rstrip() for row in rows]


def plan_log_lines(plan: Any, modules: Optional[Mapping[str, str]] = None) -> List[str]:
    """The lines logged at INFO for `plan` (a shardplan.v1.Plan); modules: {table: module
    path} to name each table's module."""
    bottleneck = f" (rank {plan.bottleneck_device})" if plan.devices else ""
    lines = [f"shardplan plan: algorithm {plan.algorithm}, cost model {plan.cost_model}, "
             f"predicted step {plan.cost_ms:.3f} ms{bottleneck}, {len(plan.tables)} tables "
             f"on {len(plan.devices)} ranks"]
    if plan.selection:
        lines.append(f"shardplan plan: chosen by the server: {plan.selection}")
    if plan.stats.anytime_result:
        lines.append("shardplan plan: the search was cut short by its deadline (anytime plan)")
    if plan.devices:
        lines.extend(_aligned([list(_HEADER)] + _rank_rows(plan)))
    for table in plan.tables:
        module = (modules or {}).get(table.table)
        name = f"{module}.{table.table}" if module else table.table
        ranks = sorted({s.device for s in table.shards})
        kind = planner_pb2.ShardingType.Name(table.sharding_type).lower()
        lines.append(f"  table {name}: {kind}, {len(table.shards)} shards on ranks "
                     f"{', '.join(map(str, ranks))}")
    return lines


def log_plan(logger: logging.Logger, plan: Any,
             modules: Optional[Mapping[str, str]] = None) -> None:
    """Logs plan_log_lines at INFO, one record a line as TorchRec's stats are, and each of the
    plan's warnings at WARNING (code, field, message)."""
    if logger.isEnabledFor(logging.INFO):
        for line in plan_log_lines(plan, modules):
            logger.info("%s", line)
    for warning in plan.warnings:
        logger.warning("shardplan plan warning %s (%s): %s", warning.code, warning.field,
                       warning.message)
