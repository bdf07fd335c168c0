from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

ADAM: Optimizer
BF16: ElementType
CANCELLED: JobState
COLUMN_WISE: ShardingType
DATA_PARALLEL: ShardingType
DESCRIPTOR: _descriptor.FileDescriptor
ELEMENT_TYPE_UNSPECIFIED: ElementType
FAILED: JobState
FP16: ElementType
FP32: ElementType
FREQUENCY_RANK: RowOrder
INFERENCE: Objective
INT8: ElementType
JOB_STATE_UNSPECIFIED: JobState
NATURAL: RowOrder
NFP8: ElementType
OBJECTIVE_UNSPECIFIED: Objective
OPTIMIZER_UNSPECIFIED: Optimizer
OTHER_OPTIMIZER: Optimizer
POOLING_UNSPECIFIED: Pooling
QUEUED: JobState
ROWWISE_ADAGRAD: Optimizer
ROW_WISE: ShardingType
RUNNING: JobState
SEQUENCE: Pooling
SGD: Optimizer
SHARDING_TYPE_UNSPECIFIED: ShardingType
SUCCEEDED: JobState
SUM: Pooling
TABLE_ROW_WISE: ShardingType
TABLE_WISE: ShardingType
TRAINING: Objective
UINT8: ElementType

class AccessFigures(_message.Message):
    __slots__ = ["communication_balance", "communication_us", "devices", "lookup_balance", "matrix_omitted", "memory_balance", "total_communication_us", "total_fetch_bytes"]
    class Device(_message.Message):
        __slots__ = ["device", "fetch_bytes", "fetch_us", "lookup_bytes", "lookups", "memory_bytes", "serve_us"]
        DEVICE_FIELD_NUMBER: _ClassVar[int]
        FETCH_BYTES_FIELD_NUMBER: _ClassVar[int]
        FETCH_US_FIELD_NUMBER: _ClassVar[int]
        LOOKUPS_FIELD_NUMBER: _ClassVar[int]
        LOOKUP_BYTES_FIELD_NUMBER: _ClassVar[int]
        MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
        SERVE_US_FIELD_NUMBER: _ClassVar[int]
        device: int
        fetch_bytes: float
        fetch_us: float
        lookup_bytes: float
        lookups: float
        memory_bytes: int
        serve_us: float
        def __init__(self, device: _Optional[int] = ..., memory_bytes: _Optional[int] = ..., lookups: _Optional[float] = ..., lookup_bytes: _Optional[float] = ..., fetch_us: _Optional[float] = ..., fetch_bytes: _Optional[float] = ..., serve_us: _Optional[float] = ...) -> None: ...
    COMMUNICATION_BALANCE_FIELD_NUMBER: _ClassVar[int]
    COMMUNICATION_US_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    LOOKUP_BALANCE_FIELD_NUMBER: _ClassVar[int]
    MATRIX_OMITTED_FIELD_NUMBER: _ClassVar[int]
    MEMORY_BALANCE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COMMUNICATION_US_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FETCH_BYTES_FIELD_NUMBER: _ClassVar[int]
    communication_balance: float
    communication_us: _containers.RepeatedScalarFieldContainer[float]
    devices: _containers.RepeatedCompositeFieldContainer[AccessFigures.Device]
    lookup_balance: float
    matrix_omitted: bool
    memory_balance: float
    total_communication_us: float
    total_fetch_bytes: float
    def __init__(self, devices: _Optional[_Iterable[_Union[AccessFigures.Device, _Mapping]]] = ..., communication_us: _Optional[_Iterable[float]] = ..., matrix_omitted: bool = ..., total_communication_us: _Optional[float] = ..., total_fetch_bytes: _Optional[float] = ..., memory_balance: _Optional[float] = ..., lookup_balance: _Optional[float] = ..., communication_balance: _Optional[float] = ...) -> None: ...

