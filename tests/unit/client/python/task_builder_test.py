"""shardplan.torchrec without a server: tasks built from TorchRec-shaped objects
(torchrec_fakes.py), the refusals, several modules, plans back to TorchRec's shapes and objects.

    /usr/bin/python3 -m unittest -v task_builder_test
"""

import unittest
from types import SimpleNamespace

import shardplan
from shardplan import pb
from shardplan.torchrec import (build_task, embedding_modules, sharding_plan_objects,
                                tables_by_rank)
from torchrec_fakes import (GIB, DataType, EmbeddingBagCollection,
                            EmbeddingBagCollectionSharder, EmbeddingBagConfig,
                            EmbeddingCollectionSharder, EmbOptimType, Model,
                            ParameterConstraints, ShardingType, Topology, bag_tables,
                            sequence_tables)

EBC = "sparse_arch.embedding_bag_collection"


def topology(world_size=4, local_world_size=2, hbm_gib=16, **kwargs):
    return Topology(world_size=world_size, compute_device="cuda", hbm_cap=hbm_gib * GIB,
                    local_world_size=local_world_size, **kwargs)


def build(constraints=None, **kwargs):
    return build_task({EBC: bag_tables()}, kwargs.pop("topology", None) or topology(),
                      constraints=constraints, **kwargs)


class TopologyAndBatchTest(unittest.TestCase):
    def test_devices_hosts_memory_and_bandwidths_in_shardplans_units(self):
        task = build().task
        self.assertEqual(task.topology.num_devices, 4)
        self.assertEqual(task.topology.devices_per_host, 2)
        self.assertEqual(task.topology.device_memory_gib, 16.0)
        self.assertEqual(list(task.topology.per_device_memory_gib), [])
        self.assertAlmostEqual(task.topology.intra_host_bandwidth_gibps, 600.0)
        self.assertAlmostEqual(task.topology.inter_host_bandwidth_gibps, 12.5)

    def test_uneven_memory_is_per_device_and_cpu_plans_in_ddr(self):
        uneven = topology()
        uneven.devices[3].storage.hbm = 8 * GIB
        self.assertEqual(list(build(topology=uneven).task.topology.per_device_memory_gib),
                         [16.0, 16.0, 16.0, 8.0])
        cpu = Topology(world_size=2, compute_device="cpu", ddr_cap=64 * GIB)
        task = build(topology=cpu)
        self.assertEqual(task.task.topology.device_memory_gib, 64.0)
        self.assertEqual(task.layout.compute_device, "cpu")

    def test_the_hardware_is_the_tasks_when_named(self):
        self.assertEqual(build().task.topology.hardware, "")
        self.assertEqual(build(hardware="h100-sxm").task.topology.hardware, "h100-sxm")

    def test_batch_size_is_per_rank_times_the_world(self):
        self.assertEqual(build(batch_size=1024).task.batch_size, 4096)
        self.assertEqual(build().task.batch_size, 512 * 4)  # TorchRec's default per rank

    def test_topology_refusals_name_the_field(self):
        empty = topology()
        empty.devices[1].storage.hbm = 0
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    r"topology.devices\[1\].storage.hbm"):
            build(topology=empty)
        with self.assertRaisesRegex(shardplan.InvalidTaskError, "local_world_size: 3"):
            build(topology=topology(local_world_size=3))


class TablesTest(unittest.TestCase):
    def test_tables_rows_dims_element_types_and_torchrecs_default_pooling(self):
        task = build()
        tables = {t.name: t for t in task.task.tables}
        self.assertEqual((tables["user_id"].rows, tables["user_id"].dim), (100_000, 64))
        self.assertEqual(tables["user_id"].element_type, pb.FP32)
        self.assertEqual(tables["item_id"].element_type, pb.FP16)
        self.assertEqual(tables["item_id"].pooling_factor, 1.0)
        self.assertEqual(task.modules, {"user_id": EBC, "item_id": EBC})

    def test_torchrecs_data_types_with_a_whole_size_and_the_others_refused(self):
        def element_type(data_type):
            tables = [EmbeddingBagConfig(num_embeddings=10, embedding_dim=8, name="t",
                                         data_type=data_type)]
            return build_task({"ebc": tables}, topology()).task.tables[0].element_type

        self.assertEqual(element_type(DataType.BF16), pb.BF16)
        self.assertEqual(element_type("UINT8"), pb.UINT8)
        self.assertEqual(element_type("NFP8"), pb.NFP8)
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    "table 't' of module 'ebc': data_type INT4: TorchRec stores "
                                    "it packed two to a byte"):
            element_type("INT4")
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    "data_type INT64: TorchRec gives it no size"):
            element_type("INT64")

    def test_several_modules_keep_their_tables_and_names_must_be_unique(self):
        task = build_task({EBC: bag_tables(), "embedding_collection": sequence_tables()},
                          topology(), model=Model(bag_tables(), sequence_tables()))
        self.assertEqual(task.modules["history"], "embedding_collection")
        self.assertEqual(len(task.task.tables), 3)
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    "table 'user_id' is in modules 'a' and 'b'"):
            build_task({"a": bag_tables(), "b": bag_tables()[:1]}, topology())

    def test_module_paths_are_checked_against_the_model(self):
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    "module path 'sparse.ebc' is not a module of the model"):
            build_task({"sparse.ebc": bag_tables()}, topology(), model=Model(bag_tables()))


