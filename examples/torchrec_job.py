#!/usr/bin/env python3
"""A TorchRec job's launch planned by shardplan: the task from the job's TorchRec configs and
topology, a plan from the server, and what every rank holds.

    pip install ./client/python
    python examples/torchrec_job.py [HOST:PORT]     # default: $SHARDPLAN_SERVER, 127.0.0.1:50051

Uses torchrec's EmbeddingBagConfig and Topology where torchrec is installed; elsewhere plain
objects with the fields shardplan reads. In the training job itself, ShardplanPlanner's
collective_plan(model, sharders, pg) does the same from the model (docs/python-client.md).
"""

import sys
from types import SimpleNamespace as Fields

import shardplan
from shardplan.torchrec import build_task, tables_by_rank

try:
    from torchrec import EmbeddingBagConfig
    from torchrec.distributed.planner import Topology
except ImportError:  # no torchrec here: the fields shardplan reads, with TorchRec's names
    def EmbeddingBagConfig(**fields):
        return Fields(data_type="FP32", **fields)

    def Topology(world_size, compute_device, hbm_cap, local_world_size):
        return Fields(world_size=world_size, compute_device=compute_device,
                      local_world_size=local_world_size,
                      devices=[Fields(storage=Fields(hbm=hbm_cap))] * world_size)

# The job: three tables in one EmbeddingBagCollection, 2 hosts of 4 GPUs with 16 GiB each.
tables = [EmbeddingBagConfig(name="user_id", num_embeddings=8_000_000, embedding_dim=64,
                             feature_names=["user_id"]),
          EmbeddingBagConfig(name="item_id", num_embeddings=2_500_000, embedding_dim=32,
                             feature_names=["item_id"]),
          EmbeddingBagConfig(name="category", num_embeddings=10_000, embedding_dim=16,
                             feature_names=["category"])]
topology = Topology(world_size=8, compute_device="cuda", hbm_cap=16 * 1024**3, local_world_size=4)
task = build_task({"sparse_arch.embedding_bag_collection": tables}, topology, batch_size=512)
with shardplan.PlannerClient(sys.argv[1] if len(sys.argv) > 1 else None) as client:
    plan = client.plan(task.task)
held = tables_by_rank(task.sharding_plan(plan))
print(f"plan: {plan.algorithm} under {plan.cost_model}, {plan.cost_ms:.3f} ms per iteration")
for rank in range(topology.world_size):
    print(f"rank {rank}: {', '.join(held.get(rank, [])) or '(no embedding tables)'}")