class AccessProfile(_message.Message):
    __slots__ = ["rows_in_rank_order", "top_k", "zipf"]
    class TopK(_message.Message):
        __slots__ = ["tail_count", "tail_rows", "top_counts", "top_ids"]
        TAIL_COUNT_FIELD_NUMBER: _ClassVar[int]
        TAIL_ROWS_FIELD_NUMBER: _ClassVar[int]
        TOP_COUNTS_FIELD_NUMBER: _ClassVar[int]
        TOP_IDS_FIELD_NUMBER: _ClassVar[int]
        tail_count: float
        tail_rows: int
        top_counts: _containers.RepeatedScalarFieldContainer[float]
        top_ids: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, top_counts: _Optional[_Iterable[float]] = ..., tail_count: _Optional[float] = ..., tail_rows: _Optional[int] = ..., top_ids: _Optional[_Iterable[int]] = ...) -> None: ...
    class Zipf(_message.Message):
        __slots__ = ["active_rows", "exponent", "uniform_share"]
        ACTIVE_ROWS_FIELD_NUMBER: _ClassVar[int]
        EXPONENT_FIELD_NUMBER: _ClassVar[int]
        UNIFORM_SHARE_FIELD_NUMBER: _ClassVar[int]
        active_rows: int
        exponent: float
        uniform_share: float
        def __init__(self, exponent: _Optional[float] = ..., uniform_share: _Optional[float] = ..., active_rows: _Optional[int] = ...) -> None: ...
    ROWS_IN_RANK_ORDER_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    ZIPF_FIELD_NUMBER: _ClassVar[int]
    rows_in_rank_order: bool
    top_k: AccessProfile.TopK
    zipf: AccessProfile.Zipf
    def __init__(self, top_k: _Optional[_Union[AccessProfile.TopK, _Mapping]] = ..., zipf: _Optional[_Union[AccessProfile.Zipf, _Mapping]] = ..., rows_in_rank_order: bool = ...) -> None: ...

class AlgorithmInfo(_message.Message):
    __slots__ = ["description", "is_default", "name", "parameters", "sharding_types", "uses_cost_model"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    SHARDING_TYPES_FIELD_NUMBER: _ClassVar[int]
    USES_COST_MODEL_FIELD_NUMBER: _ClassVar[int]
    description: str
    is_default: bool
    name: str
    parameters: _containers.RepeatedCompositeFieldContainer[AlgorithmParameter]
    sharding_types: _containers.RepeatedScalarFieldContainer[ShardingType]
    uses_cost_model: bool
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., parameters: _Optional[_Iterable[_Union[AlgorithmParameter, _Mapping]]] = ..., sharding_types: _Optional[_Iterable[_Union[ShardingType, str]]] = ..., uses_cost_model: bool = ..., is_default: bool = ...) -> None: ...

class AlgorithmParameter(_message.Message):
    __slots__ = ["default_value", "description", "max_value", "min_value", "name", "type"]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MAX_VALUE_FIELD_NUMBER: _ClassVar[int]
    MIN_VALUE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    default_value: str
    description: str
    max_value: str
    min_value: str
    name: str
    type: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., default_value: _Optional[str] = ..., description: _Optional[str] = ..., min_value: _Optional[str] = ..., max_value: _Optional[str] = ...) -> None: ...

class ColocationGroup(_message.Message):
    __slots__ = ["tables"]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tables: _Optional[_Iterable[str]] = ...) -> None: ...

class DeviceCost(_message.Message):
    __slots__ = ["backward_comm_ms", "compute_ms", "device", "dim_sum", "forward_comm_ms", "memory_bytes", "memory_capacity_bytes", "num_shards", "sequence_buffer_bytes", "total_ms"]
    BACKWARD_COMM_MS_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_MS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    DIM_SUM_FIELD_NUMBER: _ClassVar[int]
    FORWARD_COMM_MS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    MEMORY_CAPACITY_BYTES_FIELD_NUMBER: _ClassVar[int]
    NUM_SHARDS_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_BUFFER_BYTES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MS_FIELD_NUMBER: _ClassVar[int]
    backward_comm_ms: float
    compute_ms: float
    device: int
    dim_sum: int
    forward_comm_ms: float
    memory_bytes: int
    memory_capacity_bytes: int
    num_shards: int
    sequence_buffer_bytes: int
    total_ms: float
    def __init__(self, device: _Optional[int] = ..., memory_bytes: _Optional[int] = ..., memory_capacity_bytes: _Optional[int] = ..., dim_sum: _Optional[int] = ..., num_shards: _Optional[int] = ..., compute_ms: _Optional[float] = ..., forward_comm_ms: _Optional[float] = ..., backward_comm_ms: _Optional[float] = ..., total_ms: _Optional[float] = ..., sequence_buffer_bytes: _Optional[int] = ...) -> None: ...