class ConstraintsTest(unittest.TestCase):
    def allowed(self, **constraint):
        task = build({"user_id": ParameterConstraints(**constraint)}).task
        return [pb.ShardingType.Name(t) for t in task.tables[0].allowed_sharding_types]

    def test_sharding_types_as_strings_or_enums_others_unused(self):
        self.assertEqual(self.allowed(sharding_types=["row_wise", ShardingType.TABLE_WISE,
                                                      "grid_shard"]),
                         ["TABLE_WISE", "ROW_WISE"])
        self.assertEqual(self.allowed(), [])  # no constraint: any
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    r"table 'user_id' of module '[^']+': ParameterConstraints"
                                    r"\.sharding_types \['grid_shard'\]: none is one"):
            self.allowed(sharding_types=["grid_shard"])

    def test_compute_kernels_fused_for_sharded_types_dense_for_data_parallel(self):
        self.assertEqual(self.allowed(compute_kernels=["fused"]),
                         ["TABLE_WISE", "COLUMN_WISE", "ROW_WISE", "TABLE_ROW_WISE"])
        self.assertEqual(self.allowed(compute_kernels=["dense"]), ["DATA_PARALLEL"])
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    r"compute_kernels \['fused_uvm_caching'\]"):
            self.allowed(compute_kernels=["fused_uvm_caching"])
        with self.assertRaisesRegex(shardplan.InvalidTaskError, "compute_kernels"):
            self.allowed(compute_kernels=["dense"], sharding_types=["table_wise"])

    def test_pooling_factors_sum_and_one_rank_pins(self):
        task = build({"item_id": ParameterConstraints(pooling_factors=[2.5, 4.0])}).task
        self.assertEqual(task.tables[1].pooling_factor, 6.5)
        pinned = build({"user_id": SimpleNamespace(ranks=[3, 3])}).task.tables[0]
        self.assertEqual(pinned.pinned_device, 3)
        self.assertFalse(build().task.tables[0].HasField("pinned_device"))

    def test_what_shardplan_cannot_honour_is_refused_by_field(self):
        for field, value in (("num_poolings", [1.0]), ("batch_sizes", [64]),
                             ("min_partition", 32), ("use_virtual_table", True),
                             ("device_group", "cpu")):
            with self.subTest(field=field):
                with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                            f"table 'item_id' .*ParameterConstraints.{field}"):
                    build({"item_id": ParameterConstraints(**{field: value})})
        with self.assertRaisesRegex(shardplan.InvalidTaskError, r"ranks \[0, 1\]"):
            build({"user_id": SimpleNamespace(ranks=[0, 1])})


