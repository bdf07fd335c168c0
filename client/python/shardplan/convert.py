"""Conversions between the API's messages and the plain dicts of its JSON files.

Tasks and plans are written as the proto3 JSON mapping with the original snake_case field names
(examples/README.md), so a dict loaded from a task file is accepted wherever a Task is.
"""

from __future__ import annotations

import json
import os
from typing import IO, Any, Dict, List, Optional, Tuple, Type, TypeVar, Union

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from shardplan.errors import InvalidTaskError
from shardplan.v1 import planner_pb2

# A task: the dict of its JSON file or the message. A plan: a Plan or PlanResponse, their dicts
# (a JobStatus dict too), or a TorchRec ShardingPlan dict.
TaskLike = Union[planner_pb2.Task, Dict[str, Any]]
PlanLike = Union[planner_pb2.Plan, planner_pb2.PlanResponse, Dict[str, Any]]

_M = TypeVar("_M", bound=Message)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _field_named(descriptor: Descriptor, key: str) -> Optional[FieldDescriptor]:
    """The field a JSON key names: its proto name or its lowerCamelCase JSON name."""
    field = descriptor.fields_by_name.get(key)
    if field is not None:
        return field
    return next((f for f in descriptor.fields if f.json_name == key), None)


def _refuse_two_spellings(value: Dict[str, Any], descriptor: Descriptor, path: str) -> None:
    """Raises InvalidTaskError naming the field path where one field is given under both of its
    names ("pooling_factor" and "poolingFactor"): protobuf's ParseDict takes the last, so a task
    would be planned at a value its author may not have meant. The server's and the CLI's reader
    (proto/json/json_message.h) refuse it in the same words."""
    spelling: Dict[str, str] = {}
    for key, item in value.items():
        field = _field_named(descriptor, key)
        if field is None:
            continue  # ParseDict names unknown fields
        field_path = _join(path, field.name)
        if field.name in spelling:
            raise InvalidTaskError(f"{field_path}: given twice, as \"{spelling[field.name]}\" "
                                   f"and as \"{key}\"")
        spelling[field.name] = key
        if (field.type != FieldDescriptor.TYPE_MESSAGE or
                field.message_type.GetOptions().map_entry or
                field.message_type.file.package == "google.protobuf"):
            continue  # scalars, the API's maps (strings and doubles) and well-known types
        if field.label == FieldDescriptor.LABEL_REPEATED and isinstance(item, list):
            for i, element in enumerate(item):
                if isinstance(element, dict):
                    _refuse_two_spellings(element, field.message_type, f"{field_path}[{i}]")
        elif isinstance(item, dict):
            _refuse_two_spellings(item, field.message_type, field_path)


def _parse(value: Any, message_type: Type[_M], what: str) -> _M:
    if isinstance(value, message_type):
        return value
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a dict or a shardplan.v1.{message_type.__name__}, "
                        f"got {type(value).__name__}")
    try:
        _refuse_two_spellings(value, message_type.DESCRIPTOR, "")
    except InvalidTaskError as e:
        raise InvalidTaskError(f"{what}: {e.message}") from None
    try:
        return json_format.ParseDict(value, message_type())
    except json_format.ParseError as e:
        raise InvalidTaskError(f"{what}: {e}") from None


def task_from_dict(task: TaskLike) -> planner_pb2.Task:
    """A shardplan.v1.Task from its JSON dict (unknown fields are errors); a Task is returned
    as is. Raises InvalidTaskError for a malformed dict."""
    return _parse(task, planner_pb2.Task, "task")


class _Object(dict):  # type: ignore[type-arg]
    """A JSON object as json.load builds it here, remembering the first key it was given twice."""

    repeated: Optional[str] = None


def _object_of_pairs(pairs: List[Tuple[str, Any]]) -> _Object:
    result = _Object()
    for key, value in pairs:
        if key in result and result.repeated is None:
            result.repeated = key
        result[key] = value
    return result


def _first_repeated_key(value: Any, path: str) -> Optional[str]:
    """The path of the first key given twice in one object ("tables[0].dim"), in file order."""
    if isinstance(value, list):
        for i, element in enumerate(value):
            found = _first_repeated_key(element, f"{path}[{i}]")
            if found is not None:
                return found
    elif isinstance(value, _Object):
        if value.repeated is not None:
            return _join(path, value.repeated)
        for key, element in value.items():
            found = _first_repeated_key(element, _join(path, key))
            if found is not None:
                return found
    return None


def load_json(source: Union[str, os.PathLike[str], IO[str]]) -> Dict[str, Any]:
    """A JSON file (a path or an open text file) as a dict, refusing an object that gives a key
    twice, where json.load keeps the last silently: InvalidTaskError "tables[0].dim: given twice
    in one object; give each field once", as the CLI and the server say it."""
    if hasattr(source, "read"):
        document = json.load(source, object_pairs_hook=_object_of_pairs)  # type: ignore[arg-type]
    else:
        with open(source, encoding="utf-8") as f:
            document = json.load(f, object_pairs_hook=_object_of_pairs)
    repeated = _first_repeated_key(document, "")
    if repeated is not None:
        raise InvalidTaskError(f"{repeated}: given twice in one object; give each field once")
    return document


def load_task(source: Union[str, os.PathLike[str], IO[str]]) -> planner_pb2.Task:
    """A task file (a path or an open text file) as a shardplan.v1.Task, read as the CLI and the
    server read it: an unknown field, a key given twice, or a field given under both of its
    names ("pooling_factor" and "poolingFactor") is an InvalidTaskError naming the field."""
    return task_from_dict(load_json(source))


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