class EvaluatePlanRequest(_message.Message):
    __slots__ = ["ground_truth", "model", "plan", "task"]
    GROUND_TRUTH_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    ground_truth: str
    model: str
    plan: Plan
    task: Task
    def __init__(self, task: _Optional[_Union[Task, _Mapping]] = ..., plan: _Optional[_Union[Plan, _Mapping]] = ..., model: _Optional[str] = ..., ground_truth: _Optional[str] = ...) -> None: ...

class EvaluatePlanResponse(_message.Message):
    __slots__ = ["access_figures", "plan"]
    ACCESS_FIGURES_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    access_figures: AccessFigures
    plan: Plan
    def __init__(self, plan: _Optional[_Union[Plan, _Mapping]] = ..., access_figures: _Optional[_Union[AccessFigures, _Mapping]] = ...) -> None: ...

class JobRequest(_message.Message):
    __slots__ = ["job_id"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class JobStatus(_message.Message):
    __slots__ = ["error_code", "error_message", "finished_unix_ms", "job_id", "job_key", "progress", "progress_fraction", "result", "started_unix_ms", "state", "submitted_unix_ms"]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FINISHED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_KEY_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FRACTION_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STARTED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    error_code: int
    error_message: str
    finished_unix_ms: int
    job_id: str
    job_key: str
    progress: str
    progress_fraction: float
    result: PlanResponse
    started_unix_ms: int
    state: JobState
    submitted_unix_ms: int
    def __init__(self, job_id: _Optional[str] = ..., state: _Optional[_Union[JobState, str]] = ..., result: _Optional[_Union[PlanResponse, _Mapping]] = ..., error_code: _Optional[int] = ..., error_message: _Optional[str] = ..., progress: _Optional[str] = ..., progress_fraction: _Optional[float] = ..., submitted_unix_ms: _Optional[int] = ..., started_unix_ms: _Optional[int] = ..., finished_unix_ms: _Optional[int] = ..., job_key: _Optional[str] = ...) -> None: ...

class ListAlgorithmsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListAlgorithmsResponse(_message.Message):
    __slots__ = ["algorithms"]
    ALGORITHMS_FIELD_NUMBER: _ClassVar[int]
    algorithms: _containers.RepeatedCompositeFieldContainer[AlgorithmInfo]
    def __init__(self, algorithms: _Optional[_Iterable[_Union[AlgorithmInfo, _Mapping]]] = ...) -> None: ...

class ListModelsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListModelsResponse(_message.Message):
    __slots__ = ["models"]
    MODELS_FIELD_NUMBER: _ClassVar[int]
    models: _containers.RepeatedCompositeFieldContainer[ModelInfo]
    def __init__(self, models: _Optional[_Iterable[_Union[ModelInfo, _Mapping]]] = ...) -> None: ...

class MemoryOptions(_message.Message):
    __slots__ = ["io_buffer_multiplier", "optimizer", "optimizer_state_multiplier", "storage_reservation"]
    IO_BUFFER_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_STATE_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    STORAGE_RESERVATION_FIELD_NUMBER: _ClassVar[int]
    io_buffer_multiplier: float
    optimizer: Optimizer
    optimizer_state_multiplier: float
    storage_reservation: float
    def __init__(self, optimizer_state_multiplier: _Optional[float] = ..., io_buffer_multiplier: _Optional[float] = ..., storage_reservation: _Optional[float] = ..., optimizer: _Optional[_Union[Optimizer, str]] = ...) -> None: ...

class ModelInfo(_message.Message):
    __slots__ = ["algorithm", "backend", "costs_interconnect", "created", "data_size", "description", "device_counts", "hardware_profile", "is_default", "is_latest", "kind", "name", "test_mse", "version"]
    class TestMseEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    COSTS_INTERCONNECT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    DATA_SIZE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DEVICE_COUNTS_FIELD_NUMBER: _ClassVar[int]
    HARDWARE_PROFILE_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    IS_LATEST_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEST_MSE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    algorithm: str
    backend: str
    costs_interconnect: bool
    created: str
    data_size: int
    description: str
    device_counts: _containers.RepeatedScalarFieldContainer[int]
    hardware_profile: str
    is_default: bool
    is_latest: bool
    kind: str
    name: str
    test_mse: _containers.ScalarMap[str, float]
    version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., kind: _Optional[str] = ..., hardware_profile: _Optional[str] = ..., backend: _Optional[str] = ..., data_size: _Optional[int] = ..., test_mse: _Optional[_Mapping[str, float]] = ..., created: _Optional[str] = ..., device_counts: _Optional[_Iterable[int]] = ..., is_default: bool = ..., is_latest: bool = ..., description: _Optional[str] = ..., costs_interconnect: bool = ..., algorithm: _Optional[str] = ...) -> None: ...

