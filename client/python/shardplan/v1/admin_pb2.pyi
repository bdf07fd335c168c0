from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DeletePlanRequest(_message.Message):
    __slots__ = ["job_id", "job_key"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_KEY_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    job_key: str
    def __init__(self, job_id: _Optional[str] = ..., job_key: _Optional[str] = ...) -> None: ...

class DeletePlanResponse(_message.Message):
    __slots__ = ["job_id"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class RefusedModel(_message.Message):
    __slots__ = ["directory", "reason"]
    DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    directory: str
    reason: str
    def __init__(self, directory: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReloadModelsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ReloadModelsResponse(_message.Message):
    __slots__ = ["loaded", "policies_loaded", "policies_removed", "policies_unchanged", "refused", "removed", "unchanged"]
    LOADED_FIELD_NUMBER: _ClassVar[int]
    POLICIES_LOADED_FIELD_NUMBER: _ClassVar[int]
    POLICIES_REMOVED_FIELD_NUMBER: _ClassVar[int]
    POLICIES_UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    loaded: _containers.RepeatedScalarFieldContainer[str]
    policies_loaded: _containers.RepeatedScalarFieldContainer[str]
    policies_removed: _containers.RepeatedScalarFieldContainer[str]
    policies_unchanged: _containers.RepeatedScalarFieldContainer[str]
    refused: _containers.RepeatedCompositeFieldContainer[RefusedModel]
    removed: _containers.RepeatedScalarFieldContainer[str]
    unchanged: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, loaded: _Optional[_Iterable[str]] = ..., unchanged: _Optional[_Iterable[str]] = ..., removed: _Optional[_Iterable[str]] = ..., refused: _Optional[_Iterable[_Union[RefusedModel, _Mapping]]] = ..., policies_loaded: _Optional[_Iterable[str]] = ..., policies_unchanged: _Optional[_Iterable[str]] = ..., policies_removed: _Optional[_Iterable[str]] = ...) -> None: ...
