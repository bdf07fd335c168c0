"""Conversions between the API's messages and the plain dicts of its JSON files.

Tasks and plans are written as the proto3 JSON mapping with the original snake_case field names
(examples/README.md), so a dict loaded from a task file is accepted wherever a Task is.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type, TypeVar, Union

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from shardplan.errors import InvalidTaskError
from shardplan.v1 import planner_pb2

# A task: the dict of its JSON file or the message. A plan: a Plan or PlanResponse, their dicts
# (a JobStatus dict too), or a TorchRec ShardingPlan dict.
TaskLike = Union[planner_pb2.Task, Dict[str, Any]]
PlanLike = Union[planner_pb2.Plan, planner_pb2.PlanResponse, Dict[str, Any]]

_M = TypeVar("_M", bound=Message)


def _parse(value: Any, message_type: Type[_M], what: str) -> _M:
    if isinstance(value, message_type):
        return value
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a dict or a shardplan.v1.{message_type.__name__}, "
                        f"got {type(value).__name__}")
    try:
        return json_format.ParseDict(value, message_type())
    except json_format.ParseError as e:
        raise InvalidTaskError(f"{what}: {e}") from None


def task_from_dict(task: TaskLike) -> planner_pb2.Task:
    """A shardplan.v1.Task from its JSON dict (unknown fields are errors); a Task is returned
    as is. Raises InvalidTaskError for a malformed dict."""
    return _parse(task, planner_pb2.Task, "task")


def plan_from_dict(plan: PlanLike, task: Optional[TaskLike] = None) -> planner_pb2.Plan:
    """A shardplan.v1.Plan from a Plan dict, from a PlanResponse / JobStatus dict as the CLI
    prints them with --json, or from a TorchRec ShardingPlan dict (torchrec.from_torchrec, whose
    data_parallel tables take their shape from `task`); Plan and PlanResponse messages are
    accepted too."""
    if isinstance(plan, planner_pb2.PlanResponse):
        return plan.plan
    from shardplan import torchrec  # torchrec builds on this module
    if torchrec.is_torchrec_plan(plan):
        return torchrec.from_torchrec(plan, task)
    if isinstance(plan, dict):
        if "result" in plan and isinstance(plan["result"], dict):
            plan = plan["result"]
        if "plan" in plan and isinstance(plan["plan"], dict):
            plan = plan["plan"]
    return _parse(plan, planner_pb2.Plan, "plan")


def message_to_dict(message: Message) -> Dict[str, Any]:
    """Any API message as a JSON dict: snake_case names, defaults included, int64 as int."""
    result = json_format.MessageToDict(message, preserving_proto_field_name=True,
                                       including_default_value_fields=True)
    return _int64_to_int(message.DESCRIPTOR, result)


def plan_to_dict(plan: Union[planner_pb2.Plan, planner_pb2.PlanResponse]) -> Dict[str, Any]:
    """A Plan (or the plan of a PlanResponse) as a JSON dict."""
    if isinstance(plan, planner_pb2.PlanResponse):
        plan = plan.plan
    return message_to_dict(plan)


def task_to_dict(task: TaskLike) -> Dict[str, Any]:
    """A Task as a JSON dict, the shape of the example task files."""
    return message_to_dict(task_from_dict(task))


_INT64_TYPES = frozenset((FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64,
                          FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_FIXED64,
                          FieldDescriptor.TYPE_SFIXED64))


def _int64_to_int(descriptor: Any, value: Dict[str, Any]) -> Dict[str, Any]:
    """The JSON mapping prints 64-bit integers as strings; Python callers want ints."""
    for field in descriptor.fields:
        if field.name not in value:
            continue
        item = value[field.name]
        repeated = field.label == FieldDescriptor.LABEL_REPEATED
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                continue  # the API's maps hold strings and doubles only
            if repeated:
                value[field.name] = [_int64_to_int(field.message_type, v) for v in item]
            else:
                value[field.name] = _int64_to_int(field.message_type, item)
        elif field.type in _INT64_TYPES:
            value[field.name] = [int(v) for v in item] if repeated else int(item)
    return value
