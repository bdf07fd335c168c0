"""The optimizer whose state TorchRec's planner counts, as a shardplan.v1.Optimizer.

A job names its embedding optimizer in its sharders' fused_params["optimizer"], an fbgemm
EmbOptimType ("exact_sgd", "adam", "exact_row_wise_adagrad", ...), or as a torch optimizer class
(torch.optim.SGD, torch.optim.Adam, torchrec.optim.RowWiseAdagrad). TorchRec's storage
estimate (shard_estimators.py, _get_optimizer_multipler) counts SGD as no state, Adam as two
copies of the weights, row-wise Adagrad as one value per row and anything else as one copy.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

from shardplan.errors import InvalidTaskError
from shardplan.v1 import planner_pb2

_BY_NAME = {
    "sgd": planner_pb2.SGD,
    "exact_sgd": planner_pb2.SGD,
    "adam": planner_pb2.ADAM,
    "row_wise_adagrad": planner_pb2.ROWWISE_ADAGRAD,
    "exact_row_wise_adagrad": planner_pb2.ROWWISE_ADAGRAD,
    "rowwiseadagrad": planner_pb2.ROWWISE_ADAGRAD,  # torchrec.optim.RowWiseAdagrad
    "rowwise_adagrad": planner_pb2.ROWWISE_ADAGRAD,  # shardplan's own name
    "none": planner_pb2.OPTIMIZER_UNSPECIFIED,  # EmbOptimType.NONE: no optimizer
    "optimizer_unspecified": planner_pb2.OPTIMIZER_UNSPECIFIED,
    "other_optimizer": planner_pb2.OTHER_OPTIMIZER,
}


def optimizer_of(value: Any) -> int:
    """The shardplan.v1.Optimizer of an EmbOptimType, an optimizer class, a name or a
    shardplan.v1.Optimizer number; None: OPTIMIZER_UNSPECIFIED; any other optimizer:
    OTHER_OPTIMIZER."""
    if value is None:
        return planner_pb2.OPTIMIZER_UNSPECIFIED
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in planner_pb2.Optimizer.values():
            raise InvalidTaskError(f"optimizer: {value} is not a shardplan.v1.Optimizer")
        return value
    if isinstance(value, type):
        name = value.__name__
    else:
        name = str(getattr(value, "value", value))
    return _BY_NAME.get(name.lower(), planner_pb2.OTHER_OPTIMIZER)


def sharders_optimizer(sharders: Iterable[Any]) -> int:
    """The optimizer the sharders' fused_params name; OPTIMIZER_UNSPECIFIED where none does.
    Sharders that name different optimizers are refused: the task has one."""
    named: Dict[int, Any] = {}
    for sharder in sharders or ():
        fused: Optional[dict] = getattr(sharder, "fused_params", None)
        if fused and fused.get("optimizer") is not None:
            named.setdefault(optimizer_of(fused["optimizer"]), fused["optimizer"])
    if len(named) > 1:
        raise InvalidTaskError(
            "sharders: their fused_params name different optimizers "
            f"({', '.join(sorted(str(v) for v in named.values()))}); a shardplan task counts "
            "one: pass optimizer= to say which")
    return next(iter(named), planner_pb2.OPTIMIZER_UNSPECIFIED)
