"""Which sharding types a table's sharder supports on the job's compute device, as TorchRec's
planner asks (EmbeddingEnumerator.enumerate: a module's sharder is the one whose module_type is
the module's type, torchrec/distributed/planner/enumerators.py lines 133-145 at TorchRec v1.3.0;
its types are sharder.sharding_types(compute_device), line 184, each kept where
sharder.compute_kernels(type, compute_device) leaves a kernel, line 188).

A sharder that has these methods (TorchRec's own, a job's subclass) is asked. A module with no
sharder (none given: DistributedModelParallel then uses get_default_sharders(),
torchrec/distributed/sharding_plan.py lines 48-65), or a sharder that does not say, gets the
default sharder's answer for its kind, written down here from TorchRec v1.3.0:

- EmbeddingBagCollection (BaseEmbeddingSharder.sharding_types,
  torchrec/distributed/embedding_types.py lines 487-512; EmbeddingBagCollectionSharder,
  torchrec/distributed/embeddingbag.py line 1689, does not override it): data_parallel,
  table_wise, column_wise, table_column_wise everywhere; row_wise, table_row_wise, grid_shard
  on cuda only.
- EmbeddingCollection (EmbeddingCollectionSharder.sharding_types,
  torchrec/distributed/embedding.py lines 1606-1613): data_parallel, table_wise, column_wise,
  row_wise, on every device.
- Kernels (BaseEmbeddingSharder.compute_kernels, embedding_types.py lines 514-538): "fused" for
  every type but data_parallel, "dense" for data_parallel, on every device: every type above
  runs on the kernel shardplan's plans use.

The kind is the module's (embedding_configs(): a sequence EmbeddingCollection), else the
configs' (EmbeddingBagConfig has `pooling`, EmbeddingConfig has not).
"""

from __future__ import annotations

from typing import Any, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence

_BAG_EVERYWHERE = ("data_parallel", "table_wise", "column_wise", "table_column_wise")
_BAG_CUDA_ONLY = ("row_wise", "table_row_wise", "grid_shard")
_SEQUENCE = ("data_parallel", "table_wise", "column_wise", "row_wise")


class SharderTypes(NamedTuple):
    """The sharding types (TorchRec's names) a module's tables may take, and who says so (for
    error messages: "EmbeddingCollectionSharder on cuda")."""

    types: FrozenSet[str]
    source: str


def _type_name(cls: Any) -> str:
    """TorchRec's sharder_name (planner/utils.py line 21): module and class name."""
    return f"{getattr(cls, '__module__', '')}.{getattr(cls, '__qualname__', cls)}"


def sharder_of(module: Any, sharders: Sequence[Any]) -> Optional[Any]:
    """The sharder whose module_type is `module`'s type, as TorchRec's enumerator matches them;
    else one whose module_type `module` is an instance of."""
    typed = [s for s in sharders or () if isinstance(getattr(s, "module_type", None), type)]
    exact = _type_name(type(module))
    for sharder in typed:
        if _type_name(sharder.module_type) == exact:
            return sharder
    return next((s for s in typed if isinstance(module, s.module_type)), None)


def _is_sequence(module: Any, configs: Iterable[Any]) -> bool:
    if module is not None:
        return hasattr(module, "embedding_configs") and \
            not hasattr(module, "embedding_bag_configs")
    configs = list(configs)
    return bool(configs) and not any(hasattr(c, "pooling") for c in configs)


def _default(module: Any, configs: Iterable[Any], compute_device: str) -> SharderTypes:
    if _is_sequence(module, configs):
        return SharderTypes(frozenset(_SEQUENCE),
                            f"TorchRec's EmbeddingCollectionSharder on {compute_device}")
    types = _BAG_EVERYWHERE + (_BAG_CUDA_ONLY if compute_device == "cuda" else ())
    return SharderTypes(frozenset(types),
                        f"TorchRec's EmbeddingBagCollectionSharder on {compute_device}")


def _value(item: Any) -> str:
    return str(getattr(item, "value", item))


def _kernel_for(sharding_type: str) -> str:
    """The kernel shardplan's plans give a type (_format.py)."""
    return "dense" if sharding_type == "data_parallel" else "fused"


def supported_types(module: Any, configs: Iterable[Any], sharders: Sequence[Any],
                    compute_device: str) -> SharderTypes:
    """The types the tables of `module` (None: not known) may take on `compute_device`."""
    sharder = sharder_of(module, sharders) if module is not None else None
    asked = getattr(sharder, "sharding_types", None)
    if not callable(asked):
        return _default(module, configs, compute_device)
    types: List[str] = [_value(t) for t in asked(compute_device)]
    kernels = getattr(sharder, "compute_kernels", None)
    if callable(kernels):
        types = [t for t in types
                 if _kernel_for(t) in {_value(k) for k in kernels(t, compute_device)}]
    return SharderTypes(frozenset(types), f"{type(sharder).__name__} on {compute_device}")
