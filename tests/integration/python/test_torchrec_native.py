"""ShardplanPlanner with TorchRec itself: real ParameterSharding / ShardingPlan objects, and
collective_plan broadcasting over torch.distributed (gloo, two processes on this machine).

Skipped where torchrec does not import: Debian's /usr/bin/python3, which runs these tests here,
has neither torch nor torchrec. Run it in an environment with both (pip install
"client/python[torchrec]") and the test environment ctest sets:
    python -m unittest -v test_torchrec_native
"""

import os
import tempfile
import unittest

from server_fixture import SharedServer, refused_port
from shardplan.torchrec import ShardplanPlanner, torchrec_available

SKIP = ("torchrec is not installed in this Python (Debian's python3 has no torch or torchrec); "
        "this test runs where pip install 'client/python[torchrec]' did")
GIB = 1024 ** 3


def make_model():
    import torch  # pylint: disable=import-outside-toplevel
    from torchrec import EmbeddingBagCollection, EmbeddingBagConfig  # pylint: disable=import-outside-toplevel

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ebc = EmbeddingBagCollection(device=torch.device("meta"), tables=[
                EmbeddingBagConfig(name="user_id", num_embeddings=4096, embedding_dim=64,
                                   feature_names=["user_id"]),
                EmbeddingBagConfig(name="item_id", num_embeddings=1024, embedding_dim=32,
                                   feature_names=["item_id"])])

    return Model()


def make_planner(target, world_size=2, timeout=30, **kwargs):
    from torchrec.distributed.planner import Topology  # pylint: disable=import-outside-toplevel
    topology = Topology(world_size=world_size, compute_device="cuda", hbm_cap=16 * GIB,
                        local_world_size=world_size)
    return ShardplanPlanner(topology, target=target, timeout=timeout, algorithm="torchrec",
                            **kwargs)


def sharders():
    from torchrec.distributed.embeddingbag import (  # pylint: disable=import-outside-toplevel
        EmbeddingBagCollectionSharder)
    return [EmbeddingBagCollectionSharder()]


def collective_rank(rank, init_file, targets, results):
    """One process of the gloo group: only rank 0's planner can reach the server."""
    import torch.distributed as dist  # pylint: disable=import-outside-toplevel
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=2)
    try:
        plan = make_planner(targets[rank]).collective_plan(make_model(), sharders())
        results.put((rank, plan._serialize()))
    finally:
        dist.destroy_process_group()


@unittest.skipUnless(torchrec_available(), SKIP)
class NativeTorchRecTest(SharedServer, unittest.TestCase):
    def test_plan_is_torchrecs_own_objects(self):
        from torchrec.distributed.types import (  # pylint: disable=import-outside-toplevel
            EnumerableShardingSpec, ParameterSharding, ShardingPlan, ShardMetadata)
        planner = make_planner(self.server.target)
        plan = planner.plan(make_model(), sharders())
        self.assertIsInstance(plan, ShardingPlan)
        self.assertEqual(sorted(plan.plan["ebc"]), ["item_id", "user_id"])
        for sharding in plan.plan["ebc"].values():
            self.assertIsInstance(sharding, ParameterSharding)
            if sharding.sharding_type != "data_parallel":
                self.assertIsInstance(sharding.sharding_spec, EnumerableShardingSpec)
                self.assertTrue(all(isinstance(s, ShardMetadata)
                                    for s in sharding.sharding_spec.shards))
        # TorchRec's own serialisation reads as the dict shardplan wrote.
        ours = planner.last_task.sharding_plan(planner.last_plan)["plan"]["ebc"]
        theirs = plan._serialize()["plan"]["ebc"]
        for name, entry in ours.items():
            self.assertEqual(theirs[name]["ranks"], entry["ranks"])
            self.assertEqual([(s["shard_offsets"], s["shard_sizes"], s["placement"])
                              for s in theirs[name].get("shards", [])],
                             [(s["shard_offsets"], s["shard_sizes"], s["placement"])
                              for s in entry.get("shards", [])])

    def test_collective_plan_over_gloo_asks_on_rank_0_only(self):
        import torch.multiprocessing as mp  # pylint: disable=import-outside-toplevel
        sock, port = refused_port()  # rank 1 would fail at once if it asked
        with sock, tempfile.TemporaryDirectory() as tmp:
            context = mp.get_context("spawn")
            results = context.Queue()
            targets = [self.server.target, f"127.0.0.1:{port}"]
            processes = [context.Process(target=collective_rank,
                                         args=(r, os.path.join(tmp, "pg"), targets, results))
                         for r in range(2)]
            for process in processes:
                process.start()
            plans = dict(results.get(timeout=120) for _ in processes)
            for process in processes:
                process.join(30)
                self.assertEqual(process.exitcode, 0)
        self.assertEqual(plans[0], plans[1])
        self.assertEqual(sorted(plans[0]["plan"]["ebc"]), ["item_id", "user_id"])


    def test_the_fallback_is_torchrecs_own_planner(self):
        from torchrec.distributed.types import ShardingPlan  # pylint: disable=import-outside-toplevel
        sock, port = refused_port()
        with sock:
            planner = make_planner(f"127.0.0.1:{port}", timeout=1, fallback="torchrec")
            plan = planner.plan(make_model(), sharders())
        self.assertIsInstance(plan, ShardingPlan)
        self.assertEqual(sorted(plan.plan["ebc"]), ["item_id", "user_id"])
        self.assertEqual(planner.last_planner, "fallback")

    def test_the_default_sharders_types_written_down_are_torchrecs(self):
        """_sharders.py's table of TorchRec's default sharders' types against the installed
        TorchRec's sharders, on cuda and cpu, bag and sequence modules."""
        import torch  # pylint: disable=import-outside-toplevel
        from torchrec import (EmbeddingBagCollection, EmbeddingBagConfig,  # pylint: disable=import-outside-toplevel
                              EmbeddingCollection, EmbeddingConfig)
        from torchrec.distributed.embedding import (  # pylint: disable=import-outside-toplevel
            EmbeddingCollectionSharder)
        from shardplan.torchrec._sharders import (  # pylint: disable=import-outside-toplevel
            supported_types)
        meta = torch.device("meta")
        bag = EmbeddingBagCollection(device=meta, tables=[EmbeddingBagConfig(
            name="b", num_embeddings=8, embedding_dim=4, feature_names=["b"])])
        sequence = EmbeddingCollection(device=meta, tables=[EmbeddingConfig(
            name="s", num_embeddings=8, embedding_dim=4, feature_names=["s"])])
        real = sharders() + [EmbeddingCollectionSharder()]
        for module in (bag, sequence):
            configs = getattr(module, "embedding_bag_configs", module.embedding_configs)()
            for device in ("cuda", "cpu"):
                with self.subTest(module=type(module).__name__, device=device):
                    self.assertEqual(supported_types(module, configs, [], device).types,
                                     supported_types(module, configs, real, device).types)


if __name__ == "__main__":
    unittest.main()