class Plan(_message.Message):
    __slots__ = ["algorithm", "bottleneck_device", "column_splits", "cost_kind", "cost_model", "cost_ms", "devices", "local_world_size", "parameters", "request_hash", "seed", "selection", "stats", "tables", "warnings"]
    class ParametersEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    BOTTLENECK_DEVICE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_SPLITS_FIELD_NUMBER: _ClassVar[int]
    COST_KIND_FIELD_NUMBER: _ClassVar[int]
    COST_MODEL_FIELD_NUMBER: _ClassVar[int]
    COST_MS_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    LOCAL_WORLD_SIZE_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_HASH_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    algorithm: str
    bottleneck_device: int
    column_splits: _containers.RepeatedScalarFieldContainer[str]
    cost_kind: str
    cost_model: str
    cost_ms: float
    devices: _containers.RepeatedCompositeFieldContainer[DeviceCost]
    local_world_size: int
    parameters: _containers.ScalarMap[str, str]
    request_hash: str
    seed: int
    selection: str
    stats: SearchStats
    tables: _containers.RepeatedCompositeFieldContainer[TableSharding]
    warnings: _containers.RepeatedCompositeFieldContainer[PlanWarning]
    def __init__(self, tables: _Optional[_Iterable[_Union[TableSharding, _Mapping]]] = ..., devices: _Optional[_Iterable[_Union[DeviceCost, _Mapping]]] = ..., cost_ms: _Optional[float] = ..., bottleneck_device: _Optional[int] = ..., algorithm: _Optional[str] = ..., parameters: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., cost_model: _Optional[str] = ..., cost_kind: _Optional[str] = ..., column_splits: _Optional[_Iterable[str]] = ..., stats: _Optional[_Union[SearchStats, _Mapping]] = ..., request_hash: _Optional[str] = ..., selection: _Optional[str] = ..., warnings: _Optional[_Iterable[_Union[PlanWarning, _Mapping]]] = ..., local_world_size: _Optional[int] = ...) -> None: ...

class PlanRequest(_message.Message):
    __slots__ = ["algorithm", "bypass_cache", "job_key", "model", "parameters", "seed", "task"]
    class ParametersEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    BYPASS_CACHE_FIELD_NUMBER: _ClassVar[int]
    JOB_KEY_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    algorithm: str
    bypass_cache: bool
    job_key: str
    model: str
    parameters: _containers.ScalarMap[str, str]
    seed: int
    task: Task
    def __init__(self, task: _Optional[_Union[Task, _Mapping]] = ..., algorithm: _Optional[str] = ..., parameters: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., model: _Optional[str] = ..., bypass_cache: bool = ..., job_key: _Optional[str] = ...) -> None: ...

