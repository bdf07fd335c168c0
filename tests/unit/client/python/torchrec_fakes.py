"""Stand-ins for the TorchRec objects shardplan.torchrec reads, with TorchRec's names, fields,
defaults and units (torchrec/modules/embedding_configs.py, torchrec/distributed/types.py,
torchrec/distributed/planner/types.py and constants.py), for tests where torchrec is not
installed. Only what shardplan reads is here.
"""

import enum
from dataclasses import dataclass, field
from typing import List, Optional

GIB = 1024 ** 3
HBM_CAP = 32 * GIB  # TorchRec's default, bytes
DDR_CAP = 128 * GIB
INTRA_NODE_BANDWIDTH = 600 * GIB / 1000  # bytes per ms
CROSS_NODE_BANDWIDTH = 12.5 * GIB / 1000


class DataType(enum.Enum):
    FP32 = "FP32"
    FP16 = "FP16"
    BF16 = "BF16"
    INT8 = "INT8"


class ShardingType(enum.Enum):
    DATA_PARALLEL = "data_parallel"
    TABLE_WISE = "table_wise"
    COLUMN_WISE = "column_wise"
    ROW_WISE = "row_wise"
    TABLE_ROW_WISE = "table_row_wise"
    TABLE_COLUMN_WISE = "table_column_wise"
    GRID_SHARD = "grid_shard"


class EmbOptimType(enum.Enum):  # fbgemm_gpu.split_embedding_configs
    EXACT_SGD = "exact_sgd"
    ADAM = "adam"
    EXACT_ROWWISE_ADAGRAD = "exact_row_wise_adagrad"
    LAMB = "lamb"


@dataclass
class EmbeddingConfig:
    num_embeddings: int
    embedding_dim: int
    name: str = ""
    data_type: DataType = DataType.FP32
    feature_names: List[str] = field(default_factory=list)


@dataclass
class EmbeddingBagConfig(EmbeddingConfig):
    pooling: str = "SUM"  # PoolingType.SUM: what tells a bag's config from a sequence's


@dataclass
class ParameterConstraints:
    sharding_types: Optional[List[str]] = None
    compute_kernels: Optional[List[str]] = None
    min_partition: Optional[int] = None
    pooling_factors: List[float] = field(default_factory=lambda: [1.0])
    num_poolings: Optional[List[float]] = None
    batch_sizes: Optional[List[int]] = None
    is_weighted: bool = False
    cache_params: Optional[object] = None
    enforce_hbm: Optional[bool] = None
    stochastic_rounding: Optional[bool] = None
    bounds_check_mode: Optional[object] = None
    feature_names: Optional[List[str]] = None
    output_dtype: Optional[DataType] = None
    device_group: Optional[str] = None
    key_value_params: Optional[object] = None
    use_virtual_table: bool = False


@dataclass
class Storage:
    hbm: int
    ddr: int


@dataclass
class DeviceHardware:
    rank: int
    storage: Storage


class Topology:
    def __init__(self, world_size, compute_device, hbm_cap=None, ddr_cap=None,
                 local_world_size=None, intra_host_bw=INTRA_NODE_BANDWIDTH,
                 inter_host_bw=CROSS_NODE_BANDWIDTH):
        hbm = [hbm_cap or HBM_CAP if compute_device in ("cuda", "mtia") else 0] * world_size
        self.world_size = world_size
        self.compute_device = compute_device
        self.local_world_size = local_world_size or world_size
        self.devices = [DeviceHardware(rank, Storage(hbm[rank], ddr_cap or DDR_CAP))
                        for rank in range(world_size)]
        self.intra_host_bw = intra_host_bw
        self.inter_host_bw = inter_host_bw


class Module:
    """torch.nn.Module's named_modules over attributes that are Modules."""

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, child in vars(self).items():
            if isinstance(child, Module):
                yield from child.named_modules(f"{prefix}.{name}" if prefix else name)


class EmbeddingBagCollection(Module):
    def __init__(self, tables):
        self._configs = list(tables)

    def embedding_bag_configs(self):
        return self._configs


class EmbeddingCollection(Module):
    def __init__(self, tables):
        self._configs = list(tables)

    def embedding_configs(self):
        return self._configs


class EmbeddingBagCollectionSharder:
    """BaseEmbeddingSharder's sharding_types and compute_kernels (TorchRec v1.3.0,
    torchrec/distributed/embedding_types.py lines 487-538), which EmbeddingBagCollectionSharder
    inherits."""

    module_type = EmbeddingBagCollection

    def __init__(self, fused_params=None):
        self.fused_params = fused_params

    def sharding_types(self, compute_device_type):
        types = ["data_parallel", "table_wise", "column_wise", "table_column_wise"]
        if compute_device_type == "cuda":
            types += ["row_wise", "table_row_wise", "grid_shard"]
        return types

    def compute_kernels(self, sharding_type, compute_device_type):
        if sharding_type == "data_parallel":
            return ["dense"]
        uvm = ["fused_uvm", "fused_uvm_caching", "key_value"] if compute_device_type == "cuda" \
            else []
        return ["fused"] + uvm


class EmbeddingCollectionSharder(EmbeddingBagCollectionSharder):
    """EmbeddingCollectionSharder.sharding_types (TorchRec v1.3.0,
    torchrec/distributed/embedding.py lines 1606-1613): the same on every device."""

    module_type = EmbeddingCollection

    def sharding_types(self, compute_device_type):
        return ["data_parallel", "table_wise", "column_wise", "row_wise"]


class SparseArch(Module):
    def __init__(self, ebc):
        self.embedding_bag_collection = ebc


class Model(Module):
    """A DLRM-like model: sparse_arch.embedding_bag_collection and a sequence
    embedding_collection beside it."""

    def __init__(self, bag_tables, sequence_tables=()):
        self.sparse_arch = SparseArch(EmbeddingBagCollection(bag_tables))
        if sequence_tables:
            self.embedding_collection = EmbeddingCollection(sequence_tables)


def bag_tables():
    return [EmbeddingBagConfig(num_embeddings=100_000, embedding_dim=64, name="user_id",
                               feature_names=["user_id"]),
            EmbeddingBagConfig(num_embeddings=20_000, embedding_dim=32, name="item_id",
                               feature_names=["item_id", "clicked_item_id"],
                               data_type=DataType.FP16)]


def sequence_tables():
    return [EmbeddingConfig(num_embeddings=5_000, embedding_dim=16, name="history",
                            feature_names=["history"])]
