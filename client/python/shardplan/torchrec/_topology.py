"""A TorchRec Topology (torchrec/distributed/planner/types.py) as a shardplan.v1.Topology.

Read duck-typed: world_size, local_world_size, compute_device, devices[i].storage.hbm (bytes;
ddr for compute_device "cpu", whose hbm TorchRec leaves 0), intra_host_bw and inter_host_bw
(bytes per ms, TorchRec's unit: its defaults 600 and 12.5 GiB/s are 600 * 1024**3 / 1000 and
12.5 * 1024**3 / 1000). TorchRec's all-reduce bandwidth, inter_host_bw times the devices per
host, is shardplan's default, so it is not sent.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple

from shardplan.errors import InvalidTaskError
from shardplan.v1 import planner_pb2

GIB = 1 << 30
COMPUTE_DEVICES = ("cuda", "cpu", "mtia")


class HostLayout(NamedTuple):
    """What placements need: the compute device, devices per host and the world size."""

    compute_device: str
    local_world_size: int
    world_size: int


def _gibps(bytes_per_ms: float) -> float:
    return float(bytes_per_ms) * 1000.0 / GIB


def _capacities(topology: Any, compute_device: str, world_size: int) -> List[float]:
    kind = "ddr" if compute_device == "cpu" else "hbm"
    devices = list(getattr(topology, "devices", None) or ())
    if len(devices) != world_size:
        raise InvalidTaskError(f"topology.devices: {len(devices)} devices for world_size "
                               f"{world_size}")
    capacities = []
    for rank, device in enumerate(devices):
        capacity = getattr(getattr(device, "storage", None), kind, None)
        if not isinstance(capacity, (int, float)) or capacity <= 0:
            raise InvalidTaskError(f"topology.devices[{rank}].storage.{kind}: {capacity!r} is "
                                   f"not a memory capacity in bytes (compute_device "
                                   f"{compute_device!r} plans in {kind})")
        capacities.append(capacity / GIB)
    return capacities


def topology_message(topology: Any) -> "tuple[planner_pb2.Topology, HostLayout]":
    """The task's Topology and the host layout of a TorchRec Topology."""
    compute_device = str(getattr(topology, "compute_device", "cuda"))
    if compute_device not in COMPUTE_DEVICES:
        raise InvalidTaskError(f"topology.compute_device: {compute_device!r} is not one of "
                               f"{', '.join(COMPUTE_DEVICES)}")
    world_size = int(topology.world_size)
    if world_size < 1:
        raise InvalidTaskError(f"topology.world_size: {world_size} is not a device count")
    local_world_size = int(getattr(topology, "local_world_size", None) or world_size)
    if local_world_size < 1 or world_size % local_world_size:
        raise InvalidTaskError(f"topology.local_world_size: {local_world_size} does not divide "
                               f"world_size {world_size} into hosts")
    capacities = _capacities(topology, compute_device, world_size)
    message = planner_pb2.Topology(num_devices=world_size, device_memory_gib=max(capacities),
                                   devices_per_host=local_world_size)
    if len(set(capacities)) > 1:
        message.per_device_memory_gib.extend(capacities)
    for field, attribute in (("intra_host_bandwidth_gibps", "intra_host_bw"),
                             ("inter_host_bandwidth_gibps", "inter_host_bw")):
        bandwidth = getattr(topology, attribute, None)
        if bandwidth:
            setattr(message, field, _gibps(bandwidth))
    return message, HostLayout(compute_device, local_world_size, world_size)