class SharderTypesTest(unittest.TestCase):
    """The sharders decide the types (TorchRec v1.3.0's, torchrec_fakes.py): a table may take
    what its module's sharder supports on the compute device, narrowed by its constraints."""

    def allowed(self, device="cuda", sharders=(), constraints=None, with_model=True):
        model = Model(bag_tables(), sequence_tables())
        topo = topology() if device == "cuda" else Topology(world_size=4, compute_device="cpu",
                                                            ddr_cap=64 * GIB)
        task = build_task({EBC: bag_tables(), "embedding_collection": sequence_tables()}, topo,
                          constraints=constraints, sharders=list(sharders),
                          model=model if with_model else None)
        return {t.name: [pb.ShardingType.Name(x) for x in t.allowed_sharding_types]
                for t in task.task.tables}

    def test_torchrecs_sharders_on_cuda_and_cpu(self):
        sharders = [EmbeddingBagCollectionSharder(), EmbeddingCollectionSharder()]
        sequence = ["TABLE_WISE", "COLUMN_WISE", "ROW_WISE", "DATA_PARALLEL"]
        for given in (sharders, ()):  # given, or TorchRec's defaults for the module's kind
            with self.subTest(sharders=bool(given)):
                cuda = self.allowed("cuda", given)
                self.assertEqual(cuda["user_id"], [])  # a bag on cuda: every type shardplan plans
                self.assertEqual(cuda["history"], sequence)  # a sequence: no table_row_wise
                cpu = self.allowed("cpu", given)
                self.assertEqual(cpu["user_id"], ["TABLE_WISE", "COLUMN_WISE", "DATA_PARALLEL"])
                self.assertEqual(cpu["history"], sequence)

    def test_without_the_model_the_configs_kind_decides(self):
        self.assertEqual(self.allowed("cpu", with_model=False)["history"],
                         ["TABLE_WISE", "COLUMN_WISE", "ROW_WISE", "DATA_PARALLEL"])
        self.assertEqual(self.allowed("cpu", with_model=False)["item_id"],
                         ["TABLE_WISE", "COLUMN_WISE", "DATA_PARALLEL"])

    def test_a_jobs_own_sharder_is_asked_types_and_kernels(self):
        class TableWiseOnly(EmbeddingBagCollectionSharder):
            def sharding_types(self, compute_device_type):
                return [ShardingType.TABLE_WISE, ShardingType.DATA_PARALLEL]

        class NoFusedKernel(EmbeddingBagCollectionSharder):
            def compute_kernels(self, sharding_type, compute_device_type):
                return ["dense"] if sharding_type == "data_parallel" else ["key_value"]

        self.assertEqual(self.allowed(sharders=[TableWiseOnly()])["user_id"],
                         ["TABLE_WISE", "DATA_PARALLEL"])
        self.assertEqual(self.allowed(sharders=[NoFusedKernel()])["user_id"],
                         ["DATA_PARALLEL"])

    def test_constraints_narrow_what_the_sharder_supports_and_may_not_leave_nothing(self):
        narrowed = self.allowed("cuda", constraints={
            "history": ParameterConstraints(sharding_types=["row_wise", "table_row_wise"])})
        self.assertEqual(narrowed["history"], ["ROW_WISE"])
        with self.assertRaisesRegex(
                shardplan.InvalidTaskError,
                r"table 'user_id' of module '[^']+': ParameterConstraints\.sharding_types "
                r"\['table_row_wise'\]: TorchRec's EmbeddingBagCollectionSharder on cpu supports "
                r"none of them \(it supports table_wise, column_wise, data_parallel\)"):
            self.allowed("cpu", constraints={
                "user_id": ParameterConstraints(sharding_types=["table_row_wise"])})

    def test_a_sharder_with_no_type_shardplan_plans_is_refused(self):
        class GridOnly(EmbeddingBagCollectionSharder):
            def sharding_types(self, compute_device_type):
                return ["grid_shard"]

        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    r"table '\w+' of module '[^']+': GridOnly on cuda supports "
                                    r"\['grid_shard'\]: none is one shardplan plans"):
            self.allowed(sharders=[GridOnly()])


class MemoryTest(unittest.TestCase):
    def test_storage_reservation_defaults_to_torchrecs(self):
        self.assertAlmostEqual(build().task.memory.storage_reservation, 0.15)
        self.assertEqual(build(storage_reservation=0.0).task.memory.storage_reservation, 0.0)
        with self.assertRaisesRegex(shardplan.InvalidTaskError, "storage_reservation: 1.5"):
            build(storage_reservation=1.5)

    def test_optimizer_from_the_sharders_fused_params_or_given(self):
        adam = [EmbeddingBagCollectionSharder({"optimizer": EmbOptimType.ADAM})]
        self.assertEqual(build(sharders=adam).task.memory.optimizer, pb.ADAM)
        rowwise = [EmbeddingBagCollectionSharder({"optimizer": "exact_row_wise_adagrad"}),
                   EmbeddingCollectionSharder({"optimizer": "row_wise_adagrad"})]
        self.assertEqual(build(sharders=rowwise).task.memory.optimizer, pb.ROWWISE_ADAGRAD)
        self.assertEqual(build(sharders=[EmbeddingBagCollectionSharder()]).task.memory.optimizer,
                         pb.OPTIMIZER_UNSPECIFIED)
        lamb = [EmbeddingBagCollectionSharder({"optimizer": EmbOptimType.LAMB})]
        self.assertEqual(build(sharders=lamb).task.memory.optimizer, pb.OTHER_OPTIMIZER)
        SGD = type("SGD", (), {})  # torch.optim.SGD, by its class name
        self.assertEqual(build(sharders=adam, optimizer=SGD).task.memory.optimizer, pb.SGD)
        with self.assertRaisesRegex(shardplan.InvalidTaskError,
                                    "different optimizers.*pass optimizer="):
            build(sharders=adam + rowwise)