class PlanResponse(_message.Message):
    __slots__ = ["cache_hit", "from_store", "job_id", "joined_in_flight", "plan"]
    CACHE_HIT_FIELD_NUMBER: _ClassVar[int]
    FROM_STORE_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    JOINED_IN_FLIGHT_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    cache_hit: bool
    from_store: bool
    job_id: str
    joined_in_flight: bool
    plan: Plan
    def __init__(self, plan: _Optional[_Union[Plan, _Mapping]] = ..., cache_hit: bool = ..., from_store: bool = ..., job_id: _Optional[str] = ..., joined_in_flight: bool = ...) -> None: ...

class PlanWarning(_message.Message):
    __slots__ = ["code", "field", "message"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    field: str
    message: str
    def __init__(self, code: _Optional[str] = ..., field: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class ReplicationBudget(_message.Message):
    __slots__ = ["capacity_fraction", "extra_gib_per_device"]
    CAPACITY_FRACTION_FIELD_NUMBER: _ClassVar[int]
    EXTRA_GIB_PER_DEVICE_FIELD_NUMBER: _ClassVar[int]
    capacity_fraction: float
    extra_gib_per_device: float
    def __init__(self, extra_gib_per_device: _Optional[float] = ..., capacity_fraction: _Optional[float] = ...) -> None: ...

class ReportMeasurementRequest(_message.Message):
    __slots__ = ["device_ms", "model", "plan", "task"]
    DEVICE_MS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    device_ms: _containers.RepeatedScalarFieldContainer[float]
    model: str
    plan: Plan
    task: Task
    def __init__(self, task: _Optional[_Union[Task, _Mapping]] = ..., plan: _Optional[_Union[Plan, _Mapping]] = ..., device_ms: _Optional[_Iterable[float]] = ..., model: _Optional[str] = ...) -> None: ...

class ReportMeasurementResponse(_message.Message):
    __slots__ = ["cost_model", "mean_abs_relative_error", "measured_ms", "predicted_device_ms", "predicted_ms", "relative_error", "reports"]
    COST_MODEL_FIELD_NUMBER: _ClassVar[int]
    MEAN_ABS_RELATIVE_ERROR_FIELD_NUMBER: _ClassVar[int]
    MEASURED_MS_FIELD_NUMBER: _ClassVar[int]
    PREDICTED_DEVICE_MS_FIELD_NUMBER: _ClassVar[int]
    PREDICTED_MS_FIELD_NUMBER: _ClassVar[int]
    RELATIVE_ERROR_FIELD_NUMBER: _ClassVar[int]
    REPORTS_FIELD_NUMBER: _ClassVar[int]
    cost_model: str
    mean_abs_relative_error: float
    measured_ms: float
    predicted_device_ms: _containers.RepeatedScalarFieldContainer[float]
    predicted_ms: float
    relative_error: float
    reports: int
    def __init__(self, cost_model: _Optional[str] = ..., predicted_device_ms: _Optional[_Iterable[float]] = ..., predicted_ms: _Optional[float] = ..., measured_ms: _Optional[float] = ..., relative_error: _Optional[float] = ..., mean_abs_relative_error: _Optional[float] = ..., reports: _Optional[int] = ...) -> None: ...

class RowLayout(_message.Message):
    __slots__ = ["hot_row_ids", "rank_bands", "routes", "row_order"]
    HOT_ROW_IDS_FIELD_NUMBER: _ClassVar[int]
    RANK_BANDS_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    ROW_ORDER_FIELD_NUMBER: _ClassVar[int]
    hot_row_ids: _containers.RepeatedScalarFieldContainer[int]
    rank_bands: _containers.RepeatedScalarFieldContainer[int]
    routes: _containers.RepeatedCompositeFieldContainer[RowRoute]
    row_order: RowOrder
    def __init__(self, row_order: _Optional[_Union[RowOrder, str]] = ..., routes: _Optional[_Iterable[_Union[RowRoute, _Mapping]]] = ..., rank_bands: _Optional[_Iterable[int]] = ..., hot_row_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class RowRoute(_message.Message):
    __slots__ = ["requester", "shard"]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    SHARD_FIELD_NUMBER: _ClassVar[int]
    requester: int
    shard: int
    def __init__(self, requester: _Optional[int] = ..., shard: _Optional[int] = ...) -> None: ...

class SearchStats(_message.Message):
    __slots__ = ["anytime_result", "candidates_evaluated", "cost_cache_hits", "cost_cache_misses", "cost_model_calls", "planning_time_ms"]
    ANYTIME_RESULT_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_EVALUATED_FIELD_NUMBER: _ClassVar[int]
    COST_CACHE_HITS_FIELD_NUMBER: _ClassVar[int]
    COST_CACHE_MISSES_FIELD_NUMBER: _ClassVar[int]
    COST_MODEL_CALLS_FIELD_NUMBER: _ClassVar[int]
    PLANNING_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    anytime_result: bool
    candidates_evaluated: int
    cost_cache_hits: int
    cost_cache_misses: int
    cost_model_calls: int
    planning_time_ms: float
    def __init__(self, planning_time_ms: _Optional[float] = ..., cost_model_calls: _Optional[int] = ..., cost_cache_hits: _Optional[int] = ..., cost_cache_misses: _Optional[int] = ..., candidates_evaluated: _Optional[int] = ..., anytime_result: bool = ...) -> None: ...

class Shard(_message.Message):
    __slots__ = ["column_count", "column_offset", "device", "row_count", "row_offset"]
    COLUMN_COUNT_FIELD_NUMBER: _ClassVar[int]
    COLUMN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    ROW_COUNT_FIELD_NUMBER: _ClassVar[int]
    ROW_OFFSET_FIELD_NUMBER: _ClassVar[int]
    column_count: int
    column_offset: int
    device: int
    row_count: int
    row_offset: int
    def __init__(self, device: _Optional[int] = ..., row_offset: _Optional[int] = ..., row_count: _Optional[int] = ..., column_offset: _Optional[int] = ..., column_count: _Optional[int] = ...) -> None: ...

class SubmitPlanResponse(_message.Message):
    __slots__ = ["job_id", "state"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    state: JobState
    def __init__(self, job_id: _Optional[str] = ..., state: _Optional[_Union[JobState, str]] = ...) -> None: ...

class Table(_message.Message):
    __slots__ = ["access_bins", "access_profile", "allowed_sharding_types", "dim", "element_type", "name", "pinned_device", "pooling", "pooling_factor", "rows"]
    ACCESS_BINS_FIELD_NUMBER: _ClassVar[int]
    ACCESS_PROFILE_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_SHARDING_TYPES_FIELD_NUMBER: _ClassVar[int]
    DIM_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PINNED_DEVICE_FIELD_NUMBER: _ClassVar[int]
    POOLING_FACTOR_FIELD_NUMBER: _ClassVar[int]
    POOLING_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    access_bins: _containers.RepeatedScalarFieldContainer[float]
    access_profile: AccessProfile
    allowed_sharding_types: _containers.RepeatedScalarFieldContainer[ShardingType]
    dim: int
    element_type: ElementType
    name: str
    pinned_device: int
    pooling: Pooling
    pooling_factor: float
    rows: int
    def __init__(self, name: _Optional[str] = ..., rows: _Optional[int] = ..., dim: _Optional[int] = ..., pooling_factor: _Optional[float] = ..., access_bins: _Optional[_Iterable[float]] = ..., element_type: _Optional[_Union[ElementType, str]] = ..., allowed_sharding_types: _Optional[_Iterable[_Union[ShardingType, str]]] = ..., pinned_device: _Optional[int] = ..., access_profile: _Optional[_Union[AccessProfile, _Mapping]] = ..., pooling: _Optional[_Union[Pooling, str]] = ...) -> None: ...

class TableSharding(_message.Message):
    __slots__ = ["row_layout", "sharding_type", "shards", "table"]
    ROW_LAYOUT_FIELD_NUMBER: _ClassVar[int]
    SHARDING_TYPE_FIELD_NUMBER: _ClassVar[int]
    SHARDS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    row_layout: RowLayout
    sharding_type: ShardingType
    shards: _containers.RepeatedCompositeFieldContainer[Shard]
    table: str
    def __init__(self, table: _Optional[str] = ..., sharding_type: _Optional[_Union[ShardingType, str]] = ..., shards: _Optional[_Iterable[_Union[Shard, _Mapping]]] = ..., row_layout: _Optional[_Union[RowLayout, _Mapping]] = ...) -> None: ...

class Task(_message.Message):
    __slots__ = ["batch_size", "colocate", "max_planning_time_ms", "memory", "objective", "replication_budget", "tables", "topology"]
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    COLOCATE_FIELD_NUMBER: _ClassVar[int]
    MAX_PLANNING_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    REPLICATION_BUDGET_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    TOPOLOGY_FIELD_NUMBER: _ClassVar[int]
    batch_size: int
    colocate: _containers.RepeatedCompositeFieldContainer[ColocationGroup]
    max_planning_time_ms: int
    memory: MemoryOptions
    objective: Objective
    replication_budget: ReplicationBudget
    tables: _containers.RepeatedCompositeFieldContainer[Table]
    topology: Topology
    def __init__(self, tables: _Optional[_Iterable[_Union[Table, _Mapping]]] = ..., topology: _Optional[_Union[Topology, _Mapping]] = ..., batch_size: _Optional[int] = ..., colocate: _Optional[_Iterable[_Union[ColocationGroup, _Mapping]]] = ..., memory: _Optional[_Union[MemoryOptions, _Mapping]] = ..., max_planning_time_ms: _Optional[int] = ..., objective: _Optional[_Union[Objective, str]] = ..., replication_budget: _Optional[_Union[ReplicationBudget, _Mapping]] = ...) -> None: ...

class Topology(_message.Message):
    __slots__ = ["all_reduce_bandwidth_gibps", "device_memory_gib", "devices_per_host", "fetch_cost_us", "hardware", "inter_host_bandwidth_gibps", "inter_host_latency_us", "intra_host_bandwidth_gibps", "intra_host_latency_us", "num_devices", "per_device_memory_gib"]
    ALL_REDUCE_BANDWIDTH_GIBPS_FIELD_NUMBER: _ClassVar[int]
    DEVICES_PER_HOST_FIELD_NUMBER: _ClassVar[int]
    DEVICE_MEMORY_GIB_FIELD_NUMBER: _ClassVar[int]
    FETCH_COST_US_FIELD_NUMBER: _ClassVar[int]
    HARDWARE_FIELD_NUMBER: _ClassVar[int]
    INTER_HOST_BANDWIDTH_GIBPS_FIELD_NUMBER: _ClassVar[int]
    INTER_HOST_LATENCY_US_FIELD_NUMBER: _ClassVar[int]
    INTRA_HOST_BANDWIDTH_GIBPS_FIELD_NUMBER: _ClassVar[int]
    INTRA_HOST_LATENCY_US_FIELD_NUMBER: _ClassVar[int]
    NUM_DEVICES_FIELD_NUMBER: _ClassVar[int]
    PER_DEVICE_MEMORY_GIB_FIELD_NUMBER: _ClassVar[int]
    all_reduce_bandwidth_gibps: float
    device_memory_gib: float
    devices_per_host: int
    fetch_cost_us: _containers.RepeatedScalarFieldContainer[float]
    hardware: str
    inter_host_bandwidth_gibps: float
    inter_host_latency_us: float
    intra_host_bandwidth_gibps: float
    intra_host_latency_us: float
    num_devices: int
    per_device_memory_gib: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, num_devices: _Optional[int] = ..., device_memory_gib: _Optional[float] = ..., per_device_memory_gib: _Optional[_Iterable[float]] = ..., devices_per_host: _Optional[int] = ..., intra_host_bandwidth_gibps: _Optional[float] = ..., inter_host_bandwidth_gibps: _Optional[float] = ..., all_reduce_bandwidth_gibps: _Optional[float] = ..., hardware: _Optional[str] = ..., intra_host_latency_us: _Optional[float] = ..., inter_host_latency_us: _Optional[float] = ..., fetch_cost_us: _Optional[_Iterable[float]] = ...) -> None: ...

class ElementType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ShardingType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Pooling(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Optimizer(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Objective(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class RowOrder(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class JobState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