class PlansBackTest(unittest.TestCase):
    PLAN = pb.Plan(local_world_size=2, tables=[
        pb.TableSharding(table="user_id", sharding_type=pb.ROW_WISE, shards=[
            pb.Shard(device=3, row_offset=50_000, row_count=50_000, column_count=64),
            pb.Shard(device=2, row_offset=0, row_count=50_000, column_count=64)]),
        pb.TableSharding(table="history", sharding_type=pb.DATA_PARALLEL, shards=[
            pb.Shard(device=d, row_count=5_000, column_count=16) for d in range(4)])])

    def task(self):
        return build_task({EBC: bag_tables(), "embedding_collection": sequence_tables()},
                          topology())

    def test_every_table_under_its_module_placed_by_host(self):
        sharding_plan = self.task().sharding_plan(self.PLAN)
        user = sharding_plan["plan"][EBC]["user_id"]
        self.assertEqual(user["ranks"], [2, 3])
        self.assertEqual([s["placement"] for s in user["shards"]],
                         ["rank:2/cuda:0", "rank:3/cuda:1"])
        self.assertEqual(sharding_plan["plan"]["embedding_collection"]["history"]["ranks"],
                         [0, 1, 2, 3])
        self.assertEqual(tables_by_rank(sharding_plan), {
            0: ["embedding_collection.history"], 1: ["embedding_collection.history"],
            2: [f"{EBC}.user_id", "embedding_collection.history"],
            3: [f"{EBC}.user_id", "embedding_collection.history"]})

    def test_torchrec_objects_as_torchrecs_planner_builds_them(self):
        def record(name):
            return lambda *args, **kwargs: SimpleNamespace(kind=name, args=args, **kwargs)
        types = SimpleNamespace(ShardingPlan=record("ShardingPlan"),
                                EmbeddingModuleShardingPlan=dict,
                                ParameterSharding=record("ParameterSharding"),
                                EnumerableShardingSpec=record("EnumerableShardingSpec"),
                                ShardMetadata=record("ShardMetadata"))
        task = self.task()
        constraints = {"user_id": ParameterConstraints(enforce_hbm=True)}
        plan = sharding_plan_objects(task.sharding_plan(self.PLAN), constraints, types)
        user = plan.plan[EBC]["user_id"]
        self.assertEqual((user.sharding_type, user.compute_kernel, user.ranks),
                         ("row_wise", "fused", [2, 3]))
        self.assertTrue(user.enforce_hbm)
        self.assertIsNone(user.cache_params)
        shard = user.sharding_spec.args[0][1]
        self.assertEqual((shard.shard_offsets, shard.shard_sizes, shard.placement),
                         ([50_000, 0], [50_000, 64], "rank:3/cuda:1"))
        history = plan.plan["embedding_collection"]["history"]
        self.assertEqual((history.compute_kernel, history.sharding_spec), ("dense", None))


class EmbeddingModulesTest(unittest.TestCase):
    def test_finds_bag_and_sequence_collections_and_follows_the_sharders(self):
        model = Model(bag_tables(), sequence_tables())
        self.assertEqual(sorted(embedding_modules(model)), ["embedding_collection", EBC])
        only_bags = embedding_modules(model, [EmbeddingBagCollectionSharder()])
        self.assertEqual(list(only_bags), [EBC])
        self.assertEqual([c.name for c in only_bags[EBC]], ["user_id", "item_id"])
        self.assertEqual(list(embedding_modules(EmbeddingBagCollection(bag_tables()))), [""])


if __name__ == "__main__":
    unittest.main()
